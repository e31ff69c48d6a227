//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// An installation of mneme for tests that drive it through real Claude
// Code: the binaries built once, a HOME where `mneme install` wrote the
// hooks and the MCP server, a worker on a loopback port, and its read API.
// The e2e tests and the recall benchmark (eval/) share them.

// claudeRunTimeout bounds every Claude Code run of the tests.
const claudeRunTimeout = 60 * time.Second

// --- building mneme -------------------------------------------------------

var mnemeBuild struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// RemoveMnemeBin removes the binaries MnemeBin built, if any. A test
// binary calls it from TestMain once its tests are done.
func RemoveMnemeBin() {
	if mnemeBuild.dir != "" {
		_ = os.RemoveAll(mnemeBuild.dir)
	}
}

// goTool returns the go command that runs these tests: go test puts its
// own first on PATH.
func goTool() string { return "go" }

// MnemeBin builds ./cmd/mneme and ./cmd/mneme-hook side by side once per
// test binary (CGO_ENABLED=0, as released, and laid out as make build does,
// so `mneme install` makes Claude Code run mneme-hook) and returns mneme's
// path.
func MnemeBin(t testing.TB) string {
	t.Helper()
	mnemeBuild.once.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			mnemeBuild.err = err
			return
		}
		dir, err := os.MkdirTemp("", "mneme-e2e-bin")
		if err != nil {
			mnemeBuild.err = err
			return
		}
		mnemeBuild.dir = dir
		out := filepath.Join(dir, "mneme")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goTool(), "build", "-trimpath", "-o", dir+string(filepath.Separator), "./cmd/mneme", "./cmd/mneme-hook")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		start := time.Now()
		if b, err := cmd.CombinedOutput(); err != nil {
			mnemeBuild.err = fmt.Errorf("go build ./cmd/mneme ./cmd/mneme-hook: %v\n%s", err, b)
			return
		}
		mnemeBuild.path = out
		t.Logf("built %s in %s", out, time.Since(start).Round(time.Millisecond))
	})
	if mnemeBuild.err != nil {
		t.Fatalf("build mneme: %v", mnemeBuild.err)
	}
	return mnemeBuild.path
}

// --- one mneme installation ----------------------------------------------

