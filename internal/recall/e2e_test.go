package recall_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/internal/testutil"
)

type hookOut struct {
	HookSpecificOutput *struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func additional(t testing.TB, body []byte) string {
	t.Helper()
	var out hookOut
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	if out.HookSpecificOutput == nil {
		return ""
	}
	return out.HookSpecificOutput.AdditionalContext
}

func ev(session, event string, extra map[string]any) map[string]any {
	m := map[string]any{"session_id": session, "cwd": "/tmp/mneme-test/app", "transcript_path": "", "hook_event_name": event, "project": "app"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// TestInjectedContextIsNotReingested runs two sessions through the real
// worker: the second receives context at SessionStart, then feeds it back in
// its prompt, a tool call and its last answer, as Claude would when it
// quotes it. None of it may be stored again.
func TestInjectedContextIsNotReingested(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.Hook(t, "session-start", ev("s1", "SessionStart", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", ev("s1", "UserPromptSubmit", map[string]any{"prompt": "make the parser tests pass", "prompt_id": "p1"}))
	srv.Hook(t, "post-tool-use-failure", ev("s1", "PostToolUseFailure", map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./parser/"}, "tool_use_id": "t1", "error": "FAIL parser 2 tests"}))
	srv.Hook(t, "stop", ev("s1", "Stop", map[string]any{"last_assistant_message": "Two parser tests fail on empty input."}))
	srv.Hook(t, "session-end", ev("s1", "SessionEnd", map[string]any{"reason": "exit"}))

	injected := additional(t, srv.Hook(t, "session-start", ev("s2", "SessionStart", map[string]any{"source": "startup"})))
	if !strings.HasPrefix(injected, recall.OpenTag) || !strings.Contains(injected, "go test ./parser/") {
		t.Fatalf("session 2 got no useful context: %q", injected)
	}
	t.Logf("injected:\n%s", injected)

	srv.Hook(t, "user-prompt-submit", ev("s2", "UserPromptSubmit", map[string]any{"prompt": "Recap: " + injected + "\nnow fix it", "prompt_id": "p2"}))
	srv.Hook(t, "post-tool-use", ev("s2", "PostToolUse", map[string]any{
		"tool_name": "Write", "tool_input": map[string]any{"file_path": "/tmp/mneme-test/app/NOTES.md", "content": "notes\n" + injected},
		"tool_response": map[string]any{"type": "create"}, "tool_use_id": "t2"}))
	srv.Hook(t, "stop", ev("s2", "Stop", map[string]any{"last_assistant_message": injected + "\nDone."}))

	ctx := context.Background()
	s2, err := srv.Store.SessionByClaudeID(ctx, "s2")
	if err != nil {
		t.Fatal(err)
	}
	prompts, _ := srv.Store.PromptsOfSession(ctx, s2.ID)
	obs, _ := srv.Store.ObservationsOfSession(ctx, s2.ID)
	if len(prompts) != 1 || len(obs) != 1 {
		t.Fatalf("stored %d prompts, %d observations", len(prompts), len(obs))
	}
	if p := prompts[0].Text; !strings.HasPrefix(p, "Recap:") || !strings.HasSuffix(p, "now fix it") {
		t.Fatalf("prompt stored as %q", prompts[0].Text)
	}
	for name, text := range map[string]string{
		"prompt": prompts[0].Text, "observation output": obs[0].Output, "last answer": s2.LastAssistantMessage,
	} {
		if strings.Contains(text, "mneme-context") || strings.Contains(text, "go test ./parser/") {
			t.Errorf("%s re-ingested injected context: %q", name, text)
		}
	}

	// And the third session's context does not contain the second's echo.
	third := additional(t, srv.Hook(t, "session-start", ev("s3", "SessionStart", map[string]any{"source": "startup"})))
	if strings.Count(third, recall.OpenTag) != 1 {
		t.Fatalf("nested context blocks:\n%s", third)
	}
}

// TestMaxInjectTokensChangesSessionStart: the setting applies at once to
// what the SessionStart hook returns (what the e2e test drives through the
// settings page).
func TestMaxInjectTokensChangesSessionStart(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for i, s := range []string{"a", "b", "c", "d"} {
		srv.Hook(t, "user-prompt-submit", ev(s, "UserPromptSubmit", map[string]any{"prompt": strings.Repeat("refactor the storage layer carefully ", 3), "prompt_id": s}))
		for k := 0; k < 10; k++ {
			srv.Hook(t, "post-tool-use", ev(s, "PostToolUse", map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": "go build ./storage/" + strings.Repeat("x", i+k)},
				"tool_response": map[string]any{"stdout": "ok"}, "tool_use_id": s + string(rune('a'+k))}))
		}
	}
	big := additional(t, srv.Hook(t, "session-start", ev("n1", "SessionStart", map[string]any{"source": "startup"})))
	st := srv.Capture.Policy().Settings
	st.Injection.MaxInjectTokens = 150
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
	srv.UseSettings(t, st)
	small := additional(t, srv.Hook(t, "session-start", ev("n2", "SessionStart", map[string]any{"source": "startup"})))
	t.Logf("2000 tokens: %d bytes; 150 tokens: %d bytes", len(big), len(small))
	if len(small) == 0 || len(small) > 600 || len(small) >= len(big) || recall.EstimateTokens(small) > 150 {
		t.Fatalf("max_inject_tokens 150 gave %d bytes (big %d)", len(small), len(big))
	}
}
