package memory_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

func additional(t testing.TB, body []byte) string {
	t.Helper()
	var out struct {
		HookSpecificOutput *struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	if out.HookSpecificOutput == nil {
		return ""
	}
	return out.HookSpecificOutput.AdditionalContext
}

// turn runs one session of one turn through the worker's hooks.
func turn(t *testing.T, srv *testutil.Server, cwd, session, prompt, answer string) {
	t.Helper()
	ev := func(event string, extra map[string]any) map[string]any {
		m := map[string]any{"session_id": session, "cwd": cwd, "transcript_path": "", "hook_event_name": event}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	srv.Hook(t, "session-start", ev("SessionStart", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", ev("UserPromptSubmit", map[string]any{"prompt": prompt, "prompt_id": session + "-p1"}))
	srv.Hook(t, "stop", ev("Stop", map[string]any{"last_assistant_message": answer}))
	srv.Hook(t, "session-end", ev("SessionEnd", map[string]any{"reason": "exit"}))
}

func byText(t *testing.T, ms []models.Memory, part string) models.Memory {
	t.Helper()
	for _, m := range ms {
		if strings.Contains(m.Text, part) {
			return m
		}
	}
	t.Fatalf("no memory says %q among %d", part, len(ms))
	return models.Memory{}
}

// Three sessions through the worker's hooks: the first states decisions
// in a colon-label list and the user's prompt a correction; the second
// leaves a todo; the third replaces one decision and completes the todo.
// The memories are stored after the Stop ack, the replaced one superseded
// by its replacement, the todo done, and the next session's context
// carries what is in force, never the replaced decision; a file a memory
// names that changed since is marked.
func TestTurnsBecomeMemoriesInForce(t *testing.T) {
	srv := testutil.NewServer(t)
	ctx := context.Background()
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "middleware.go"), []byte("package app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := filepath.Base(cwd)

	turn(t, srv, cwd, "mem-s1",
		"Build the webhook server. No, don't use a retry library: always write the backoff loop by hand.",
		"I set up the HTTP server and the storage layer.\n\nKey decisions:\n"+
			"- Use SQLite in WAL mode for the store instead of Bolt, because it handles concurrent readers.\n"+
			"- Serve the API on port 8086.\n"+
			"- Keep request logging in `middleware.go` as JSON lines.\n\nLet me know if you want changes.")
	turn(t, srv, cwd, "mem-s2", "Add the health endpoint",
		"Added `/health` returning 200.\n\nNext steps:\n- Add rate limiting to the webhook client in `ratelimit.go`.")
	turn(t, srv, cwd, "mem-s3", "Port 8086 clashes with InfluxDB here; also add the rate limiting.",
		"Done.\n\nKey decisions:\n- Switched the API port from 8086 to 9090 instead, since 8086 clashes with InfluxDB.\n\n"+
			"Added rate limiting to the webhook client in `ratelimit.go` (a token bucket).")
	testutil.WaitJobs(t, srv.Store, time.Minute)

	all, err := srv.Store.Memories(ctx, models.MemoryFilter{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		t.Logf("m%d %s %s %s (superseded by %d): %s", m.ID, m.Source, m.Kind, m.State, m.SupersededBy, m.Text)
	}
	wal := byText(t, all, "WAL mode")
	old := byText(t, all, "port 8086.")
	repl := byText(t, all, "9090")
	con := byText(t, all, "backoff loop by hand")
	todo := byText(t, all, "rate limiting to the webhook client")
	if wal.State != models.MemoryCurrent || wal.Kind != models.MemoryDecision || wal.Source != models.SourceAnswer {
		t.Errorf("WAL decision: %+v", wal)
	}
	if con.Kind != models.MemoryConstraint || con.Source != models.SourcePrompt || con.State != models.MemoryCurrent {
		t.Errorf("the user's correction: %+v", con)
	}
	if old.State != models.MemorySuperseded || old.SupersededBy != repl.ID || repl.State != models.MemoryCurrent {
		t.Errorf("port 8086 %s by %d, 9090 is #%d %s", old.State, old.SupersededBy, repl.ID, repl.State)
	}
	if todo.Kind != models.MemoryTodo || todo.State != models.MemoryDone {
		t.Errorf("todo: %+v", todo)
	}

	// The file a decision names changes after it was made.
	if err := os.WriteFile(filepath.Join(cwd, "middleware.go"), []byte("package app\n\n// changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	injected := additional(t, srv.Hook(t, "session-start", map[string]any{
		"session_id": "mem-s4", "cwd": cwd, "transcript_path": "", "hook_event_name": "SessionStart", "source": "startup"}))
	t.Logf("injected:\n%s", injected)
	for _, want := range []string{"WAL mode", "backoff loop by hand", "9090", "- m"} {
		if !strings.Contains(injected, want) {
			t.Errorf("the next session's context lacks %q", want)
		}
	}
	if strings.Contains(injected, "port 8086.") || strings.Contains(injected, "todo: Add rate limiting") {
		t.Error("the next session's context gives a superseded decision or a done todo as current")
	}
	for _, l := range strings.Split(injected, "\n") {
		if strings.Contains(l, "middleware.go") && strings.Contains(l, "decision") && !strings.Contains(l, "changed since") {
			t.Errorf("the decision naming a changed file is not marked: %q", l)
		}
	}
	// The file gate gives the decision naming the file.
	gate := additional(t, srv.Hook(t, "pre-tool-use", map[string]any{
		"session_id": "mem-s4", "cwd": cwd, "transcript_path": "", "hook_event_name": "PreToolUse",
		"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(cwd, "middleware.go")}, "tool_use_id": "g1"}))
	if !strings.Contains(gate, "JSON lines") {
		t.Errorf("the file gate for middleware.go lacks its decision: %q", gate)
	}
}
