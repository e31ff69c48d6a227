package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// liveHook is a hook payload of session fg-live.
func liveHook(event string, extra map[string]any) map[string]any {
	return apiHook(event, "fg-live", "fglive", extra)
}

// toolCall is a Bash PostToolUse of prompt promptID.
func toolCall(promptID, toolUseID string) map[string]any {
	return liveHook("PostToolUse", map[string]any{
		"prompt_id": promptID, "tool_name": "Bash", "tool_use_id": toolUseID,
		"tool_input":    map[string]any{"command": "echo " + toolUseID},
		"tool_response": map[string]any{"stdout": toolUseID, "stderr": "", "interrupted": false},
	})
}

// storedSession is fg-live's row, with how many prompts and observations
// it holds.
func storedSession(t *testing.T, srv *testutil.Server) (s *models.Session, prompts, observations int64) {
	t.Helper()
	s = sessionRow(t, srv, "fg-live")
	modelstest.Row(t, srv.Store, []any{&prompts}, `SELECT COUNT(*) FROM prompts WHERE session_id = ?`, s.ID)
	modelstest.Row(t, srv.Store, []any{&observations}, `SELECT COUNT(*) FROM observations WHERE session_id = ?`, s.ID)
	return s, prompts, observations
}

// Forgetting a live session forgets what was recorded, not the session's
// future: its next event records it again, as a new row (issue 21, point
// 1: the prompt after the forget answered 500, "sql: no rows in result
// set", from the cached session row).
func TestForgetLiveSessionGoesOnRecording(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.Hook(t, "session-start", liveHook("SessionStart", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", liveHook("UserPromptSubmit", map[string]any{"prompt": "first", "prompt_id": "p1"}))
	srv.Hook(t, "post-tool-use", toolCall("p1", "t1"))
	before, _, _ := storedSession(t, srv)

	deleteJSON(t, srv, "/api/sessions/fg-live")
	srv.Hook(t, "user-prompt-submit", liveHook("UserPromptSubmit", map[string]any{"prompt": "second", "prompt_id": "p2"}))
	srv.Hook(t, "post-tool-use", toolCall("p2", "t2"))
	srv.Hook(t, "stop", liveHook("Stop", map[string]any{"prompt_id": "p2", "stop_hook_active": false, "last_assistant_message": "done"}))
	after, prompts, observations := storedSession(t, srv)
	if after.ID == before.ID || prompts != 1 || observations != 1 || after.PromptCounter != 1 {
		t.Fatalf("after the forget: session %d (was %d), %d prompts, %d observations, counter %d; want a new row with 1, 1, 1",
			after.ID, before.ID, prompts, observations, after.PromptCounter)
	}
	if after.LastAssistantMessage != "done" {
		t.Errorf("the Stop after the forget stored %q", after.LastAssistantMessage)
	}
	if kinds := eventKinds(t, srv, after.ID); len(kinds) == 0 || kinds[0] != models.EventSessionStarted {
		t.Errorf("the new row is announced as a new session: events %v", kinds)
	}
	// Nothing of the forgotten row came back.
	var old int64
	modelstest.Row(t, srv.Store, []any{&old}, `SELECT COUNT(*) FROM prompts WHERE text = 'first'`)
	if old != 0 {
		t.Errorf("the forgotten prompt is back")
	}
}

// The session cache is not trusted blindly: a session deleted behind this
// worker's back (on PostgreSQL, a forget on another replica, whose
// forgotten event has not arrived) is recorded again by whichever event
// comes next, each event kind on its own path (a cached turn, an uncached
// one, a prompt, a Stop, a SessionEnd, a SessionStart).
func TestCaptureRecreatesSessionDeletedBehindItsBack(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.Hook(t, "session-start", liveHook("SessionStart", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", liveHook("UserPromptSubmit", map[string]any{"prompt": "first", "prompt_id": "p1"}))
	srv.Hook(t, "post-tool-use", toolCall("p1", "t0")) // caches the turn of p1
	steps := []struct {
		name, slug string
		payload    map[string]any
		check      func(s *models.Session, prompts, observations int64) bool
	}{
		{"a tool call of a cached turn", "post-tool-use", toolCall("p1", "t1"),
			func(s *models.Session, p, o int64) bool { return o == 1 }},
		{"a tool call of a turn not cached", "post-tool-use", toolCall("p-unknown", "t2"),
			func(s *models.Session, p, o int64) bool { return o == 1 }},
		{"a prompt", "user-prompt-submit", liveHook("UserPromptSubmit", map[string]any{"prompt": "again", "prompt_id": "p2"}),
			func(s *models.Session, p, o int64) bool { return p == 1 && s.PromptCounter == 1 }},
		{"a Stop", "stop", liveHook("Stop", map[string]any{"prompt_id": "p2", "stop_hook_active": false, "last_assistant_message": "stopped"}),
			func(s *models.Session, p, o int64) bool { return s.LastAssistantMessage == "stopped" }},
		{"a SessionEnd", "session-end", liveHook("SessionEnd", map[string]any{"reason": "exit"}),
			func(s *models.Session, p, o int64) bool {
				return s.Status == models.StatusCompleted && s.EndReason == "exit"
			}},
		{"a SessionStart", "session-start", liveHook("SessionStart", map[string]any{"source": "resume"}),
			func(s *models.Session, p, o int64) bool {
				return s.Status == models.StatusActive && s.Source == "resume"
			}},
	}
	for _, st := range steps {
		gone, _, _ := storedSession(t, srv)
		modelstest.Exec(t, srv.Store, `DELETE FROM sessions WHERE id = ?`, gone.ID)
		status, body := srv.Post(t, "/api/hooks/"+st.slug, st.payload)
		if status != http.StatusOK {
			t.Errorf("%s after the session was deleted: %d %s", st.name, status, body)
			continue
		}
		s, prompts, observations := storedSession(t, srv)
		if s.ID == gone.ID || !st.check(s, prompts, observations) {
			t.Errorf("%s after the session was deleted: %s", st.name, fmt.Sprintf("row %d (was %d) %+v, %d prompts, %d observations", s.ID, gone.ID, *s, prompts, observations))
		}
	}
}
