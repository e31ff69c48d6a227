package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestScreenshots saves PNGs of the viewer for people to look at:
//
//	MNEME_SCREENSHOTS=/tmp/shots go test ./web -run TestScreenshots
//
// Without MNEME_SCREENSHOTS it is skipped. It asserts only that every page
// rendered; the point is the pictures.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("MNEME_SCREENSHOTS")
	if dir == "" {
		t.Skip("set MNEME_SCREENSHOTS=<dir> to save screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := testutil.NewServer(t, testutil.WithTranscripts(t, 24, "5c"))
	seedDemo(t, srv)
	mems := seedMemories(t, srv)
	edit := fmt.Sprintf("/memory?project=api-server&edit=%d#mem-%d", mems[1].ID, mems[1].ID)
	shots := []struct{ name, path, ready string }{
		{"feed", "/", "#feed > .row"},
		{"session", "/sessions/1", "#timeline"},
		{"sessions", "/sessions", ".sessions-table"},
		{"search", "/search?q=test*+OR+notes", "#results mark"},
		{"stats", "/stats", "#chart-activity svg"},
		{"stats-projects", "/stats#chart-projects", "#chart-projects table"},
		{"settings", "/settings", "main form"},
		{"settings-builtins", "/settings?open=builtin#builtin-rules", "#builtin-rules[open] .rule-example"},
		{"import", "/import", "#import-projects"},
		{"memory", "/memory?project=api-server", "#memories"},
		{"memory-edit", edit, ".mem-edit-form:not([hidden]) textarea"},
		{"memory-search", "/memory?project=api-server&q=migrations", "#memory-search-list"},
	}
	b := newBrowser(t, 1366, 800)
	b.login(t, srv)
	for _, theme := range []string{"light", "dark"} {
		b.do(t,
			chromedp.Navigate(srv.URL+"/"),
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem("mneme-theme", %q)`, theme)),
		)
		for _, s := range shots {
			shoot(t, b, srv.URL+s.path, s.ready, filepath.Join(dir, s.name+"-"+theme+".png"))
		}
	}
	// The Import page with no transcripts folder at all, as on a machine
	// where Claude Code never ran.
	bare := testutil.NewServer(t, func(o *app.Options) { o.ImportDir = filepath.Join(t.TempDir(), "no-claude", "projects") })
	nb := newBrowser(t, 1366, 800)
	nb.login(t, bare)
	for _, width := range []int64{1366, 400} {
		nb.do(t, chromedp.EmulateViewport(width, 800))
		shoot(t, nb, bare.URL+"/import", "#import-none", filepath.Join(dir, fmt.Sprintf("import-none-%d.png", width)))
	}
	b.do(t, chromedp.EmulateViewport(400, 860))
	for _, theme := range []string{"light", "dark"} {
		b.do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem("mneme-theme", %q)`, theme)))
		shoot(t, b, srv.URL+"/", "#feed > .row", filepath.Join(dir, "feed-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/sessions/1", "#timeline", filepath.Join(dir, "session-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/stats", "#chart-activity svg", filepath.Join(dir, "stats-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/stats#chart-files", "#chart-projects table", filepath.Join(dir, "stats-projects-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/settings", "main form", filepath.Join(dir, "settings-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/settings?open=builtin#builtin-rules", "#builtin-rules[open] .rule-example", filepath.Join(dir, "settings-builtins-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/import", "#import-projects", filepath.Join(dir, "import-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+edit, ".mem-edit-form:not([hidden]) textarea", filepath.Join(dir, "memory-edit-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/search?q=test*+OR+notes", "#results mark", filepath.Join(dir, "search-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/memory?project=api-server", "#memories", filepath.Join(dir, "memory-narrow-"+theme+".png"))
		shoot(t, b, srv.URL+"/memory?project=api-server&q=migrations", "#memory-search-list", filepath.Join(dir, "memory-search-narrow-"+theme+".png"))
	}
}

// seedMemories states a few memories of api-server, one superseded, for
// the Memory page's pictures, and returns them.
func seedMemories(t *testing.T, srv *testutil.Server) []models.Memory {
	t.Helper()
	ms := []models.Memory{
		{Project: "api-server", Source: models.SourceUser, Kind: models.MemoryConstraint, Text: "Never run database migrations inside the request handler"},
		{Project: "api-server", Source: models.SourceUser, Kind: models.MemoryDecision, Text: "Migrate creates tables with IF NOT EXISTS, so running the migrations twice is safe"},
		{Project: "api-server", Source: models.SourceUser, Kind: models.MemoryDecision, Text: "Run the migrations by hand before a release"},
		{Project: "api-server", Source: models.SourceUser, Kind: models.MemoryCause, Text: "TestMigrateTwice failed because CREATE TABLE users ran on an existing table"},
		{Project: "api-server", Source: models.SourceUser, Kind: models.MemoryTodo, Text: "Add a regression test for a migration that renames a column"},
	}
	storeMemories(t, srv, ms, 2, 1)
	return ms
}

// storeMemories inserts ms (their IDs set), then marks ms[old]
// superseded by ms[by].
func storeMemories(t *testing.T, srv *testutil.Server, ms []models.Memory, old, by int) {
	t.Helper()
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		for i := range ms {
			if _, err := tx.InsertMemory(&ms[i]); err != nil {
				return err
			}
		}
		_, err := tx.SupersedeMemory(ms[old].ID, ms[by].ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func shoot(t *testing.T, b *browser, url, ready, file string) {
	t.Helper()
	b.do(t, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(ready)), chromedp.Sleep(300*time.Millisecond))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", file)
}

// seedDemo records a few sessions that look like real work: the fixture,
// a test run that fails and then passes, edits, searches, a second project.
func seedDemo(t *testing.T, srv *testutil.Server) {
	t.Helper()
	srv.SeedFixture(t)
	calls := []struct {
		project, session string
		fail             bool
		tool             string
		input            map[string]any
		output           any
	}{
		{"api-server", "s2", false, "Read", map[string]any{"file_path": "/home/dev/api-server/internal/store/migrate.go"}, map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/api-server/internal/store/migrate.go", "content": "package store\n\nfunc Migrate() error {\n\treturn nil\n}\n", "numLines": 5}}},
		{"api-server", "s2", false, "Grep", map[string]any{"pattern": "ErrNotFound", "path": "/home/dev/api-server"}, map[string]any{"mode": "files_with_matches", "filenames": []string{"internal/store/store.go", "internal/http/errors.go"}, "numFiles": 2}},
		{"api-server", "s2", true, "Bash", map[string]any{"command": "go test ./internal/store/..."}, "Exit code 1\n--- FAIL: TestMigrateTwice (0.01s)\n    migrate_test.go:41: table users already exists\nFAIL\nFAIL\tgithub.com/dev/api-server/internal/store\t0.214s"},
		{"api-server", "s2", false, "Edit", map[string]any{"file_path": "/home/dev/api-server/internal/store/migrate.go", "old_string": "CREATE TABLE users", "new_string": "CREATE TABLE IF NOT EXISTS users"}, map[string]any{"filePath": "/home/dev/api-server/internal/store/migrate.go", "oldString": "CREATE TABLE users", "newString": "CREATE TABLE IF NOT EXISTS users"}},
		{"api-server", "s2", false, "Bash", map[string]any{"command": "go test ./internal/store/..."}, map[string]any{"stdout": "ok  \tgithub.com/dev/api-server/internal/store\t0.198s", "stderr": "", "interrupted": false}},
		{"api-server", "s2", false, "WebFetch", map[string]any{"url": "https://sqlite.org/lang_createtable.html", "prompt": "IF NOT EXISTS semantics"}, map[string]any{"result": "The IF NOT EXISTS clause makes CREATE TABLE a no-op when the table exists.", "code": 200}},
	}
	srv.Hook(t, "session-start", map[string]any{"session_id": "s2", "transcript_path": "", "cwd": "/home/dev/api-server", "hook_event_name": "SessionStart", "source": "startup"})
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "s2", "transcript_path": "", "cwd": "/home/dev/api-server", "hook_event_name": "UserPromptSubmit", "prompt_id": "p2", "prompt": "The store tests fail when migrations run twice. Make Migrate idempotent and add a regression test."})
	for i, c := range calls {
		p := map[string]any{
			"session_id": c.session, "transcript_path": "", "cwd": "/home/dev/" + c.project, "prompt_id": "p2",
			"tool_name": c.tool, "tool_input": c.input, "tool_use_id": fmt.Sprintf("toolu_demo_%d", i), "duration_ms": 40 + i*130,
		}
		if c.fail {
			p["hook_event_name"], p["error"], p["is_interrupt"] = "PostToolUseFailure", c.output, false
			srv.Hook(t, "post-tool-use-failure", p)
		} else {
			p["hook_event_name"], p["tool_response"] = "PostToolUse", c.output
			srv.Hook(t, "post-tool-use", p)
		}
	}
	srv.Hook(t, "stop", map[string]any{"session_id": "s2", "transcript_path": "", "cwd": "/home/dev/api-server", "hook_event_name": "Stop", "prompt_id": "p2", "stop_hook_active": false, "last_assistant_message": "Migrate now uses CREATE TABLE IF NOT EXISTS; TestMigrateTwice covers a second run. All store tests pass."})
	xss := `<script>alert(1)</script><img src=x onerror=alert(2)>`
	srv.Hook(t, "post-tool-use", map[string]any{"session_id": "s2", "transcript_path": "", "cwd": "/home/dev/api-server", "hook_event_name": "PostToolUse", "prompt_id": "p2", "tool_name": "Bash", "tool_use_id": "toolu_demo_xss", "tool_input": map[string]any{"command": "cat testdata/evil.html"}, "tool_response": map[string]any{"stdout": xss, "stderr": "", "interrupted": false}})
	testutil.WaitJobs(t, srv.Store, 60*time.Second) // the summaries written
}
