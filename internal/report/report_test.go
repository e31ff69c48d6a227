package report_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// Secrets that appear in a tool call; storage redacts them, so no export
// may contain them.
const (
	secretKey   = "AKIAIOSFODNN7EXAMPLE"
	secretToken = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
)

type ev = map[string]any

// recordSession plays a realistic session through the real ingest route:
// a feature, a failing test fixed by an edit, a failed deploy leaking
// secrets in its output, and a hostile prompt.
func recordSession(t *testing.T, srv *testutil.Server, sid string) {
	t.Helper()
	cwd := "/home/dev/projects/api"
	base := func(event, prompt string, extra ev) ev {
		e := ev{"session_id": sid, "transcript_path": "/nonexistent/" + sid + ".jsonl", "cwd": cwd, "hook_event_name": event}
		if prompt != "" {
			e["prompt_id"] = prompt
		}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	steps := []struct {
		slug string
		body ev
	}{
		{"session-start", base("SessionStart", "", ev{"source": "startup"})},
		{"user-prompt-submit", base("UserPromptSubmit", "p1", ev{"prompt": "Add JWT auth middleware to the API and make sure the tests pass"})},
		{"post-tool-use", base("PostToolUse", "p1", ev{"tool_name": "Read", "tool_use_id": "t1", "tool_input": ev{"file_path": cwd + "/main.go"}, "tool_response": ev{"type": "text", "file": ev{"filePath": cwd + "/main.go", "content": "package main\n", "numLines": 40}}})},
		{"post-tool-use", base("PostToolUse", "p1", ev{"tool_name": "Write", "tool_use_id": "t2", "tool_input": ev{"file_path": cwd + "/internal/auth/jwt.go", "content": "package auth\n"}, "tool_response": ev{"type": "create", "filePath": cwd + "/internal/auth/jwt.go"}})},
		{"post-tool-use", base("PostToolUse", "p1", ev{"tool_name": "Edit", "tool_use_id": "t3", "tool_input": ev{"file_path": cwd + "/main.go", "old_string": "a", "new_string": "b"}, "tool_response": ev{"filePath": cwd + "/main.go"}})},
		{"post-tool-use-failure", base("PostToolUseFailure", "p1", ev{"tool_name": "Bash", "tool_use_id": "t4", "tool_input": ev{"command": "go test ./..."}, "error": "Exit code 1\n--- FAIL: TestMiddleware (0.00s)\n    jwt_test.go:14: missing env var JWT_SECRET\nFAIL"})},
		{"post-tool-use", base("PostToolUse", "p1", ev{"tool_name": "Edit", "tool_use_id": "t5", "tool_input": ev{"file_path": cwd + "/internal/auth/jwt.go", "old_string": "a", "new_string": "b"}, "tool_response": ev{"filePath": cwd + "/internal/auth/jwt.go"}})},
		{"post-tool-use", base("PostToolUse", "p1", ev{"tool_name": "Bash", "tool_use_id": "t6", "tool_input": ev{"command": "go test ./..."}, "tool_response": ev{"stdout": "ok  \texample.com/api\t0.01s\nok  \texample.com/api/internal/auth\t0.02s", "stderr": ""}})},
		{"stop", base("Stop", "p1", ev{"last_assistant_message": "Added the middleware; tests pass."})},
		{"user-prompt-submit", base("UserPromptSubmit", "p2", ev{"prompt": "Deploy it <script>alert('x')</script> | and | tell me"})},
		{"post-tool-use-failure", base("PostToolUseFailure", "p2", ev{"tool_name": "Bash", "tool_use_id": "t7", "tool_input": ev{"command": "GITHUB_TOKEN=" + secretToken + " ./deploy.sh"},
			"error": "Exit code 3\nusing key " + secretKey + "\nerror: deploy target unreachable"})},
		{"stop", base("Stop", "p2", ev{"last_assistant_message": "The deploy failed: the target is unreachable."})},
		{"session-end", base("SessionEnd", "p2", ev{"reason": "prompt_input_exit"})},
	}
	for _, s := range steps {
		srv.Hook(t, s.slug, s.body)
	}
	testutil.WaitJobs(t, srv.Store, time.Minute)
}

func TestExportFormats(t *testing.T) {
	srv := testutil.NewServer(t)
	recordSession(t, srv, "report-1111-2222")
	tests := []struct {
		format, ctype, ext string
		want               []string
	}{
		{"md", "text/markdown; charset=utf-8", "md", []string{
			"# Add JWT auth middleware to the API and make sure the tests pass\n",
			"- **Project:** api\n", "**Duration:**", "## Summary\n", "**Final summary** (heuristic,",
			"- **Completed:** Created internal/auth/jwt.go; modified main.go; \\`go test ./...\\` passes (2 packages ok).",
			"## Timeline\n", "### Prompt 1 · ", "> Add JWT auth middleware",
			"· Bash · \\`go test ./...\\`: 1 failed: TestMiddleware (exit 1) **✗ failed**\n",
			"### Prompt 2 · ", "> Deploy it &lt;script&gt;alert('x')&lt;/script&gt; | and | tell me",
			"## Failures and how they were resolved\n",
			"- **Prompt 1:** \\`go test ./...\\`: 1 failed: TestMiddleware (exit 1) — _jwt\\_test.go:14: missing env var JWT\\_SECRET_\n  → fixed: Ran \\`go test ./...\\`: 2 packages ok (after changing internal/auth/jwt.go)\n",
			"→ not resolved in this session", "_error: deploy target unreachable_",
			"## Files touched\n", "| `internal/auth/jwt.go` | created, then edited 1× |", "| `main.go` | modified |",
			"## Tests\n", "| ✗ 1 test failed |", "| ✓ 2 packages ok |",
			"## Statistics\n", "| Failures (fixed) | 2 (1) |",
			`\[REDACTED:github\_token\]`,
		}},
		{"json", "application/json; charset=utf-8", "json", []string{`"schemaVersion":1`, "[REDACTED:aws_access_key]", "[REDACTED:github_token]"}},
		{"html", "text/html; charset=utf-8", "html", []string{
			"<!doctype html>", "<style>", "@media print", "break-before: page",
			"Deploy it &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;", "[REDACTED:github_token]",
			"Failures and how they were resolved", "missing env var JWT_SECRET",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			resp, body := fetch(t, srv, "/api/sessions/report-1111-2222/export?format="+tc.format)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if got := resp.Header.Get("Content-Type"); got != tc.ctype {
				t.Errorf("Content-Type %q", got)
			}
			cd := resp.Header.Get("Content-Disposition")
			if !strings.HasPrefix(cd, `attachment; filename="mneme-api-`) || !strings.HasSuffix(cd, `-report-1.`+tc.ext+`"`) {
				t.Errorf("Content-Disposition %q", cd)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s export lacks %q", tc.format, w)
				}
			}
			for _, secret := range []string{secretKey, secretToken, "<script>alert"} {
				if strings.Contains(body, secret) {
					t.Errorf("%s export contains %q", tc.format, secret)
				}
			}
			if tc.format == "json" {
				checkJSON(t, body)
			}
			if tc.format == "html" {
				for _, ext := range []string{"src=", "href=", "url(", "@import", "<script", "<link"} {
					if strings.Contains(strings.ToLower(body), ext) {
						t.Errorf("html export has %q: not self-contained", ext)
					}
				}
			}
			if os.Getenv("MNEME_REPORT_DIR") != "" {
				os.WriteFile(os.Getenv("MNEME_REPORT_DIR")+"/report."+tc.ext, []byte(body), 0o644)
			}
		})
	}
}

