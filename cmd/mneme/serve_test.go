package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
)

func TestServePortTakenByMneme(t *testing.T) {
	t.Parallel()
	bin, _ := buildBinaries(t)
	srv := testutil.NewServer(t)
	stdout, stderr, code := runBin(t, bin, binEnv(srv.DataDir, srv.Port), nil, "serve", "--port", strconv.Itoa(srv.Port))
	if code != 0 {
		t.Fatalf("exit %d, want 0: %s", code, stderr)
	}
	want := "mneme is already running on port " + strconv.Itoa(srv.Port)
	if !strings.Contains(string(stdout), want) {
		t.Errorf("stdout %q, want it to say %q", stdout, want)
	}
}

func TestServePortTakenBySomethingElse(t *testing.T) {
	t.Parallel()
	bin, _ := buildBinaries(t)
	// A TCP server that answers anything with a line of non-HTTP text.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(c).ReadString('\n')
			c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	_, stderr, code := runBin(t, bin, binEnv(t.TempDir(), port), nil, "serve")
	if code == 0 {
		t.Fatal("serve must fail when another program holds the port")
	}
	for _, want := range []string{strconv.Itoa(port), "--port", "MNEME_PORT"} {
		if !bytes.Contains(stderr, []byte(want)) {
			t.Errorf("the message must name %q: %s", want, stderr)
		}
	}
}

// In-process: serve refuses a non-loopback address without a token.
func TestServeRefusesExposedBindWithoutToken(t *testing.T) {
	t.Setenv("MNEME_TOKEN", "")
	var out, errb bytes.Buffer
	code := run([]string{"--data-dir", t.TempDir(), "--port", strconv.Itoa(freePort(t)), "serve", "--host", "0.0.0.0"}, nil, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "MNEME_TOKEN") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestServeDatabaseURL: serve with a database URL (--database-url,
// MNEME_DATABASE_URL) stores in that PostgreSQL database, says so on
// /api/health, and logs the URL without its password.
func TestServeDatabaseURL(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	// The test cluster trusts loopback connections: any password does.
	u.User = url.UserPassword("postgres", "hunter2-db-password")
	dir := t.TempDir()
	addr, stop, stderr := serveInProcess(t, serveOptions{DataDir: dir, DatabaseURL: u.String()})
	secret, err := hookwire.Secret(dir)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/health", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var h api.Health
	err = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if err != nil || h.Backend != "postgres" || h.Database != u.Host+u.Path {
		t.Errorf("health: backend %q database %q (%v), want postgres %s%s", h.Backend, h.Database, err, u.Host, u.Path)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	logs := stderr.String()
	if strings.Contains(logs, "hunter2") {
		t.Errorf("the log shows the database password: %s", logs)
	}
	// The worker's logger redacts the credentials once more:
	// models.RedactURL's xxxxx becomes a [REDACTED:…].
	if !strings.Contains(logs, "postgres://postgres:") || !strings.Contains(logs, "@"+u.Host+u.Path) {
		t.Errorf("the log does not say which database: %s", logs)
	}
}

// A secret in an event never reaches the worker's log, whatever part logs
// it: here serve itself, which logs a spooled event it sets aside, with
// the event name in the reason. Both the log file and stderr are read.
func TestServeLogHoldsNoSecret(t *testing.T) {
	dir := t.TempDir()
	const secret = "AKIAZ7QWERTYUIOP1234"
	sp := hookwire.Spool{Dir: filepath.Join(dir, "spool")}
	// An event name no mneme knows: the worker refuses it for good, and
	// says so in the log.
	line, _ := json.Marshal(hookwire.SpoolLine{V: hookwire.SpoolVersion, Event: "post-" + secret, SpooledAt: time.Now(),
		Body: json.RawMessage(`{"session_id":"s-log","hook_event_name":"PostToolUse","cwd":"/tmp/x"}`)})
	if err := os.MkdirAll(sp.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sp.Dir, "pending.jsonl"), append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stop, stderr := serveInProcess(t, serveOptions{DataDir: dir})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(dir, "logs", "mneme.log"))
	if err != nil {
		t.Fatal(err)
	}
	for name, logs := range map[string]string{"stderr": stderr.String(), "mneme.log": string(file)} {
		if !strings.Contains(logs, "spooled event set aside") {
			t.Errorf("%s does not say the event was set aside: %s", name, logs)
		}
		if strings.Contains(logs, "QWERTYUIOP1234") {
			t.Errorf("%s shows the secret: %s", name, logs)
		}
		if !strings.Contains(logs, "[REDACTED:aws_access_key]") {
			t.Errorf("%s: the secret is not shown redacted: %s", name, logs)
		}
	}
}

// serveInProcess runs serve with o on loopback and a free port until stop,
// which returns what serve returned; read stderr after stop.
func serveInProcess(t *testing.T, o serveOptions) (addr string, stop func() error, stderr *bytes.Buffer) {
	t.Helper()
	stderr = new(bytes.Buffer)
	o.Host, o.Port, o.Stdout, o.Stderr = "127.0.0.1", freePort(t), new(bytes.Buffer), stderr
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ready := make(chan string, 1)
	done := make(chan error, 1)
	o.Ready = func(addr string) { ready <- addr }
	go func() {
		_, err := serve(ctx, o)
		done <- err
	}()
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve: %v: %s", err, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not start in 60 s")
	}
	return addr, func() error { cancel(); return <-done }, stderr
}
