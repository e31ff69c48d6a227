package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// xssOutput is tool output that would run script if it reached the page
// unescaped.
const xssOutput = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`

var htmlAccept = http.Header{"Accept": {"text/html"}}

// seeded is a worker holding the fixture session, one failed tool call (in a
// second session) and one tool call whose output is an XSS payload.
func seeded(t *testing.T) *testutil.Server {
	t.Helper()
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	srv.Hook(t, "post-tool-use-failure", fixtureFailure(t))
	srv.Hook(t, "post-tool-use", bashCall("xss-session", "toolu_xss", "cat evil.html", xssOutput))
	return srv
}

func fixtureFailure(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	data, err := os.ReadFile(testutil.FixtureDir(t) + "/post-tool-use-failure.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// bashCall is a PostToolUse payload of a Bash command in /tmp/xss-project.
func bashCall(session, toolUseID, command, stdout string) map[string]any {
	return map[string]any{
		"session_id": session, "transcript_path": "", "cwd": "/tmp/xss-project",
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": toolUseID,
		"tool_input":    map[string]any{"command": command},
		"tool_response": map[string]any{"stdout": stdout, "stderr": "", "interrupted": false},
	}
}

func getPage(t *testing.T, srv *testutil.Server, path string) (int, string) {
	t.Helper()
	status, body := srv.Do(t, http.MethodGet, path, nil, htmlAccept)
	return status, string(body)
}

func TestPages(t *testing.T) {
	t.Parallel()
	srv := seeded(t)
	// The session page names who summarized it: the summary queue writes
	// it after the fixture's Stop, in its own time (it lagged behind the
	// page's request on a loaded machine).
	waitFor(t, "the fixture session's summary", func() bool { return len(summariesOf(t, srv, "notes-app")) >= 1 })
	tests := []struct {
		path   string
		status int
		want   []string
		absent []string
	}{
		{"/", 200, []string{
			`<title>Feed · mneme</title>`, `id="feed"`, `data-live="true"`,
			`Ran ` + "`echo hello-from-fake`", `write notes please`, `Created notes.md`,
			`class="row row-obs row-fail"`, `Session ended`, `/home/dev/projects/notes-app/notes.md`,
			`&lt;script&gt;window.pwned=1&lt;/script&gt;`, `<details class="io">`,
			`<link rel="stylesheet" href="/static/app.css?v=`, `<meta name="csrf-token" content="`,
		}, []string{`hunter2`, `<script>window.pwned`, `<img src=x`}},
		{"/?failures=1", 200, []string{`class="row row-obs row-fail"`, `ls /nonexistent-dir`}, []string{`Created notes.md`, `write notes please`}},
		{"/?tool=Write", 200, []string{`Created notes.md`}, []string{`Edited notes.md`}},
		{"/?kind=read", 200, []string{`Read notes.md`}, []string{`Created notes.md`}},
		{"/?project=xss-project", 200, []string{`cat evil.html`}, []string{`write notes please`}},
		{"/?offset=50", 200, []string{`data-live="false"`}, []string{`write notes please`}},
		{"/?offset=-1", 400, []string{`offset must be a whole number`}, nil},
		{"/sessions", 200, []string{`<title>Sessions · mneme</title>`, `href="/sessions/1"`, `notes-app`, `xss-project`, `completed`, `fail-count`}, nil},
		{"/sessions?limit=0", 400, nil, nil},
		{"/sessions/1", 200, []string{
			`id="timeline"`, `id="turn-1"`, `write notes please`, `Edited notes.md`, `Files touched`,
			`/api/sessions/1/export?format=md`, `/api/sessions/1/export?format=json`, `/api/sessions/1/export?format=html`,
			`All four steps are finished.`, `f0373ac4-95a4-4996-a7f7-2576f5e8c9ca`,
		}, []string{`hunter2`}},
		{"/sessions/f0373ac4-95a4-4996-a7f7-2576f5e8c9ca", 200, []string{`id="timeline"`}, nil},
		{"/sessions/999", 404, []string{`class="error-page"`, `<h1>No session s999</h1>`, `may have been forgotten`, `href="/sessions">All sessions</a>`, `href="/static/app.css?v=`, `<nav`}, nil},
		{"/sessions/not-a-session", 404, []string{`<h1>No session not-a-session</h1>`}, nil},
		{"/nope/<b>x", 404, []string{`class="error-page"`, `There is no page at /nope/&lt;b&gt;x`, `<nav`}, []string{`Cannot GET`, `<b>x`}},
		// An id typed in the search box opens its row.
		// A session's forget names it by title and local time, and lists
		// only what goes.
		{"/forget/session/1", 200, []string{`Forget session s1?`, `<strong class="wrap">write notes please</strong>`, `notes-app · started <time`, `<li>1 prompt</li>`, `<li>4 tool calls</li>`}, []string{`<li>0 `, ` UTC`}},
		{"/search?q=%23s1", 200, []string{`id="timeline"`, `write notes please`}, []string{`name="q"`}},
		// Without its "#" an id-like word is searched for: "s3" is a word.
		{"/search?q=s1", 200, []string{`name="q"`}, []string{`id="timeline"`}},
		{"/search?q=%231", 200, []string{`id="timeline"`, `id="obs-1"`}, nil},
		{"/search?q=%2399999", 200, []string{`No matches`}, nil},
		{"/search", 200, []string{`<title>Search · mneme</title>`, `name="q"`}, []string{`id="results"`, `No matches`}},
		{"/search?q=notes", 200, []string{`<mark>notes</mark>`, `href="/sessions/1#obs-`}, nil},
		{"/search?q=hello+AND+fake", 200, []string{`<mark>hello</mark>`}, nil},
		{"/search?q=pwned", 200, []string{`<mark>pwned</mark>`, `&lt;script&gt;window.`}, []string{`<script>window`}},
		{"/search?q=notes&type=prompt", 200, []string{`<mark>notes</mark>`, `#prompt-`, `Prompt 1 of “write notes please”`}, []string{`#obs-`, `Prompt #1`}},
		// Words, not internals: importance in words, who summarized.
		{"/sessions/1", 200, []string{`>notable</span>`, `summarized without a model`}, []string{`title="importance"`, `by heuristic`, `ended: other`}},
		{"/search?q=notes&project=xss-project", 200, []string{`No matches`}, nil},
		{"/search?q=notes&from=2000-01-01&to=2000-01-02", 200, []string{`No matches`}, nil},
		{"/search?q=%22unclosed", 400, []string{`id="search-error"`, `quoted phrase`, `value="&#34;unclosed"`}, nil},
		{"/search?q=notes&from=yesterday", 400, []string{`from must be a date`}, nil},
		{"/search?q=notes&type=bogus", 400, []string{`type must be`}, nil},
		{"/stats", 200, []string{`<title>Stats · mneme</title>`, `id="chart-activity"`, `<svg class="chart-cols"`, `class="bar-fail"`, `Bash: 3`, `notes-app: 5`, `xss-project: 1`}, nil},
		{"/stats?days=7&project=notes-app", 200, []string{`Bash: 2`}, []string{`xss-project</td>`}},
		{"/stats?days=0", 400, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, body := getPage(t, srv, tt.path)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %.300s", status, tt.status, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("missing %q", w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(body, a) {
					t.Errorf("unexpected %q", a)
				}
			}
		})
	}
}