func checkJSON(t *testing.T, body string) {
	t.Helper()
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
		Sessions      []struct {
			Session      models.Session       `json:"session"`
			Summaries    []models.Summary     `json:"summaries"`
			Prompts      []models.Prompt      `json:"prompts"`
			Observations []models.Observation `json:"observations"`
			Failures     []struct {
				Fixed      bool   `json:"fixed"`
				Reason     string `json:"reason"`
				Resolution string `json:"resolution"`
			} `json:"failures"`
			Tests []struct {
				Passed bool `json:"passed"`
			} `json:"tests"`
			Files []struct {
				Path    string `json:"path"`
				Created bool   `json:"created"`
			} `json:"files"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("json export does not parse: %v", err)
	}
	if doc.SchemaVersion != 1 || len(doc.Sessions) != 1 {
		t.Fatalf("schema %d, %d sessions", doc.SchemaVersion, len(doc.Sessions))
	}
	s := doc.Sessions[0]
	if s.Session.ClaudeSessionID != "report-1111-2222" || len(s.Prompts) != 2 || len(s.Observations) != 7 || len(s.Summaries) != 3 {
		t.Errorf("session %q: %d prompts, %d observations, %d summaries", s.Session.ClaudeSessionID, len(s.Prompts), len(s.Observations), len(s.Summaries))
	}
	if len(s.Failures) != 2 || !s.Failures[0].Fixed || s.Failures[1].Fixed || s.Failures[1].Reason != "error: deploy target unreachable" {
		t.Errorf("failures = %+v", s.Failures)
	}
	if len(s.Tests) != 2 || s.Tests[0].Passed || !s.Tests[1].Passed || len(s.Files) != 2 {
		t.Errorf("tests %+v files %+v", s.Tests, s.Files)
	}
	// The full output is there, redacted.
	last := s.Observations[len(s.Observations)-1]
	if !strings.Contains(last.Output, "using key [REDACTED:aws_access_key]") {
		t.Errorf("last output = %q", last.Output)
	}
}

func fetch(t *testing.T, srv *testutil.Server, path string) (*http.Response, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestExportErrors(t *testing.T) {
	srv := testutil.NewServer(t)
	recordSession(t, srv, "report-errors")
	for _, tc := range []struct {
		path   string
		status int
		msg    string
	}{
		{"/api/sessions/report-errors/export?format=pdf", 400, `format must be md, json or html, not \"pdf\"`},
		{"/api/sessions/no-such-session/export", 404, "not found"},
		{"/api/sessions/999/export?format=json", 404, "not found"},
		{"/api/export?project=api&format=md", 400, "since is required"},
		{"/api/export?project=api&since=yesterday", 400, "since must be a date"},
		{"/api/export?project=nope&since=2000-01-01", 404, "no session of project"},
	} {
		resp, body := fetch(t, srv, tc.path)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.msg) {
			t.Errorf("%s: %d %s", tc.path, resp.StatusCode, body)
		}
	}
}

