package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// The second-uid test runs this test binary again as another user (nobody)
// in one of these modes, chosen by $MNEME_OTHER_USER.
const (
	otherProbe = "probe" // try to get at the owner's worker and files; print what happened as JSON
	otherSquat = "squat" // listen on the owner's TCP port; print "conn" per connection until stdin closes
)

func TestMain(m *testing.M) {
	switch os.Getenv("MNEME_OTHER_USER") {
	case otherProbe:
		os.Exit(probeAsOther(os.Getenv("MNEME_PROBE_URL"), os.Getenv("MNEME_PROBE_DATA")))
	case otherSquat:
		os.Exit(squatAsOther(os.Getenv("MNEME_PROBE_ADDR")))
	}
	os.Exit(m.Run())
}

// probeResult is what the other user got.
type probeResult struct {
	Status    map[string]int `json:"status"` // "METHOD path" → HTTP status over TCP
	Health    string         `json:"health"` // GET /api/health's body without credentials
	SecretErr string         `json:"secretErr"`
	DBErr     string         `json:"dbErr"`
	SocketErr string         `json:"socketErr"`
	DataErr   string         `json:"dataErr"` // listing the data directory
}

func probeAsOther(base, dataDir string) int {
	r := probeResult{Status: map[string]int{}}
	client := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, rq := range []struct{ method, path, accept, body string }{
		{"GET", "/", "text/html", ""},
		{"GET", "/api/sessions", "", ""},
		{"GET", "/api/search?q=owner", "", ""},
		{"GET", "/stream", "text/event-stream", ""},
		{"GET", "/api/settings", "", ""},
		{"PUT", "/api/settings", "", `{"summarizer":{"kind":"claude-cli","claudePath":"/tmp/x.sh"}}`},
		{"POST", "/api/login-links", "", ""},
		{"POST", "/api/hooks/user-prompt-submit", "", `{"session_id":"intruder","prompt":"planted","hook_event_name":"UserPromptSubmit"}`},
	} {
		req, _ := http.NewRequest(rq.method, base+rq.path, strings.NewReader(rq.body))
		if rq.accept != "" {
			req.Header.Set("Accept", rq.accept)
		}
		if rq.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			r.Status[rq.method+" "+rq.path] = -1
			continue
		}
		resp.Body.Close()
		r.Status[rq.method+" "+rq.path] = resp.StatusCode
	}
	if resp, err := client.Get(base + "/api/health"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		r.Health = string(b)
	}
	errString := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	_, err := os.ReadFile(filepath.Join(dataDir, "secret"))
	r.SecretErr = errString(err)
	_, err = os.ReadFile(filepath.Join(dataDir, "mneme.db"))
	r.DBErr = errString(err)
	_, err = os.ReadDir(dataDir)
	r.DataErr = errString(err)
	c, err := net.Dial("unix", filepath.Join(dataDir, "mneme.sock"))
	if err == nil {
		c.Close()
	}
	r.SocketErr = errString(err)
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

func squatAsOther(addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("listening")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fmt.Println("conn")
			c.Close()
		}
	}()
	io.Copy(io.Discard, os.Stdin) // until the test closes our stdin
	ln.Close()
	return 0
}

// asNobody is the command line prefix that runs a program as uid/gid 65534
// with no supplementary groups; the test skips where that is not possible.
func asNobody(t *testing.T) []string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the second-uid test needs root, to run a process as nobody")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv not found: the second-uid test is skipped")
	}
	prefix := []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}
	if out, err := exec.Command(prefix[0], append(prefix[1:], "true")...).CombinedOutput(); err != nil {
		t.Skipf("cannot run as nobody (%v: %s): the second-uid test is skipped", err, out)
	}
	return prefix
}

// sharedBinaries builds mneme and mneme-hook into a directory nobody may
// read, and copies this test binary beside them (for the other user's
// probes).
func sharedBinaries(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mneme-multiuser-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/mneme", "./cmd/mneme-hook")
	build.Dir = testutil.RepoRoot(t)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "web.test"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mneme", "mneme-hook", "web.test"} {
		os.Chmod(filepath.Join(dir, name), 0o755)
	}
	return dir
}

// socketGet fetches path from the worker of dataDir over its socket.
func socketGet(dataDir, path string) (int, []byte, error) {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", filepath.Join(dataDir, "mneme.sock"))
		},
	}}
	resp, err := c.Get(testutil.SocketURL + path)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// TestSecondUser: a worker of the owner (root here) and another local user
