package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// runHook runs `mneme hook <event>` in-process and checks the contract:
// exit 0, exactly one line of valid JSON on stdout.
func runHook(t *testing.T, port int, dataDir, event string, stdin []byte) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	code := run([]string{"--port", strconv.Itoa(port), "--data-dir", dataDir, "hook", event}, bytes.NewReader(stdin), &out, &errb)
	if code != 0 {
		t.Fatalf("hook %s exited %d: %s", event, code, errb.String())
	}
	checkHookOutput(t, out.Bytes())
	return bytes.TrimSpace(out.Bytes())
}

func checkHookOutput(t *testing.T, out []byte) {
	t.Helper()
	if !json.Valid(out) || bytes.Count(bytes.TrimSpace(out), []byte("\n")) != 0 {
		t.Fatalf("hook output must be one line of JSON, got %q", out)
	}
}

func fixtureSlug(t *testing.T, raw []byte) string {
	t.Helper()
	var head struct {
		Event string `json:"hook_event_name"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		t.Fatal(err)
	}
	return hookwire.EventSlug(head.Event)
}

func TestHookWorkerUp(t *testing.T) {
	t.Setenv("MNEME_NO_AUTOSTART", "1")
	t.Setenv("MNEME_DEBUG", "")
	srv := testutil.NewServer(t)
	dir := srv.DataDir
	for _, raw := range testutil.FixtureEvents(t) {
		out := runHook(t, srv.Port, dir, fixtureSlug(t, raw), raw)
		var o shape.Output
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatal(err)
		}
		if o.HookSpecificOutput == nil && string(out) != hookwire.ContinueJSON {
			t.Errorf("unexpected answer %s", out)
		}
	}
	if c, _ := srv.Store.Counts(t.Context()); c.Sessions != 1 || c.Prompts != 1 || c.Observations != 4 {
		t.Errorf("stored %+v", c)
	}
	// Private text was stripped at the edge already.
	var p models.Prompt
	modelstest.Scan(t, srv.Store, &p, `SELECT * FROM prompts ORDER BY id LIMIT 1`)
	if p.Text != "write notes please" {
		t.Errorf("prompt %q", p.Text)
	}

	// With history, a new session of the project gets the context, exactly
	// as the worker answered it.
	out := runHook(t, srv.Port, dir, "session-start", []byte(`{"session_id":"second","cwd":"/home/dev/projects/notes-app","hook_event_name":"SessionStart","source":"startup"}`))
	var o shape.Output
	json.Unmarshal(out, &o)
	if o.HookSpecificOutput == nil || o.HookSpecificOutput.HookEventName != "SessionStart" || !strings.Contains(o.HookSpecificOutput.AdditionalContext, "<mneme-context>") {
		t.Errorf("session-start answer: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "spool", "pending.jsonl")); err == nil {
		t.Error("nothing is spooled while the worker is up")
	}
}

// The worker is down: events are spooled and the hook answers at once. Once
// a worker runs, the next hook call flushes the spool first, so every event
// is stored exactly once and in order.
func TestHookWorkerDownSpoolsThenFlushes(t *testing.T) {
	t.Setenv("MNEME_NO_AUTOSTART", "1")
	dir := t.TempDir()
	port := freePort(t)
	events := testutil.FixtureEvents(t)
	const down = 5 // SessionStart … Read go to the spool
	for _, raw := range events[:down] {
		start := time.Now()
		out := runHook(t, port, dir, fixtureSlug(t, raw), raw)
		if string(out) != hookwire.ContinueJSON {
			t.Errorf("worker down: answer %s, want %s", out, hookwire.ContinueJSON)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("worker down: the hook took %v", d)
		}
	}
	// The first failed flush set the pending file aside for replay; later
	// events wait in pending.jsonl. Together they hold each event once.
	var spooled []byte
	files, _ := filepath.Glob(filepath.Join(dir, "spool", "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		spooled = append(spooled, b...)
	}
	if n := bytes.Count(spooled, []byte("\n")); n != down {
		t.Fatalf("spool holds %d lines in %v, want %d", n, files, down)
	}
	if bytes.Contains(spooled, []byte("hunter2")) {
		t.Error("private text must be stripped before it is spooled")
	}

	srv := testutil.NewServerAt(t, dir, port)
	for _, raw := range events[down:] {
		runHook(t, port, dir, fixtureSlug(t, raw), raw)
	}
	if (hookwire.Spool{Dir: filepath.Join(dir, "spool")}).Pending() {
		t.Error("the spool must be empty after the flush")
	}
	c, _ := srv.Store.Counts(t.Context())
	if c.Sessions != 1 || c.Prompts != 1 || c.Observations != 4 {
		t.Fatalf("after the flush: %+v", c)
	}
	var ids []string
	modelstest.Scan(t, srv.Store, &ids, `SELECT tool_use_id FROM observations ORDER BY id`)
	if strings.Join(ids, ",") != "toolu_01,toolu_02,toolu_03,toolu_04" {
		t.Errorf("observations stored in the order %v", ids)
	}
	var kinds []string
	modelstest.Scan(t, srv.Store, &kinds, `SELECT kind FROM events WHERE kind != 'summary' ORDER BY id`)
	want := "session_started,prompt,observation,observation,observation,observation,session_completed"
	if strings.Join(kinds, ",") != want {
		t.Errorf("events %v, want %s", kinds, want)
	}
	// The replayed events keep the time they happened, not the replay's.
	var first time.Time
	modelstest.Scan(t, srv.Store, &first, `SELECT created_at FROM observations ORDER BY id LIMIT 1`)
	var flushed time.Time
	modelstest.Scan(t, srv.Store, &flushed, `SELECT created_at FROM observations ORDER BY id DESC LIMIT 1`)
	if !first.Before(flushed) {
		t.Errorf("spooled event time %v is not before the live one %v", first, flushed)
	}

	// Replaying the same events again (a second flush) changes nothing.
	for _, raw := range events {
		runHook(t, port, dir, fixtureSlug(t, raw), raw)
	}
	// (Summaries are written asynchronously by the summarizer: not compared.)
	if again, _ := srv.Store.Counts(t.Context()); again.Sessions != c.Sessions || again.Prompts != c.Prompts || again.Observations != c.Observations {
		t.Errorf("a second delivery changed the counts: %+v → %+v", c, again)
	}
}

// Garbage in, valid JSON out, exit 0 — with the worker up and down.
func TestHookGarbageStdin(t *testing.T) {
	t.Setenv("MNEME_NO_AUTOSTART", "1")
	srv := testutil.NewServer(t)
	inputs := map[string][]byte{
		"empty":     nil,
		"spaces":    []byte("  \n"),
		"garbage":   []byte("this is not JSON {"),
		"binary":    {0xff, 0x00, 0xfe, '{'},
		"array":     []byte(`[1,2,3]`),
		"no id":     []byte(`{"tool_name":"Bash"}`),
		"wrong ids": []byte(`{"session_id":{"a":1}}`),
	}
	for name, in := range inputs {
		for _, dir := range []string{srv.DataDir, t.TempDir()} {
			t.Run(fmt.Sprintf("%s/up-%t", name, dir == srv.DataDir), func(t *testing.T) {
				out := runHook(t, srv.Port, dir, "post-tool-use", in)
				if string(out) != hookwire.ContinueJSON {
					t.Errorf("answer %s", out)
				}
			})
		}
	}
	// An unknown event name is not an error for Claude Code either.
	if out := runHook(t, srv.Port, srv.DataDir, "pre-compact", []byte(`{"session_id":"x"}`)); string(out) != hookwire.ContinueJSON {
		t.Errorf("unknown event: %s", out)
	}
	if c, _ := srv.Store.Counts(t.Context()); c.Sessions != 0 {
		t.Errorf("garbage stored something: %+v", c)
	}
}

// hookRunner is one way to run a hook from the built binaries.
type hookRunner struct {
	name string
	bin  string
	args func(slug string) []string
}

// hookRunners are mneme-hook <event>, what install makes Claude Code run,
// and mneme hook <event>: the same code in the full binary.
func hookRunners(t *testing.T) []hookRunner {
	mneme, _ := buildBinaries(t)
	return []hookRunner{
		{"mneme-hook", hookBinary(t), func(slug string) []string { return []string{slug} }},
		{"mneme", mneme, func(slug string) []string { return []string{"hook", slug} }},
	}
}

// The built binaries behave the same: worker's JSON when up, exit 0 and
// valid JSON on garbage, nothing on stderr unless MNEME_DEBUG is set.
func TestHookBinary(t *testing.T) {
	t.Parallel()
	for _, r := range hookRunners(t) {
		t.Run(r.name, func(t *testing.T) {
			srv := testutil.NewServer(t)
			env := binEnv(srv.DataDir, srv.Port, "MNEME_NO_AUTOSTART=1")
			events := testutil.FixtureEvents(t)
			for _, raw := range events {
				stdout, stderr, code := runBin(t, r.bin, env, raw, r.args(fixtureSlug(t, raw))...)
				if code != 0 || len(stderr) != 0 {
					t.Fatalf("exit %d, stderr %q", code, stderr)
				}
				checkHookOutput(t, stdout)
			}
			if c, _ := srv.Store.Counts(t.Context()); c.Observations != 4 {
				t.Errorf("stored %+v", c)
			}
			stdout, stderr, code := runBin(t, r.bin, env, []byte("garbage"), r.args("post-tool-use")...)
			if code != 0 || string(bytes.TrimSpace(stdout)) != hookwire.ContinueJSON || len(stderr) != 0 {
				t.Errorf("garbage: exit %d stdout %q stderr %q", code, stdout, stderr)
			}
			_, stderr, _ = runBin(t, r.bin, append(env, "MNEME_DEBUG=1"), []byte("garbage"), r.args("post-tool-use")...)
			if !bytes.Contains(stderr, []byte("refused")) {
				t.Errorf("with MNEME_DEBUG the refusal is explained on stderr: %q", stderr)
			}
		})
	}
}

// With no worker running, the built binary's hook starts `mneme serve`
// detached, and the event is stored. mneme starts itself; mneme-hook starts
// the mneme beside it.
func TestHookAutoStartsWorker(t *testing.T) {
	for _, r := range hookRunners(t) {
		t.Run(r.name, func(t *testing.T) { testAutoStart(t, r) })
	}
}

func testAutoStart(t *testing.T, r hookRunner) {
	dir := t.TempDir()
	port := freePort(t)
	env := binEnv(dir, port)
	t.Cleanup(func() {
		if pid := healthPID(dir); pid > 0 {
			terminate(pid)
			for i := 0; i < 100 && healthPID(dir) > 0; i++ {
				time.Sleep(50 * time.Millisecond)
			}
		}
	})
	start := []byte(`{"session_id":"autostart","cwd":"/tmp/auto-project","hook_event_name":"SessionStart","source":"startup"}`)
	stdout, stderr, code := runBin(t, r.bin, env, start, r.args("session-start")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkHookOutput(t, stdout)
	pid := healthPID(dir)
	if pid <= 0 {
		t.Fatalf("no worker answers on the socket of %s after the hook", dir)
	}
	if pid == os.Getpid() {
		t.Fatal("the worker must be a separate process")
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && filepath.Base(exe) != "mneme" {
		t.Errorf("the worker runs %s, want mneme", exe)
	}
	// The worker is detached: its own session, not the hook's.
	if sid := procSession(t, pid); sid != pid {
		t.Errorf("worker pid %d runs in session %d, want its own", pid, sid)
	}
	secret, err := hookwire.ReadSecretFile(filepath.Join(dir, hookwire.SecretFile))
	if err != nil {
		t.Fatalf("the worker made no usable secret file: %v", err)
	}
	srv := testutil.Server{URL: "http://127.0.0.1:" + strconv.Itoa(port), Port: port, Secret: secret}
	var page struct {
		Items []struct {
			ClaudeSessionID string `json:"claudeSessionId"`
			Project         string `json:"project"`
		} `json:"items"`
	}
	srv.GetJSON(t, "/api/sessions", &page)
	if len(page.Items) != 1 || page.Items[0].ClaudeSessionID != "autostart" || page.Items[0].Project != "auto-project" {
		t.Errorf("sessions: %+v", page.Items)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "mneme.log")); err != nil {
		t.Errorf("the detached worker logs to the data dir: %v", err)
	}
	// A second hook reuses the running worker.
	runBin(t, r.bin, env, []byte(`{"session_id":"autostart","prompt_id":"p","prompt":"hello"}`), r.args("user-prompt-submit")...)
	if healthPID(dir) != pid {
		t.Error("a second hook must not start another worker")
	}
}

// procSession reads a process's session id from /proc/<pid>/stat.
func procSession(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	// pid (comm) state ppid pgrp session …; comm may contain spaces.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	sid, _ := strconv.Atoi(fields[3])
	return sid
}
