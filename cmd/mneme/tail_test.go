package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	r3sse "github.com/r3labs/sse/v2"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// runTail runs `mneme tail args…` in-process; it returns a channel closed
// when the command returns, and its stdout and stderr.
func runTail(t *testing.T, args ...string) (<-chan int, *testutil.SyncBuffer, *testutil.SyncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	signals := func() (context.Context, context.CancelFunc) { return ctx, cancel }
	var stdout, stderr testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runWith(&globals{signals: signals}, append([]string{"tail"}, args...), strings.NewReader(""), &stdout, &stderr)
		close(done) // a second receive (the cleanup) returns at once
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Error("mneme tail did not stop when cancelled")
		}
	})
	return done, &stdout, &stderr
}

func waitTail(t *testing.T, done <-chan int, stdout, stderr *testutil.SyncBuffer) {
	t.Helper()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("mneme tail exited %d: %s", code, stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("mneme tail did not finish; stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

func waitSubscribed(t *testing.T, srv *testutil.Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); srv.Broker.Clients() != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d stream clients, want %d", srv.Broker.Clients(), n)
		}
	}
}

func tailHook(t *testing.T, srv *testutil.Server, slug, session, project string, extra map[string]any) {
	t.Helper()
	m := map[string]any{"session_id": session, "transcript_path": "", "cwd": "/tmp/mneme-tail/" + project}
	for k, v := range extra {
		m[k] = v
	}
	srv.Hook(t, slug, m)
}

func TestTailPrintsEvents(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	done, stdout, stderr := runTail(t, "--port", strconv.Itoa(srv.Port), "--data-dir", srv.DataDir, "--project", "alpha", "--count", "4")
	waitSubscribed(t, srv, 1)
	tailHook(t, srv, "user-prompt-submit", "tb", "beta", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "beta is filtered out", "prompt_id": "b1"})
	tailHook(t, srv, "user-prompt-submit", "ta", "alpha", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "run the tests\nplease", "prompt_id": "a1"})
	tailHook(t, srv, "post-tool-use", "ta", "alpha", map[string]any{"hook_event_name": "PostToolUse", "prompt_id": "a1",
		"tool_name": "Bash", "tool_use_id": "t1", "tool_input": map[string]any{"command": "go vet ./..."},
		"tool_response": map[string]any{"stdout": "", "stderr": ""}})
	tailHook(t, srv, "post-tool-use-failure", "ta", "alpha", map[string]any{"hook_event_name": "PostToolUseFailure", "prompt_id": "a1",
		"tool_name": "Bash", "tool_use_id": "t2", "tool_input": map[string]any{"command": "printf '\\x1b]0;pwned\\x07'"},
		"error": "Exit code 1\n\x1b[2J\x1b]0;pwned\x07", "is_interrupt": false})
	waitTail(t, done, stdout, stderr)
	out := stdout.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 lines, got:\n%s", out)
	}
	for i, want := range []string{
		"session_started   alpha            session started",
		"prompt            alpha            #1 run the tests please",
		"observation       alpha            ✓ Ran `go vet ./...`",
		"observation       alpha            ✗ ",
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want it to contain %q", i, lines[i], want)
		}
		if _, err := time.Parse("15:04:05", lines[i][:8]); err != nil {
			t.Errorf("line %d does not start with a time: %q", i, lines[i])
		}
	}
	if strings.Contains(out, "beta") || strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("output leaks another project or control characters:\n%q", out)
	}
}

func TestTailReconnectsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.NewServerIn(t, dir)
	done, stdout, stderr := runTail(t, "--port", strconv.Itoa(srv.Port), "--data-dir", srv.DataDir, "--count", "4")
	waitSubscribed(t, srv, 1)
	prompt := func(s *testutil.Server, id, text string) {
		tailHook(t, s, "user-prompt-submit", "tr", "alpha", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": text, "prompt_id": id})
	}
	prompt(srv, "r1", "before the restart")
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stdout.String(), "before the restart"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("first prompt not printed: %s", stdout)
		}
	}
	if err := srv.Shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	srv2 := testutil.NewServerAt(t, dir, srv.Port)
	prompt(srv2, "r2", "while tail was away") // replayed on reconnect
	waitSubscribed(t, srv2, 1)
	prompt(srv2, "r3", "after the reconnect")
	waitTail(t, done, stdout, stderr)
	out := stdout.String()
	a, b, c := strings.Index(out, "before the restart"), strings.Index(out, "while tail was away"), strings.Index(out, "after the reconnect")
	if a < 0 || b < a || c < b || strings.Count(out, "\n") != 4 {
		t.Errorf("output across the restart:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "reconnect") {
		t.Errorf("stderr does not tell of the reconnection: %q", stderr)
	}
}

func TestTailLineFormat(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	tl := &tailer{out: &out, color: true, cancel: func() {}}
	for _, ev := range []struct{ kind, data string }{
		{"observation", `{"project":"p","title":"Ran x","success":false,"createdAt":"2026-11-21T10:00:00Z"}`},
		{"summary", `{"project":"p","kind":"turn","completed":"Fixed the \u001b[31mbug"}`},
		{"settings_changed", `{}`},
		{"", ``}, // a keepalive comment seen through r3labs: skipped
		{"import_progress", `{"running":true,"progress":{"files":3}}`}, // running: skipped
		{"import_progress", `{"running":false,"stats":{"sessions":2,"prompts":3,"observations":8}}`},
	} {
		tl.print(&r3sse.Event{ID: []byte("1"), Event: []byte(ev.kind), Data: []byte(ev.data)})
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("lines: %q", lines)
	}
	if !strings.Contains(lines[3], "import finished: 2 sessions, 3 prompts, 8 tool calls") {
		t.Errorf("import line %q", lines[3])
	}
	if !strings.Contains(lines[0], ansiRed+"observation") || !strings.Contains(lines[0], "✗ Ran x") {
		t.Errorf("failure line %q", lines[0])
	}
	if !strings.Contains(lines[1], "turn summary: Fixed the [31mbug") {
		t.Errorf("summary line %q (escape must be dropped)", lines[1])
	}
	if !strings.Contains(lines[2], ansiYellow+"settings_changed") {
		t.Errorf("settings line %q", lines[2])
	}
	if got := clip(strings.Repeat("é", 10), 5); got != "éééé…" {
		t.Errorf("clip = %q", got)
	}
}
