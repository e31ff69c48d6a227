package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// A session of a full export holding a value capture never stores is
// refused alone, the field named, and the other sessions of the batch are
// stored; the refused session's next prompt is recorded (issue 21, point
// 2: promptCounter 9223372036854775807 was stored, and the session's next
// prompt failed with 500, holding up the hook's spool behind it).
func TestImportExportRowsRefusesCraftedSession(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const at = "2026-11-20T10:00:00Z"
	line := func(claudeID string, edit func(m map[string]any)) string {
		m := map[string]any{
			"session": map[string]any{"claudeSessionId": claudeID, "project": "app", "cwd": "/src/app",
				"status": "active", "promptCounter": 1, "startedAt": at},
			"prompts": []map[string]any{{"number": 1, "promptId": "p1", "text": "hello", "createdAt": at}},
			"observations": []map[string]any{{"promptNumber": 1, "toolUseId": "t1", "toolName": "Bash", "kind": "bash",
				"title": "Ran `ls`", "files": []string{}, "success": true, "importance": 0.5, "durationMs": 3, "createdAt": at}},
			"summaries": []map[string]any{{"kind": "turn", "promptNumber": 1, "request": "hello", "generator": "heuristic", "costUsd": 0, "createdAt": at}},
		}
		if edit != nil {
			edit(m)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	crafted := []struct{ id, field string }{
		{"crafted-counter", "session.promptCounter 9223372036854775807 is out of range"},
		{"crafted-importance", "observations[0].importance 7 must be between 0 and 1"},
		{"crafted-duration", "observations[0].durationMs -1 must not be negative"},
		{"crafted-status", `session.status "pwned" must be active or completed`},
		{"crafted-kind", `summaries[0].kind "epic" must be turn, intermediate or final`},
		{"crafted-cost", "summaries[0].costUsd -2 must not be negative"},
	}
	edits := map[string]func(m map[string]any){
		"crafted-counter": func(m map[string]any) {
			m["session"].(map[string]any)["promptCounter"] = json.Number("9223372036854775807")
		},
		"crafted-importance": func(m map[string]any) { m["observations"].([]map[string]any)[0]["importance"] = 7 },
		"crafted-duration":   func(m map[string]any) { m["observations"].([]map[string]any)[0]["durationMs"] = -1 },
		"crafted-status":     func(m map[string]any) { m["session"].(map[string]any)["status"] = "pwned" },
		"crafted-kind":       func(m map[string]any) { m["summaries"].([]map[string]any)[0]["kind"] = "epic" },
		"crafted-cost":       func(m map[string]any) { m["summaries"].([]map[string]any)[0]["costUsd"] = -2 },
	}
	body := line("sound-before", nil) + "\n"
	for _, c := range crafted {
		body += line(c.id, edits[c.id]) + "\n"
	}
	body += line("sound-after", nil) + "\n"
	status, out := srv.Do(t, http.MethodPost, "/api/import/export-rows", body, http.Header{"Content-Type": {"application/x-ndjson"}})
	if status != http.StatusOK {
		t.Fatalf("%d %s", status, out)
	}
	var res models.RestoreCounts
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if res.New.Sessions != 2 || len(res.Refused) != len(crafted) {
		t.Fatalf("answer %s: want 2 sessions stored, %d refused", out, len(crafted))
	}
	for i, c := range crafted {
		if !strings.Contains(res.Refused[i], `"`+c.id+`"`) || !strings.Contains(res.Refused[i], c.field) {
			t.Errorf("refusal %d: %q, want the session %s and %q", i, res.Refused[i], c.id, c.field)
		}
	}
	if n := countRows(t, srv).Sessions; n != 2 {
		t.Errorf("%d sessions stored, want the 2 sound ones", n)
	}
	// The refused session is not there: its next prompt records it anew.
	srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "crafted-counter", "app", map[string]any{"prompt": "next", "prompt_id": "p2"}))
	if s := sessionRow(t, srv, "crafted-counter"); s.PromptCounter != 1 {
		t.Errorf("the crafted session's next prompt: counter %d, want 1", s.PromptCounter)
	}
}