func TestExportProject(t *testing.T) {
	srv := testutil.NewServer(t)
	recordSession(t, srv, "proj-aaaa")
	recordSession(t, srv, "proj-bbbb")
	resp, body := fetch(t, srv, "/api/export?project=api&since=2000-01-01&format=md")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="mneme-api-since-2000-01-01.md"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	for _, w := range []string{"# api: 2 sessions since 2000-01-01\n", "`proj-aaaa`", "`proj-bbbb`", "### Failures and how they were resolved"} {
		if !strings.Contains(body, w) {
			t.Errorf("project report lacks %q", w)
		}
	}
	if strings.Count(body, "#### Prompt 1 · ") != 2 {
		t.Errorf("want two sessions' timelines:\n%s", body)
	}
}

// TestReportIgnoresTitleWording: test runs, their outcomes and created
// files are data recorded at ingest, not read back from display titles:
// rewording every title leaves the report's Files and Tests sections, the
// JSON export's files and tests, and the session's summary as they were.
func TestReportIgnoresTitleWording(t *testing.T) {
	srv := testutil.NewServer(t)
	recordSession(t, srv, "report-wording")
	tests := func() (string, string) {
		_, md := fetch(t, srv, "/api/sessions/report-wording/export?format=md")
		i, j := strings.Index(md, "## Files touched"), strings.Index(md, "## Statistics")
		if i < 0 || j < i {
			t.Fatalf("no Files or Tests section in:\n%s", md)
		}
		_, js := fetch(t, srv, "/api/sessions/report-wording/export?format=json")
		var doc struct {
			Sessions []struct {
				Files json.RawMessage `json:"files"`
				Tests json.RawMessage `json:"tests"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Sessions) != 1 {
			t.Fatalf("json export: %v", err)
		}
		return md[i:j], string(doc.Sessions[0].Files) + string(doc.Sessions[0].Tests)
	}
	mdBefore, jsBefore := tests()
	if !strings.Contains(mdBefore, "2 packages ok") || !strings.Contains(mdBefore, "1 test failed") || !strings.Contains(mdBefore, "created, then edited") {
		t.Fatalf("the sections lack the outcomes or the created file:\n%s", mdBefore)
	}
	modelstest.Exec(t, srv.Store, `UPDATE observations SET title = 'Reworded: call ' || id`)
	mdAfter, jsAfter := tests()
	if mdAfter != mdBefore || jsAfter != jsBefore {
		t.Errorf("rewording titles changed the tests:\n%s\n%s\nvs\n%s\n%s", mdBefore, jsBefore, mdAfter, jsAfter)
	}
}