// (nobody). The other user gets 401 over TCP, cannot read the secret, the
// database or the socket, cannot change settings; and when the owner's
// worker is down and the other user listens on its TCP port, the owner's
// hook sends that listener nothing and spools the event. The owner's hook,
// status, search and the viewer (through `mneme open --print`) work.
func TestSecondUser(t *testing.T) {
	nobody := asNobody(t)
	bin := sharedBinaries(t)
	root, err := os.MkdirTemp("", "mneme-multiuser-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755) // others may look inside; the data directory itself must keep them out
	dataDir := filepath.Join(root, "data")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "MNEME_DATA_DIR=" + dataDir, "MNEME_PORT=" + strconv.Itoa(port)}
	owner := func(stdin []byte, name string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Env, cmd.Stdin = env, bytes.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return string(out), 0
	}

	serve := exec.Command(filepath.Join(bin, "mneme"), "serve")
	serve.Env = env
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- serve.Wait() }()
	stopServe := func() {
		serve.Process.Signal(syscall.SIGTERM)
		select {
		case <-served:
		case <-time.After(15 * time.Second):
			serve.Process.Kill()
			<-served
		}
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			stopServe()
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if st, _, err := socketGet(dataDir, "/api/health"); err == nil && st == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("mneme serve did not answer on its socket within 30 s")
		}
	}
	for path, want := range map[string]os.FileMode{dataDir: 0o700, filepath.Join(dataDir, "secret"): 0o600, filepath.Join(dataDir, "mneme.sock"): 0o600} {
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %04o", path, info.Mode(), err, want)
		}
	}

	// The owner: hook, status, search.
	prompt := []byte(`{"session_id":"owner-s1","cwd":"/home/owner/proj","prompt_id":"p1","hook_event_name":"UserPromptSubmit","prompt":"the owner's private plan"}`)
	if out, code := owner(prompt, "mneme-hook", "user-prompt-submit"); code != 0 || !json.Valid(bytes.TrimSpace([]byte(out))) {
		t.Fatalf("owner's hook: exit %d %s", code, out)
	}
	if out, code := owner(nil, "mneme", "status"); code != 0 || !strings.Contains(out, "worker:         ok") || !strings.Contains(out, "pid ") {
		// (Its counts are cached for two seconds by /api/health.)
		t.Errorf("owner's status: exit %d\n%s", code, out)
	}
	if out, code := owner(nil, "mneme", "search", "private plan"); code != 0 || !strings.Contains(out, "plan") {
		t.Errorf("owner's search: exit %d\n%s", code, out)
	}

	// The other user.
	probe := exec.Command(nobody[0], append(nobody[1:], filepath.Join(bin, "web.test"), "-test.run=^$")...)
	probe.Env = []string{"PATH=" + os.Getenv("PATH"), "MNEME_OTHER_USER=" + otherProbe, "MNEME_PROBE_URL=" + base, "MNEME_PROBE_DATA=" + dataDir}
	out, err := probe.Output()
	if err != nil {
		t.Fatalf("probe as nobody: %v %s", err, out)
	}
	var got probeResult
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("probe output %q: %v", out, err)
	}
	t.Logf("as nobody: %+v", got)
	for req, st := range got.Status {
		if st != 401 {
			t.Errorf("as nobody, %s over TCP: %d, want 401", req, st)
		}
	}
	var health map[string]any
	if json.Unmarshal([]byte(got.Health), &health) != nil || len(health) != 2 || health["service"] != "mneme" {
		t.Errorf("as nobody, health says %s, want only service and status", got.Health)
	}
	for what, e := range map[string]string{"secret": got.SecretErr, "database": got.DBErr, "socket": got.SocketErr, "data directory": got.DataErr} {
		if !strings.Contains(e, "permission denied") {
			t.Errorf("as nobody, the %s: %q, want permission denied", what, e)
		}
	}
	if _, body, err := socketGet(dataDir, "/api/settings"); err != nil || strings.Contains(string(body), "/tmp/x.sh") {
		t.Errorf("the other user changed the settings: %s %v", body, err)
	}
	if _, body, _ := socketGet(dataDir, "/api/sessions"); strings.Contains(string(body), "intruder") {
		t.Error("the other user's hook event was stored")
	}

	// The viewer, logged in through `mneme open --print`.
	link, code := owner(nil, "mneme", "open", "--print")
	link = strings.TrimSpace(link)
	if code != 0 || !strings.HasPrefix(link, base+"/login?token=") {
		t.Fatalf("mneme open --print: exit %d %q", code, link)
	}
	// In a subtest, so the browser is closed before the squatting part:
	// an open viewer would reconnect to whatever holds the port.
	t.Run("viewer", func(t *testing.T) {
		b := newBrowser(t, 1280, 800) // skips without chromium
		b.do(t, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#feed > .row")))
		if text := eval[string](t, b, `document.getElementById("feed").innerText`); !strings.Contains(text, "private plan") {
			t.Errorf("the feed does not show the owner's prompt: %q", text)
		}
	})

	// Squatting: the owner's worker is down, the other user holds the port.
	stopServe()
	stopped = true
	squat := exec.Command(nobody[0], append(nobody[1:], filepath.Join(bin, "web.test"), "-test.run=^$")...)
	squat.Env = []string{"PATH=" + os.Getenv("PATH"), "MNEME_OTHER_USER=" + otherSquat, "MNEME_PROBE_ADDR=127.0.0.1:" + strconv.Itoa(port)}
	squatIn, _ := squat.StdinPipe()
	squatOut, _ := squat.StdoutPipe()
	if err := squat.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(squatOut)
	if !lines.Scan() || lines.Text() != "listening" {
		squat.Process.Kill()
		t.Fatalf("the squatter did not listen: %q", lines.Text())
	}
	event := []byte(`{"session_id":"owner-s1","cwd":"/home/owner/proj","prompt_id":"p2","hook_event_name":"UserPromptSubmit","prompt":"sent while a squatter holds the port"}`)
	if out, code := owner(event, "mneme-hook", "user-prompt-submit"); code != 0 {
		t.Fatalf("owner's hook with a squatter: exit %d %s", code, out)
	}
	squatIn.Close()
	var conns int
	for lines.Scan() {
		if lines.Text() == "conn" {
			conns++
		}
	}
	squat.Wait()
	if conns != 0 {
		t.Errorf("the squatter on the TCP port got %d connections from the owner's hook", conns)
	}
	var spooled []byte
	files, _ := filepath.Glob(filepath.Join(dataDir, "spool", "*.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		spooled = append(spooled, b...)
	}
	if !bytes.Contains(spooled, []byte("sent while a squatter holds the port")) {
		t.Errorf("the event is not in the owner's spool (%v)", files)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "mneme.sock")); !errors.Is(err, fs.ErrNotExist) {
		// The auto-started worker could not take the port and ended.
		t.Logf("socket after the failed auto-start: %v", err)
	}
}
