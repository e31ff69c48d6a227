package handlers_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestImportEvents: POST /api/import/events stores a batch of hook events
// in order, as the hook route stores each; malformed, unknown and
// incomplete events are refused and listed, the rest stored; sending the
// batch again stores nothing twice.
func TestImportEvents(t *testing.T) {
	srv := testutil.NewServer(t)
	var lines []string
	for _, raw := range testutil.FixtureEvents(t) {
		var head struct {
			Event string `json:"hook_event_name"`
		}
		json.Unmarshal(raw, &head)
		b, _ := json.Marshal(api.ImportEvent{Event: head.Event, Payload: raw})
		lines = append(lines, string(b))
	}
	lines = append(lines[:3], append([]string{
		`{"event": "PostToolUse", "payload": {"session_id": "x"`,
		`{"event": "Nope", "payload": {"session_id": "x"}}`,
		`{"event": "PostToolUse", "payload": {"session_id": "x", "tool_use_id": "t"}}`,
		``,
	}, lines[3:]...)...)
	body := strings.Join(lines, "\n")

	status, out := srv.Do(t, http.MethodPost, "/api/import/events", body, http.Header{"Content-Type": {"application/x-ndjson"}})
	var res api.ImportResult
	if status != http.StatusOK || json.Unmarshal(out, &res) != nil {
		t.Fatalf("%d %s", status, out)
	}
	if res.Stored != 8 || len(res.Refused) != 3 {
		t.Errorf("stored %d, refused %q", res.Stored, res.Refused)
	}
	for i, want := range []string{"event 4: malformed JSON", `event 5: unknown event "Nope"`, "event 6 (PostToolUse): missing tool_name"} {
		if i < len(res.Refused) && res.Refused[i] != want {
			t.Errorf("refusal %d: %q, want %q", i, res.Refused[i], want)
		}
	}
	c1, _ := srv.Store.Counts(t.Context())
	if c1.Sessions != 1 || c1.Prompts != 1 || c1.Observations != 4 {
		t.Errorf("stored %+v", c1)
	}
	srv.Do(t, http.MethodPost, "/api/import/events", body, nil)
	// Summaries are written in the background: only the rows an import
	// makes are compared.
	if c2, _ := srv.Store.Counts(t.Context()); c2.Sessions != c1.Sessions || c2.Prompts != c1.Prompts || c2.Observations != c1.Observations {
		t.Errorf("the same batch again: %+v → %+v", c1, c2)
	}
}

// TestImportPageEmpty: without transcripts the page says so.
func TestImportPageEmpty(t *testing.T) {
	srv := testutil.NewServer(t, func(o *app.Options) { o.ImportDir = filepath.Join(t.TempDir(), "none") })
	status, body := srv.Get(t, "/import")
	if status != http.StatusOK || !strings.Contains(string(body), "No Claude Code transcripts in") {
		t.Errorf("%d %s", status, body)
	}
}

// TestImportExportRowsPrivacy: rows of a full export written elsewhere
// (with fewer rules) go through this worker's privacy settings before they
// are stored: secrets are redacted in every field, an observation an
// exclude glob matches becomes a stub, and an excluded project's session
// stores nothing. A second send stores nothing twice.
func TestImportExportRowsPrivacy(t *testing.T) {
	srv := testutil.NewServer(t)
	if status, out := srv.Do(t, http.MethodPut, "/api/settings", map[string]any{"privacy": map[string]any{"excludedProjects": []string{"secret-proj"}}}, nil); status != http.StatusOK {
		t.Fatalf("settings: %d %s", status, out)
	}
	const key = "AKIAIOSFODNN7EXAMPLE"
	at := "2026-11-20T10:00:00Z"
	line := func(claudeID, project string) string {
		b, _ := json.Marshal(map[string]any{
			"session": map[string]any{"claudeSessionId": claudeID, "project": project, "cwd": "/src/" + project,
				"status": "completed", "startedAt": at, "lastAssistantMessage": "used " + key},
			"prompts": []map[string]any{{"number": 1, "promptId": "p1", "text": "deploy with " + key, "createdAt": at}},
			"summaries": []map[string]any{{"kind": "final", "request": "deploy", "learned": "the key is " + key,
				"generator": "heuristic", "createdAt": at}},
			"observations": []map[string]any{
				{"promptNumber": 1, "toolUseId": "t1", "toolName": "Bash", "kind": "bash", "title": "Ran `echo " + key + "`",
					"input": `{"command":"echo ` + key + `"}`, "output": key, "files": []string{}, "success": true, "createdAt": at},
				{"promptNumber": 1, "toolUseId": "t2", "toolName": "Read", "kind": "read", "title": "Read .env",
					"input": `{"file_path":"/src/app/.env"}`, "output": "DB_PASSWORD=hunter2", "files": []string{"/src/app/.env"}, "success": true, "createdAt": at},
			},
		})
		return string(b)
	}
	body := line("exported-session", "app") + "\n" + line("hidden-session", "secret-proj") + "\n"
	for range 2 {
		if status, out := srv.Do(t, http.MethodPost, "/api/import/export-rows", body, http.Header{"Content-Type": {"application/x-ndjson"}}); status != http.StatusOK {
			t.Fatalf("%d %s", status, out)
		}
	}
	c, _ := srv.Store.Counts(t.Context())
	if c.Sessions != 1 || c.Prompts != 1 || c.Observations != 2 {
		t.Fatalf("stored %+v, want the one session of the project not excluded, once", c)
	}
	for _, path := range []string{"/api/sessions/1", "/api/export/all"} {
		status, out := srv.Get(t, path)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, out)
		}
		for _, leak := range []string{key, "hunter2", "hidden-session", "secret-proj"} {
			if strings.Contains(string(out), leak) {
				t.Errorf("%s holds %q:\n%s", path, leak, out)
			}
		}
		if !strings.Contains(string(out), "excluded by privacy rule") {
			t.Errorf("%s: the .env read is not a stub:\n%s", path, out)
		}
	}
}