// TestNoInlineScriptOrStyle holds the pages to the CSP: scripts and styles
// only from files, no style= attributes, no inline handlers.
func TestNoInlineScriptOrStyle(t *testing.T) {
	t.Parallel()
	srv := seeded(t)
	// Attributes are looked for inside tags only: escaped stored content
	// (the XSS payload) has no '<' left.
	inline := regexp.MustCompile(`<script>|<script [^>]*>[^<]|<style|<[a-z][^>]*\s(style|on[a-z]+)=`)
	for _, path := range []string{"/", "/sessions", "/sessions/1", "/search?q=notes", "/stats"} {
		_, body := getPage(t, srv, path)
		// Stored content is escaped, so a match can only come from our markup.
		if m := inline.FindString(body); m != "" {
			t.Errorf("%s: inline script or style: %q", path, m)
		}
	}
}

func TestEventFragment(t *testing.T) {
	t.Parallel()
	srv := seeded(t)
	rendered := 0
	// Every event of the fixture renders as the same row the page shows.
	_, feed := getPage(t, srv, "/")
	// Summaries are written in the background: compare only the events the
	// page had when it was rendered.
	m := regexp.MustCompile(`data-last-event-id="(\d+)"`).FindStringSubmatch(feed)
	if m == nil {
		t.Fatal("feed has no data-last-event-id")
	}
	last, _ := strconv.ParseInt(m[1], 10, 64)
	for id := int64(1); id <= last; id++ {
		status, body := getPage(t, srv, fmt.Sprintf("/fragments/event/%d", id))
		if status != http.StatusOK {
			t.Fatalf("event %d: %d %s", id, status, body)
		}
		rendered++
		if strings.Contains(body, "<html") {
			t.Fatalf("event %d: a fragment must not carry the layout", id)
		}
		if !strings.Contains(feed, strings.TrimSpace(body)) {
			t.Errorf("event %d: fragment differs from the page's row:\n%s", id, body)
		}
	}
	if rendered < 8 {
		t.Fatalf("only %d events rendered", rendered)
	}
	cases := []struct {
		path   string
		status int
	}{
		{"/fragments/event/0", 400},
		{"/fragments/event/abc", 400},
		{"/fragments/event/99999", 404},
		{"/fragments/event/2?failures=1", 204},     // a prompt, hidden by an observation filter
		{"/fragments/event/2?failures=maybe", 400}, // the flag is read as /api/observations reads it
		{"/fragments/event/2?failures=true", 204},
		{"/fragments/event/2?project=other", 204},     // another project
		{"/fragments/event/2?project=notes-app", 200}, // its project
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			if status, body := getPage(t, srv, c.path); status != c.status {
				t.Errorf("%s: %d, want %d: %s", c.path, status, c.status, body)
			}
		})
	}
}

