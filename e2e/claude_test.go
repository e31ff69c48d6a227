//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hookEvents are the lifecycle events mneme wires up.
var hookEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"}

// hookRecord is one line of the hook log written by the logging hook.
type hookRecord map[string]any

func (h hookRecord) str(k string) string { s, _ := h[k].(string); return s }

// readHookLog parses the JSON lines appended by the logging hook.
func readHookLog(t *testing.T, path string) []hookRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("hook log: %v", err)
	}
	defer f.Close()
	var out []hookRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var rec hookRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("hook log line is not JSON: %v: %q", err, line)
			continue
		}
		out = append(out, rec)
	}
	return out
}

// writeScript writes an executable shell script and returns its path.
func writeScript(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestClaudeTalksToFake(t *testing.T) {
	bin := ClaudeBin(t)
	home := NewHome(t)
	project := NewProject(t, "notes-app")
	work := t.TempDir()
	hookLog := filepath.Join(work, "hooks.jsonl")
	logHook := writeScript(t, filepath.Join(work, "loghook.sh"),
		"cat >> "+ShellQuote(hookLog)+"\necho >> "+ShellQuote(hookLog)+"\n")
	WriteSettings(t, home, map[string]any{
		"hooks": CommandHooks(func(string) string { return logHook }, hookEvents...),
	})

	notes := filepath.Join(project, "notes.md")
	fake := NewFakeAPI(t,
		ToolUse("Bash", map[string]any{"command": "echo hello-from-fake", "description": "say hello"}),
		ToolUse("Bash", map[string]any{"command": "ls /nonexistent-dir", "description": "list a missing dir"}),
		ToolUse("Write", map[string]any{"file_path": notes, "content": "# Notes\nstatus: draft\n"}),
		ToolUse("Edit", map[string]any{"file_path": notes, "old_string": "draft", "new_string": "final"}),
		Text("All four steps are finished."),
	)

	res := RunClaude(context.Background(), t, ClaudeOptions{
		Bin: bin, Home: home, Dir: project, BaseURL: fake.URL,
		Prompt: "write notes please",
	})
	t.Logf("stdout: %s", res.Stdout)
	t.Logf("stderr: %s", res.Stderr)
	for _, p := range fake.Paths() {
		t.Logf("request: %s", p)
	}
	if res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("claude failed: exit %d, timed out %v", res.ExitCode, res.TimedOut)
	}
	if res.JSON == nil || res.JSON.IsError || !strings.Contains(res.JSON.Result, "All four steps are finished.") {
		t.Errorf("unexpected result JSON: %+v", res.JSON)
	}

	b, err := os.ReadFile(notes)
	if err != nil {
		t.Fatalf("Write did not create the file: %v", err)
	}
	if got, want := string(b), "# Notes\nstatus: final\n"; got != want {
		t.Errorf("notes.md = %q, want %q (Edit not applied?)", got, want)
	}

	if n := len(fake.ToolRequests()); n < 5 {
		t.Errorf("fake got %d tool-carrying requests, want at least 5", n)
	}

	if dir := os.Getenv(DumpEnv); dir != "" {
		if b, err := os.ReadFile(hookLog); err == nil && os.MkdirAll(dir, 0o755) == nil {
			_ = os.WriteFile(filepath.Join(dir, t.Name()+".hooks.jsonl"), b, 0o644)
		}
	}
	recs := readHookLog(t, hookLog)
	if len(recs) == 0 {
		t.Fatalf("no hook fired")
	}
	seen := map[string]int{}
	var failure hookRecord
	for _, r := range recs {
		ev := r.str("hook_event_name")
		seen[ev]++
		if ev == "PostToolUseFailure" && r.str("tool_name") == "Bash" {
			failure = r
		}
		if r.str("session_id") == "" {
			t.Errorf("%s hook without session_id: %v", ev, r)
		}
	}
	t.Logf("hook events: %v", seen)
	for _, ev := range hookEvents {
		if seen[ev] == 0 {
			t.Errorf("no %s hook fired", ev)
		}
	}
	if failure == nil {
		t.Fatalf("no PostToolUseFailure for the failing ls")
	}
	in, _ := failure["tool_input"].(map[string]any)
	if cmd, _ := in["command"].(string); cmd != "ls /nonexistent-dir" {
		t.Errorf("PostToolUseFailure tool_input.command = %q", cmd)
	}
	if !strings.Contains(failure.str("error"), "nonexistent-dir") {
		t.Errorf("PostToolUseFailure error = %q", failure.str("error"))
	}
	sid := recs[0].str("session_id")
	for _, r := range fake.MessageRequests() {
		if r.SessionID != sid {
			t.Errorf("request #%d has session %q, hooks have %q", r.Seq, r.SessionID, sid)
		}
	}
	if res.JSON != nil && res.JSON.SessionID != sid {
		t.Errorf("result session_id %q, hooks have %q", res.JSON.SessionID, sid)
	}
	if seen["PostToolUse"] != 3 {
		t.Errorf("PostToolUse fired %d times, want 3 (echo, Write, Edit)", seen["PostToolUse"])
	}
}

