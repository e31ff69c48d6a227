package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/transcript"
)

// TestImportEvents: POST /api/import/events stores a batch of hook events
// in order, as the hook route stores each; malformed, unknown and
// incomplete events are refused and listed, the rest stored; sending the
// batch again stores nothing twice.
func TestImportEvents(t *testing.T) {
	t.Parallel()
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

// importStartTag is the Import button as the page renders it.
var importStartTag = regexp.MustCompile(`<button[^>]*id="import-start"[^>]*>`)

// importPage is GET /import: its status, body and whether its Import
// button is enabled.
func importPage(t *testing.T, srv *testutil.Server) (int, string, bool) {
	t.Helper()
	status, body := srv.Get(t, "/import")
	tag := importStartTag.FindString(string(body))
	if tag == "" {
		t.Fatalf("no Import button: %d %s", status, body)
	}
	return status, string(body), !strings.Contains(tag, " disabled")
}

// TestImportPageStates: the page and its Import button agree in every
// state. No transcripts folder at all is said plainly (not as an
// unreadable file); an empty folder says there is nothing to import;
// both turn the button off and a post says so again (409), starting
// nothing; a folder that cannot be read says that. A transcript that appears while the last scan is cached is
// seen at once, with the button on.
func TestImportPageStates(t *testing.T) {
	t.Parallel()
	t.Run("no folder", func(t *testing.T) {
		srv := testutil.NewServer(t, func(o *app.Options) { o.ImportDir = filepath.Join(t.TempDir(), "none") })
		status, body, on := importPage(t, srv)
		if status != http.StatusOK || !strings.Contains(body, "There is no Claude Code transcripts folder at") || on {
			t.Errorf("%d, button on %v: %s", status, on, body)
		}
		if strings.Contains(body, "unreadable") || strings.Contains(body, `id="scan-sessions"`) {
			t.Error("a missing folder is counted as an unreadable file, or the page shows zero counts")
		}
	})
	t.Run("unreadable folder", func(t *testing.T) {
		// A link to itself: there, but no one can read it (root too).
		dir := filepath.Join(t.TempDir(), "projects")
		if err := os.Symlink(dir, dir); err != nil {
			t.Skip("no symbolic links here:", err)
		}
		srv := testutil.NewServer(t, func(o *app.Options) { o.ImportDir = dir })
		status, body, on := importPage(t, srv)
		if status != http.StatusOK || !strings.Contains(body, "could not be read: nothing to import from it") || on || strings.Contains(body, "No Claude Code transcripts") {
			t.Errorf("%d, button on %v: %s", status, on, body)
		}
	})
	t.Run("empty folder, then a transcript", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "projects")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		srv := testutil.NewServer(t, func(o *app.Options) { o.ImportDir = dir })
		status, body, on := importPage(t, srv)
		if status != http.StatusOK || !strings.Contains(body, "No Claude Code transcripts in") || on {
			t.Errorf("empty: %d, button on %v: %s", status, on, body)
		}
		c, tok := browserish(t, srv)
		status, _, body = postForm(t, c, srv, "/import", url.Values{"_csrf": {tok}})
		if status != http.StatusConflict || !strings.Contains(body, "Nothing to import") {
			t.Errorf("import with nothing to import: %d %s", status, body)
		}
		var st struct{ State transcript.State }
		srv.GetJSON(t, "/api/import", &st)
		if st.State.Running || st.State.Stats != nil {
			t.Errorf("an import started with nothing to import: %+v", st.State)
		}
		// Within the minute the last scan is kept: the new file is seen.
		testutil.WriteTranscripts(t, dir, 1, "c0")
		status, body, on = importPage(t, srv)
		if status != http.StatusOK || !on || strings.Contains(body, `id="import-none"`) || !strings.Contains(body, `id="scan-sessions">1<`) {
			t.Errorf("after a transcript appeared: %d, button on %v: %s", status, on, body)
		}
	})
}

// TestImportPageLastResult: after an import the page says how it ended
// and when: its local time of day (its <time> machine readable) and how
// long ago.
func TestImportPageLastResult(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.WithTranscripts(t, 2, "d0"))
	if _, body, _ := importPage(t, srv); strings.Contains(body, "Last import") {
		t.Fatal("a last import before any ran")
	}
	c, tok := browserish(t, srv)
	if status, _, body := postForm(t, c, srv, "/import", url.Values{"_csrf": {tok}}); status != http.StatusSeeOther {
		t.Fatalf("start: %d %s", status, body)
	}
	var st struct{ State transcript.State }
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		srv.GetJSON(t, "/api/import", &st)
		if !st.State.Running && st.State.Stats != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the import did not finish: %+v", st.State)
		}
	}
	_, body, on := importPage(t, srv)
	at := st.State.Finished
	want := fmt.Sprintf(`Last import, finished <time id="import-last-at" datetime="%s" title="%s">%s</time> (`,
		at.UTC().Format(time.RFC3339), at.Local().Format("2006-01-02 15:04"), at.Local().Format("15:04"))
	if at.Local().YearDay() != time.Now().YearDay() {
		t.Skip("the import finished yesterday (the test ran across midnight)")
	}
	if !strings.Contains(body, want) || !regexp.MustCompile(`\((just now|\d+ min ago)\): New in memory: 2 sessions`).MatchString(body) || !on {
		t.Errorf("want %q, then how long ago and the result, and the button on; got:\n%s", want, between(body, `id="import-progress"`, "</section>"))
	}
}

// TestImportExportRowsPrivacy: rows of a full export written elsewhere
// (with fewer rules) go through this worker's privacy settings before they
// are stored: secrets are redacted in every field, an observation an
// exclude glob matches becomes a stub, and an excluded project's session
// stores nothing. A second send stores nothing twice.
func TestImportExportRowsPrivacy(t *testing.T) {
	t.Parallel()
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