func TestFeedLoadMore(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for i := range 60 {
		srv.Hook(t, "post-tool-use", bashCall("many", fmt.Sprintf("toolu_%02d", i), fmt.Sprintf("echo row-%02d", i), "ok"))
	}
	_, page := getPage(t, srv, "/")
	if !strings.Contains(page, "echo row-59") || strings.Contains(page, "echo row-05`") {
		t.Fatalf("first page should hold the newest rows only")
	}
	if !strings.Contains(page, `data-fragment="/fragments/feed?offset=50"`) {
		t.Fatalf("no load-more link")
	}
	status, frag := getPage(t, srv, "/fragments/feed?offset=50")
	if status != 200 {
		t.Fatalf("fragment: %d", status)
	}
	// 61 events (a session start and 60 calls): 11 remain, none more.
	if n := strings.Count(frag, `class="row `); n != 11 {
		t.Errorf("next page has %d rows, want 11", n)
	}
	if !strings.Contains(frag, "echo row-00") || strings.Contains(frag, "Load more") {
		t.Errorf("last page should end the feed without another link")
	}
}

func TestStaticAssets(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for _, c := range []struct{ path, cache, ctype string }{
		{"/static/app.css?v=x", "immutable", "text/css"},
		{"/static/app.js", "no-cache", "javascript"},
		{"/static/theme.js?v=x", "immutable", "javascript"},
		{"/static/favicon.svg", "no-cache", "image/svg+xml"},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), c.cache) || !strings.Contains(resp.Header.Get("Content-Type"), c.ctype) {
			t.Errorf("%s: %d %q %q", c.path, resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("Content-Type"))
		}
	}
	if status, _ := srv.Get(t, "/static/nope.css"); status != 404 {
		t.Errorf("missing asset: %d", status)
	}
}