func TestClaudeSessionStartContextReachesModel(t *testing.T) {
	bin := ClaudeBin(t)
	home := NewHome(t)
	project := NewProject(t, "ctx-app")
	work := t.TempDir()
	ssOut := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"<mneme-context>MARKER-123</mneme-context>"}}`
	upsOut := `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"related memory: UPS-MARKER-456"}}`
	hooks := map[string]string{
		"SessionStart": writeScript(t, filepath.Join(work, "sessionstart.sh"),
			"cat > /dev/null\nprintf '%s\\n' "+ShellQuote(ssOut)+"\n"),
		"UserPromptSubmit": writeScript(t, filepath.Join(work, "userpromptsubmit.sh"),
			"cat > /dev/null\nprintf '%s\\n' "+ShellQuote(upsOut)+"\n"),
	}
	WriteSettings(t, home, map[string]any{
		"hooks": CommandHooks(func(ev string) string { return hooks[ev] }, "SessionStart", "UserPromptSubmit"),
	})
	fake := NewFakeAPI(t, Text("hi"))

	res := RunClaude(context.Background(), t, ClaudeOptions{
		Bin: bin, Home: home, Dir: project, BaseURL: fake.URL, Prompt: "hello",
	})
	if res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("claude failed: exit %d, timed out %v\nstdout: %s\nstderr: %s", res.ExitCode, res.TimedOut, res.Stdout, res.Stderr)
	}
	first := fake.FirstToolRequestBody()
	if first == nil {
		t.Fatalf("fake got no tool-carrying request; paths: %v", fake.Paths())
	}
	if !strings.Contains(string(first), "MARKER-123") {
		t.Fatalf("MARKER-123 not in the first model request:\n%s", first)
	}
	text := RequestText(first)
	if !strings.Contains(text, "SessionStart hook additional context: <mneme-context>MARKER-123</mneme-context>") {
		t.Errorf("SessionStart context not rendered as expected in:\n%s", text)
	}
	if !strings.Contains(text, "UserPromptSubmit hook additional context: related memory: UPS-MARKER-456") {
		t.Errorf("UserPromptSubmit context not rendered as expected in:\n%s", text)
	}
}

func TestClaudeRunTimeoutKillsEverything(t *testing.T) {
	bin := ClaudeBin(t)
	home := NewHome(t)
	project := NewProject(t, "slow-app")
	marker := "4242.4242"
	fake := NewFakeAPI(t, ToolUse("Bash", map[string]any{"command": "echo waiting && sleep " + marker, "timeout": 600000}), Text("never"))

	// The run is cut once the Bash tool's sleep is running, however long
	// Claude Code took to get there (a fixed timeout raced its start on a
	// loaded machine); the generous Timeout only bounds a run gone wrong.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cut atomic.Int64
	go func() {
		for ctx.Err() == nil {
			if len(sleepers("sleep "+marker)) > 0 {
				cut.Store(time.Now().UnixNano())
				cancel()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	res := RunClaude(ctx, t, ClaudeOptions{
		Bin: bin, Home: home, Dir: project, BaseURL: fake.URL, Prompt: "sleep", Timeout: 3 * time.Minute,
	})
	if cut.Load() == 0 {
		t.Fatalf("the Bash tool's sleep never started (exit %d, timed out %v)\nstdout: %s\nstderr: %s", res.ExitCode, res.TimedOut, res.Stdout, res.Stderr)
	}
	if !res.TimedOut || res.ExitCode == 0 {
		t.Fatalf("want a cut run, got exit %d timed out %v\nstdout: %s", res.ExitCode, res.TimedOut, res.Stdout)
	}
	if took := time.Since(time.Unix(0, cut.Load())); took > 30*time.Second {
		t.Errorf("RunClaude took %s to return after the run was cut", took)
	}
	if len(fake.ToolRequests()) == 0 {
		t.Fatalf("the run never reached the fake")
	}
	// The Bash tool's sleep must die with the group.
	deadline := time.Now().Add(30 * time.Second)
	for {
		pids := processesMatching(t, "sleep "+marker)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Bash tool process survived the timeout: pids %v", pids)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// processesMatching returns the pids whose command line contains s.
func processesMatching(t *testing.T, s string) []string {
	t.Helper()
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return sleepers(s)
}

// sleepers returns the pids whose command line contains s (none without
// /proc); safe to call from any goroutine.
func sleepers(s string) []string {
	entries, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func TestClaudeLeftoversKilledAtTestEnd(t *testing.T) {
	bin := ClaudeBin(t)
	marker := "4343.4343"
	t.Run("run", func(t *testing.T) {
		home := NewHome(t)
		project := NewProject(t, "bg-app")
		work := t.TempDir()
		// Like a hook that starts a worker: detached, in its own session.
		hook := writeScript(t, filepath.Join(work, "start-worker.sh"),
			"cat > /dev/null\nsetsid sleep "+marker+" </dev/null >/dev/null 2>&1 &\n")
		WriteSettings(t, home, map[string]any{"hooks": CommandHooks(func(string) string { return hook }, "SessionStart")})
		fake := NewFakeAPI(t, Text("ok"))
		res := RunClaude(context.Background(), t, ClaudeOptions{Bin: bin, Home: home, Dir: project, BaseURL: fake.URL, Prompt: "hi"})
		if res.ExitCode != 0 {
			t.Fatalf("claude failed: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		if len(processesMatching(t, "sleep "+marker)) == 0 {
			t.Fatalf("the hook's background process is not running after claude exited")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for len(processesMatching(t, "sleep "+marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's background process outlived the test")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