// Mneme is one installation of mneme for a test: a data directory, a port,
// and a HOME whose ~/.claude/settings.json was written by `mneme install`.
type Mneme struct {
	Bin     string
	Home    string
	DataDir string
	Port    int
	// DatabaseURL, when set before Serve, is the PostgreSQL database the
	// worker stores in (team mode: MNEME_DATABASE_URL).
	DatabaseURL string
	// URL is the worker's base URL, http://127.0.0.1:<port>.
	URL string

	worker *exec.Cmd
	done   chan struct{}
	logf   string
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// NewMneme builds mneme, picks a data directory and a free port, and runs
// `mneme install` into a new temporary HOME. No worker is started.
func NewMneme(t testing.TB) *Mneme {
	t.Helper()
	return NewMnemeAt(t, MnemeBin(t))
}

// NewMnemeAt is NewMneme with the mneme binary at bin (and mneme-hook
// beside it), e.g. the ones a package installed, instead of a fresh build.
func NewMnemeAt(t testing.TB, bin string) *Mneme {
	t.Helper()
	m := &Mneme{
		Bin:     bin,
		Home:    NewHome(t),
		DataDir: filepath.Join(t.TempDir(), "mneme-data"),
		Port:    freePort(t),
	}
	m.URL = "http://127.0.0.1:" + strconv.Itoa(m.Port)
	settings := filepath.Join(m.Home, ".claude", "settings.json")
	out, err := m.command("--port", strconv.Itoa(m.Port), "--data-dir", m.DataDir,
		"install", "--settings", settings).CombinedOutput()
	if err != nil {
		t.Fatalf("mneme install: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(settings)
	if err != nil {
		t.Fatalf("mneme install wrote no settings: %v", err)
	}
	// Every hook must run the mneme-hook built beside this binary with this
	// port and data directory, or the sessions would go to a worker on the
	// default port.
	var parsed struct {
		Hooks map[string][]HookMatcher `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &parsed); err != nil {
		t.Fatalf("settings.json: %v\n%s", err, raw)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"} {
		if len(parsed.Hooks[ev]) != 1 || len(parsed.Hooks[ev][0].Hooks) != 1 {
			t.Fatalf("settings.json has no single %s hook:\n%s", ev, raw)
		}
		c := parsed.Hooks[ev][0].Hooks[0].Command
		hookBin := filepath.Join(filepath.Dir(m.Bin), "mneme-hook")
		for _, want := range []string{hookBin + " ", "--port " + strconv.Itoa(m.Port), "--data-dir " + m.DataDir, " " + hookwire.EventSlug(ev)} {
			if !strings.Contains(c, want) {
				t.Fatalf("%s hook command %q lacks %q", ev, c, want)
			}
		}
	}
	return m
}

// command returns an exec.Cmd running mneme with a clean environment whose
// HOME, MNEME_PORT and MNEME_DATA_DIR are the installation's.
func (m *Mneme) command(args ...string) *exec.Cmd {
	cmd := exec.Command(m.Bin, args...)
	cmd.Env = append(CleanEnv(m.Home, ""), "MNEME_PORT="+strconv.Itoa(m.Port), "MNEME_DATA_DIR="+m.DataDir)
	if m.DatabaseURL != "" {
		cmd.Env = append(cmd.Env, "MNEME_DATABASE_URL="+m.DatabaseURL)
	}
	return cmd
}

// Serve starts `mneme serve` on the installation's port and data directory,
// waits for /api/health, and stops it gracefully when the test ends.
func (m *Mneme) Serve(t testing.TB) {
	t.Helper()
	if m.worker != nil {
		t.Fatal("Serve: the worker is already running")
	}
	if err := os.MkdirAll(m.DataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	// The port was free when NewMneme looked; another program (any
	// process's next outgoing connection) may hold it for a moment now: a
	// worker that exits with "in use" is started again, a few times.
	for attempt := 0; ; attempt++ {
		m.logf = filepath.Join(t.TempDir(), "serve.stderr")
		errf, err := os.Create(m.logf)
		if err != nil {
			t.Fatal(err)
		}
		cmd := m.command("serve")
		cmd.Stdout, cmd.Stderr = errf, errf
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			errf.Close()
			t.Fatalf("mneme serve: %v", err)
		}
		errf.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		if m.waitHealthy(30*time.Second, done) {
			m.worker, m.done = cmd, done
			t.Cleanup(func() { m.Stop(t) })
			return
		}
		b, _ := os.ReadFile(m.logf)
		select {
		case <-done:
			if attempt < 10 && strings.Contains(string(b), "is in use") {
				time.Sleep(500 * time.Millisecond)
				continue
			}
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		t.Fatalf("mneme serve did not become healthy on %s:\n%s", m.URL, b)
	}
}

// waitHealthy polls /api/health until it answers 200, d passes, or exited
// (nil: never) closes.
func (m *Mneme) waitHealthy(d time.Duration, exited <-chan struct{}) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if _, err := m.Health(); err == nil {
			return true
		}
		select {
		case <-exited:
			return false
		case <-time.After(25 * time.Millisecond):
		}
	}
	return false
}

// mnemeHealth is the part of GET /api/health the tests read.
type mnemeHealth struct {
	Service string `json:"service"`
	Status  string `json:"status"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// socketClient reaches the worker over its unix socket, as the hook and
// the CLI do: the owner, without credentials.
func (m *Mneme) socketClient(timeout time.Duration) *http.Client {
	sock := hookwire.SocketPath(m.DataDir)
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
	}}
}

// authorize adds the worker's secret (<data>/secret) as the bearer token,
// as a client over TCP must.
func (m *Mneme) authorize(t testing.TB, req *http.Request) {
	t.Helper()
	secret, err := hookwire.ReadSecretFile(filepath.Join(m.DataDir, hookwire.SecretFile))
	if err != nil {
		t.Fatalf("the worker's secret: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
}

// LoginURL is a one-time login link from `mneme open --print`.
func (m *Mneme) LoginURL(t testing.TB) string {
	t.Helper()
	out, err := m.command("open", "--print").Output()
	link := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(link, m.URL+"/login?token=") {
		t.Fatalf("mneme open --print: %v %q", err, link)
	}
	return link
}

// Health asks the worker for /api/health over its socket.
func (m *Mneme) Health() (mnemeHealth, error) {
	var h mnemeHealth
	resp, err := m.socketClient(500 * time.Millisecond).Get("http://mneme/api/health")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("health: %s", resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&h)
	if err == nil && h.Service != "mneme" {
		err = fmt.Errorf("not mneme: %+v", h)
	}
	return h, err
}

// Stop stops the worker started by Serve with SIGTERM and waits for it to
// exit (SIGKILL after 10 s). It is idempotent.
func (m *Mneme) Stop(t testing.TB) {
	t.Helper()
	if m.worker == nil {
		return
	}
	cmd, done := m.worker, m.done
	m.worker = nil
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Errorf("mneme serve did not stop within 10 s of SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		b, _ := os.ReadFile(m.logf)
		t.Errorf("mneme serve exited %d after SIGTERM:\n%s", code, b)
	}
}

// StopPID stops a worker this test did not start (one a hook started) by
// pid with SIGTERM and waits until it is gone.
func StopPID(t testing.TB, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM worker %d: %v", pid, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("worker %d did not stop within 10 s of SIGTERM", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "pid (comm) S ..." — the state follows the last ')'.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// Claude runs Claude Code headless in dir against fake with the
// installation's HOME and fails the test unless it exits 0.
func (m *Mneme) Claude(t testing.TB, fake *FakeAPI, dir, prompt string) ClaudeResult {
	t.Helper()
	res := RunClaude(context.Background(), t, ClaudeOptions{
		Bin: ClaudeBin(t), Home: m.Home, Dir: dir, BaseURL: fake.URL, Prompt: prompt,
		Timeout: claudeRunTimeout,
	})
	// Claude Code reports a hook that failed, printed bad JSON or ran out of
	// time (SessionEnd is cancelled after ~1.5 s) on stderr; mneme's hooks
	// must never do any of that.
	if strings.Contains(strings.ToLower(res.Stderr), "hook") {
		t.Errorf("claude reported a hook problem:\n%s", res.Stderr)
	} else if res.Stderr != "" {
		t.Logf("claude stderr: %s", res.Stderr)
	}
	if res.TimedOut || res.ExitCode != 0 || res.JSON == nil || res.JSON.IsError {
		t.Fatalf("claude failed: exit %d, timed out %v, json %+v\nstdout: %s\nstderr: %s",
			res.ExitCode, res.TimedOut, res.JSON, res.Stdout, res.Stderr)
	}
	return res
}

// --- mneme's read API -----------------------------------------------------

type apiSession struct {
	ID                   int64  `json:"id"`
	ClaudeSessionID      string `json:"claudeSessionId"`
	Project              string `json:"project"`
	Cwd                  string `json:"cwd"`
	Source               string `json:"source"`
	Status               string `json:"status"`
	PromptCounter        int    `json:"promptCounter"`
	EndReason            string `json:"endReason"`
	LastAssistantMessage string `json:"lastAssistantMessage"`
}

type apiPrompt struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

type apiObservation struct {
	ID         int64    `json:"id"`
	ToolUseID  *string  `json:"toolUseId"`
	ToolName   string   `json:"toolName"`
	Kind       string   `json:"kind"`
	Title      string   `json:"title"`
	Input      string   `json:"input"`
	Output     string   `json:"output"`
	Files      []string `json:"files"`
	Success    bool     `json:"success"`
	Importance float64  `json:"importance"`
	ExcludedBy string   `json:"excludedBy"`
}

type apiSessionDetail struct {
	Session      apiSession       `json:"session"`
	Prompts      []apiPrompt      `json:"prompts"`
	Observations []apiObservation `json:"observations"`
	SummaryJobs  []APISummaryJob  `json:"summaryJobs"`
}

// APISummaryJob is one summary queued for a session, as GET
// /api/sessions/:id lists it.
type APISummaryJob struct {
	Kind         string `json:"kind"` // turn, intermediate, final
	PromptNumber int    `json:"promptNumber"`
	Status       string `json:"status"` // pending, running, done, failed
	SummaryID    int64  `json:"summaryId"`
	LastError    string `json:"lastError"`
}

// GetJSON GETs path from the worker, fails the test unless it answers 200,
// decodes the body into v and returns the raw body.
// Turn runs one headless session of Claude Code in dir, its model
// answering with steps, and waits until mneme has settled it; it returns
// the session's id.
func (m *Mneme) Turn(t testing.TB, dir, prompt string, steps ...Step) string {
	t.Helper()
	res := m.Claude(t, NewFakeAPI(t, steps...), dir, prompt)
	m.WaitSettled(t, res.JSON.SessionID)
	return res.JSON.SessionID
}

// Resume runs the next prompt of session sid (claude --resume), its
// model answering with steps, and waits until mneme has settled it.
func (m *Mneme) Resume(t testing.TB, dir, sid, prompt string, steps ...Step) {
	t.Helper()
	res := RunClaude(context.Background(), t, ClaudeOptions{
		Bin: ClaudeBin(t), Home: m.Home, Dir: dir, BaseURL: NewFakeAPI(t, steps...).URL,
		Prompt:  prompt,
		Args:    []string{"--resume", sid, "--allowedTools", DefaultAllowedTools, "--output-format", "json"},
		Timeout: claudeRunTimeout,
	})
	if res.ExitCode != 0 || res.JSON == nil || res.JSON.SessionID != sid {
		t.Fatalf("resume failed: exit %d json %+v\nstderr: %s", res.ExitCode, res.JSON, res.Stderr)
	}
	m.WaitSettled(t, sid)
}

func (m *Mneme) GetJSON(t testing.TB, path string, v any) []byte {
	t.Helper()
	return m.doJSON(t, http.MethodGet, path, nil, v)
}

// PutJSON PUTs body as JSON to path (e.g. a settings patch to
// /api/settings), fails the test unless the worker answers 200, decodes the
// answer into v and returns it raw.
func (m *Mneme) PutJSON(t testing.TB, path string, body, v any) []byte {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return m.doJSON(t, http.MethodPut, path, b, v)
}

// doJSON sends one request with the worker's secret and decodes a 200
// answer into v.
func (m *Mneme) doJSON(t testing.TB, method, path string, body []byte, v any) []byte {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	req, err := http.NewRequest(method, m.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	m.authorize(t, req)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
	return b
}

// Session returns GET /api/sessions/<claude session id>.
func (m *Mneme) Session(t testing.TB, claudeID string) (apiSessionDetail, []byte) {
	t.Helper()
	var d apiSessionDetail
	raw := m.GetJSON(t, "/api/sessions/"+claudeID, &d)
	return d, raw
}

// spoolState reports whether events wait in the hook spool
// (<data-dir>/spool/pending.jsonl or replay-*.jsonl, non-empty) and which
// events the worker rejected from it (rejected*.jsonl).
func (m *Mneme) spoolState() (pending bool, rejected []string) {
	entries, _ := os.ReadDir(filepath.Join(m.DataDir, "spool"))
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || info.Size() == 0 {
			continue
		}
		name := e.Name()
		switch {
		case name == "pending.jsonl" || strings.HasPrefix(name, "replay-") && strings.HasSuffix(name, ".jsonl"):
			pending = true
		case strings.HasPrefix(name, "rejected"):
			rejected = append(rejected, name)
		}
	}
	return pending, rejected
}

// settleTimeout bounds WaitSettled. A hook that missed its budget on a
// loaded machine spools its event, and the worker replays the spool every
// 5 s, so this is that period plus slack.
const settleTimeout = 15 * time.Second

// WaitSettled polls until the session is completed (SessionEnd runs while
// Claude Code exits, so it may land a moment after the process is gone) and
// the hook spool is empty (every event delivered), and returns the session.
// A rejected spooled event fails the test.
func (m *Mneme) WaitSettled(t testing.TB, claudeID string) (apiSessionDetail, []byte) {
	t.Helper()
	deadline := time.Now().Add(settleTimeout)
	spooled := false
	for {
		pending, rejected := m.spoolState()
		if len(rejected) > 0 {
			t.Errorf("the worker rejected spooled events: %v", rejected)
		}
		spooled = spooled || pending
		d, raw := m.Session(t, claudeID)
		done := d.Session.Status == "completed" && !pending
		if done || time.Now().After(deadline) {
			if spooled {
				t.Logf("some hook events went through the spool (worker slow to answer); replayed: %v", !pending)
			}
			if pending {
				t.Errorf("events still spooled %s after the session", settleTimeout)
			}
			return d, raw
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// summarizeTimeout bounds WaitSummarized: a hang guard. The heuristic
// summarizer takes milliseconds a job; a loaded machine may make that
// seconds.
const summarizeTimeout = 60 * time.Second

// WaitSummarized polls until the session's summaries are settled: the
// final summary's job is queued (SessionEnd queues it just after it marks
// the session completed, so call this after WaitSettled) and every summary
// job of the session is done or failed. A failed job fails the test. It
// returns the session's jobs as they ended.
//
// It waits for the jobs, not for summaries: a job can be done with no
// summary stored (a session of one turn keeps its turn summary and no
// final one that would only restate it, models.Summary.Restates).
func (m *Mneme) WaitSummarized(t testing.TB, claudeID string) []APISummaryJob {
	t.Helper()
	deadline := time.Now().Add(summarizeTimeout)
	for {
		d, _ := m.Session(t, claudeID)
		final, open := false, 0
		for _, j := range d.SummaryJobs {
			final = final || j.Kind == "final"
			if j.Status != "done" && j.Status != "failed" {
				open++
			}
		}
		if final && open == 0 {
			for _, j := range d.SummaryJobs {
				if j.Status == "failed" {
					t.Errorf("session %s: the %s summary job of turn %d failed: %s", claudeID, j.Kind, j.PromptNumber, j.LastError)
				}
			}
			return d.SummaryJobs
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s: summaries not settled after %s (final job queued: %v, jobs: %+v)", claudeID, summarizeTimeout, final, d.SummaryJobs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// MnemeContext returns the <mneme-context> block that SessionStart put in a
// model request (tags included), or "" when there is none.
func MnemeContext(body []byte) string {
	text := RequestText(body)
	const marker = "SessionStart hook additional context: "
	i := strings.Index(text, marker)
	if i < 0 {
		return ""
	}
	rest := text[i+len(marker):]
	if !strings.HasPrefix(rest, "<mneme-context>") {
		return ""
	}
	j := strings.Index(rest, "</mneme-context>")
	if j < 0 {
		return ""
	}
	return rest[:j+len("</mneme-context>")]
}