// TestStatusBanner: a problem the worker knows of is shown on every page.
func TestStatusBanner(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for _, path := range []string{"/", "/sessions", "/search", "/stats"} {
		if _, body := getPage(t, srv, path); strings.Contains(body, `data-kind="problem"`) || strings.Contains(body, `data-kind="quarantine"`) {
			t.Fatalf("%s: a banner without a problem", path)
		}
	}
	srv.Handler.Status = func() string { return "disk almost full <b>(98%)</b>" }
	for _, path := range []string{"/", "/sessions", "/search", "/stats"} {
		_, body := getPage(t, srv, path)
		if !strings.Contains(body, `role="alert"`) || !strings.Contains(body, "disk almost full &lt;b&gt;(98%)&lt;/b&gt;") {
			t.Errorf("%s: no escaped status banner", path)
		}
	}
}

// TestSearchPageSaysNewestFirst: when the words match more rows than a
// search ranks (SearchOptions.RankLimit), the page says its hits are the
// newest matches and how to have them ranked; a search it ranks says
// nothing of the kind.
func TestSearchPageSaysNewestFirst(t *testing.T) {
	t.Parallel()
	srv := seeded(t)
	_, ranked := getPage(t, srv, "/search?q=notes")
	if !strings.Contains(ranked, `id="results"`) || strings.Contains(ranked, `id="search-newest"`) {
		t.Fatalf("a ranked search: results %v, newest-first note %v", strings.Contains(ranked, `id="results"`), strings.Contains(ranked, `id="search-newest"`))
	}
	srv.Store.SearchOptions.RankLimit = 1
	status, body := getPage(t, srv, "/search?q=notes")
	if status != 200 || !strings.Contains(body, `id="search-newest"`) || !strings.Contains(body, "Newest first") {
		t.Fatalf("status %d; the page does not say its hits are the newest matches: %.400s", status, body)
	}
	if status, body := getPage(t, srv, "/search?q=zzznothing"); status != 200 || strings.Contains(body, `id="search-newest"`) {
		t.Errorf("no matches, yet the newest-first note (status %d)", status)
	}
}

// TestSearchBoxIDLookupFailure: a session id typed with its "#" that is
// not stored is searched for as words; a store that fails the lookup is
// a 500 with the error page, not a search that pretends nothing was
// there.
func TestSearchBoxIDLookupFailure(t *testing.T) {
	t.Parallel()
	srv := seeded(t)
	if status, body := getPage(t, srv, "/search?q=%23s999"); status != http.StatusOK || !strings.Contains(body, `name="q"`) || !strings.Contains(body, "No matches") {
		t.Errorf("#s999, not stored: %d %.300s", status, body)
	}
	// A row the store cannot read: the lookup fails, not "not found".
	// PostgreSQL's timestamp column does not take such a value.
	if pgtest.Backend() == "postgres" {
		t.Skip("a session row that cannot be read is made with SQLite's loose types only")
	}
	modelstest.Exec(t, srv.Store, `UPDATE sessions SET started_at = 'not a time' WHERE id = 1`)
	status, body := getPage(t, srv, "/search?q=%23s1")
	if status != http.StatusInternalServerError || !strings.Contains(body, `class="error-page"`) || strings.Contains(body, "No matches") {
		t.Errorf("#s1 with the store failing: %d %.500s", status, body)
	}
}

// TestNoEmptyClassAttributes: no page writes class="" (a class left out
// is no attribute at all).
func TestNoEmptyClassAttributes(t *testing.T) {
	t.Parallel()
	srv := seeded(t)
	for _, path := range []string{"/", "/sessions", "/sessions/1", "/sessions/2", "/search?q=notes", "/memory", "/stats", "/settings", "/import", "/forget/session/1"} {
		status, body := getPage(t, srv, path)
		if status != http.StatusOK {
			t.Errorf("%s: %d", path, status)
			continue
		}
		if i := strings.Index(body, `class=""`); i >= 0 {
			t.Errorf("%s: class=\"\" in …%s…", path, body[max(i-120, 0):min(i+60, len(body))])
		}
	}
}
