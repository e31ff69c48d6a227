package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// The waits of these tests are generous: a loaded 2-core machine runs
// Chromium, the worker and the summarizer at once. They poll; none sleeps.
const storyWait = 30 * time.Second

// sessionID is the database id of the session Claude Code calls claudeID.
func sessionID(t *testing.T, srv *testutil.Server, claudeID string) int64 {
	t.Helper()
	var s struct {
		Session struct {
			ID int64 `json:"id"`
		} `json:"session"`
	}
	srv.GetJSON(t, "/api/sessions/"+claudeID, &s)
	if s.Session.ID == 0 {
		t.Fatalf("no session %s", claudeID)
	}
	return s.Session.ID
}

func sessionEnd(session string) map[string]any {
	return map[string]any{"session_id": session, "transcript_path": "", "cwd": "/tmp/live-project", "hook_event_name": "SessionEnd", "reason": "other"}
}

func stop(session, promptID, answer string) map[string]any {
	return map[string]any{
		"session_id": session, "transcript_path": "", "cwd": "/tmp/live-project", "hook_event_name": "Stop",
		"prompt_id": promptID, "stop_hook_active": false, "last_assistant_message": answer,
	}
}

// waitAcross is waitFor across a navigation (a form's submission): a
// poll the navigation cuts short is polled again, until d has passed.
func (b *browser) waitAcross(t *testing.T, what, predicate string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](predicate))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if err := chromedp.Do(b.ctx, chromedp.Sleep(100*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
}

// js quotes s as a JavaScript string.
func js(s string) string { return fmt.Sprintf("%q", s) }

// TestBrowserSessionTitles: a session is named by its first prompt in the
// session list, its page's header and title, the feed's links to it and
// search results; no listed session has a branch, so the Branch column is
// not there. A title typed in the page's rename form replaces it there,
// passes the redaction rules, and outlives the summary that comes later.
func TestBrowserSessionTitles(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	srv.Hook(t, "user-prompt-submit", prompt("titled-1", "p-t1", "Make the importer skip broken transcripts\nand say how many it skipped."))
	srv.Hook(t, "post-tool-use", bashCall("titled-1", "toolu_t1", "go test ./internal/transcript/", "ok"))
	id := sessionID(t, srv, "titled-1")
	const want = "Make the importer skip broken transcripts"
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)

	b.do(t, chromedp.Navigate(srv.URL+"/sessions"))
	b.waitFor(t, "the titled row", fmt.Sprintf(`(function(){var r=document.getElementById("session-row-%d"); return !!r && r.querySelector(".title-text").textContent === %s;})()`, id, js(want)), storyWait)
	if heads := eval[string](t, b, `[...document.querySelectorAll("#sessions thead th")].map(th => th.textContent.trim()).join("|")`); strings.Contains(heads, "Branch") {
		t.Errorf("the Branch column shows with no branch known: %s", heads)
	}
	if !eval[bool](t, b, `[...document.querySelectorAll("#sessions .title-text")].every(e => e.textContent.trim() !== "")`) {
		t.Error("a listed session has an empty title")
	}

	b.do(t, chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", srv.URL, id)))
	b.waitFor(t, "the header", `!!document.querySelector("#session-head h1")`, storyWait)
	if h1 := eval[string](t, b, `document.querySelector("#session-head h1 .title-text").textContent`); h1 != want {
		t.Errorf("header title %q, want %q", h1, want)
	}
	if title := eval[string](t, b, `document.title`); !strings.HasPrefix(title, want) {
		t.Errorf("document title %q", title)
	}

	b.do(t, chromedp.Navigate(srv.URL+"/"))
	b.waitFor(t, "the feed's link by title", fmt.Sprintf(`[...document.querySelectorAll("#feed a.ctx-session")].some(a => a.getAttribute("href") === "/sessions/%d" && a.textContent.includes(%s))`, id, js(want)), storyWait)

	b.do(t, chromedp.Navigate(srv.URL+"/search?q=importer"))
	b.waitFor(t, "the search hit's link by title", fmt.Sprintf(`[...document.querySelectorAll("#results a.ctx-session")].some(a => a.getAttribute("href") === "/sessions/%d" && a.textContent.includes(%s))`, id, js(want)), storyWait)

	// Rename, with a secret in the title: stored redacted.
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	b.do(t,
		chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", srv.URL, id)),
		chromedp.WaitVisible(chromedp.CSS("#rename > summary")),
		chromedp.Click(chromedp.CSS("#rename > summary")),
		chromedp.WaitVisible(chromedp.ID("title-input")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("title-input").value = ""`),
		chromedp.SendKeys(chromedp.ID("title-input"), "Importer: skip broken transcripts "+secret),
		chromedp.Submit(chromedp.ID("title-input")),
	)
	b.waitAcross(t, "the new title", `(function(){var h=document.querySelector("#session-head h1 .title-text"); return !!h && h.textContent.startsWith("Importer: skip broken transcripts");})()`, storyWait)
	h1 := eval[string](t, b, `document.querySelector("#session-head h1 .title-text").textContent`)
	if strings.Contains(h1, secret) || !strings.Contains(h1, "[REDACTED") {
		t.Errorf("the edited title is not redacted: %q", h1)
	}
	// The turn's summary arrives (it would name the session) and the page
	// hears of it live; the user's title stays.
	srv.Hook(t, "stop", stop("titled-1", "p-t1", "The importer now skips broken transcripts."))
	b.waitFor(t, "the summary in the story", `!!document.querySelector("#story-outcome")`, storyWait)
	if got := eval[string](t, b, `document.querySelector("#session-head h1 .title-text").textContent`); got != h1 {
		t.Errorf("after the summary the title is %q, want the user's %q", got, h1)
	}
	b.do(t, chromedp.Navigate(srv.URL+"/sessions"))
	b.waitFor(t, "the list shows the user's title", fmt.Sprintf(`document.querySelector("#session-row-%d .title-text").textContent === %s`, id, js(h1)), storyWait)
}

// TestBrowserSessionStoryFirst: a session's page opens with what
// happened — the request, the outcome, the failure and whether it was
// fixed, the files touched — and only then the timeline.
func TestBrowserSessionStoryFirst(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	const s = "story-1"
	srv.Hook(t, "user-prompt-submit", prompt(s, "p-s1", "The store tests fail when migrations run twice. Make Migrate idempotent."))
	srv.Hook(t, "post-tool-use-failure", bashFailure(s, "toolu_s1", "go test ./internal/store/...", "Exit code 1\n--- FAIL: TestMigrateTwice\n    migrate_test.go:41: table users already exists\nFAIL"))
	srv.Hook(t, "post-tool-use", map[string]any{
		"session_id": s, "transcript_path": "", "cwd": "/tmp/live-project", "hook_event_name": "PostToolUse", "prompt_id": "p-s1",
		"tool_name": "Edit", "tool_use_id": "toolu_s2",
		"tool_input":    map[string]any{"file_path": "/tmp/live-project/internal/store/migrate.go", "old_string": "CREATE TABLE users", "new_string": "CREATE TABLE IF NOT EXISTS users"},
		"tool_response": map[string]any{"filePath": "/tmp/live-project/internal/store/migrate.go", "oldString": "CREATE TABLE users", "newString": "CREATE TABLE IF NOT EXISTS users"},
	})
	srv.Hook(t, "post-tool-use", bashCall(s, "toolu_s3", "go test ./internal/store/...", "ok  \tstore\t0.2s"))
	srv.Hook(t, "stop", stop(s, "p-s1", "Migrate now uses CREATE TABLE IF NOT EXISTS; the store tests pass."))
	id := sessionID(t, srv, s)
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", srv.URL, id)))
	// The summary is written in the background; the open page gets it live.
	b.waitFor(t, "the story with its outcome", `!!document.querySelector("#story #story-outcome")`, storyWait)
	got := eval[map[string]any](t, b, `({
		storyFirst: !!(document.getElementById("story").compareDocumentPosition(document.getElementById("timeline")) & Node.DOCUMENT_POSITION_FOLLOWING),
		request: document.querySelector("#story-request").textContent,
		outcome: document.querySelector("#story-outcome").textContent,
		failures: document.querySelector("#story-failures").textContent,
		fixed: document.querySelectorAll("#story-failures li.fixed").length,
		files: document.querySelector("#story-files").textContent,
	})`)
	if got["storyFirst"] != true {
		t.Error("the timeline comes before the story")
	}
	if !strings.Contains(got["request"].(string), "Make Migrate idempotent") {
		t.Errorf("request: %q", got["request"])
	}
	if !strings.Contains(got["outcome"].(string), "migrate.go") {
		t.Errorf("outcome: %q", got["outcome"])
	}
	if !strings.Contains(got["failures"].(string), "go test ./internal/store/...") || got["fixed"].(float64) != 1 {
		t.Errorf("failures: %q (%v fixed)", got["failures"], got["fixed"])
	}
	if !strings.Contains(got["files"].(string), "migrate.go") {
		t.Errorf("files touched: %q", got["files"])
	}
	// The session summary is told in the story, not again under the
	// timeline.
	if n := eval[int](t, b, `document.querySelectorAll("#timeline > .summary-final").length`); n != 0 {
		t.Errorf("%d session summaries repeated under the timeline", n)
	}
}

// TestBrowserLiveSessionPage: an open page of an active session shows a
// new tool call in its turn, a new prompt as a new turn, and its counts
// and status (active → completed) change, all without a reload; the live
// dot says live.
func TestBrowserLiveSessionPage(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	const s = "live-page"
	srv.Hook(t, "user-prompt-submit", prompt(s, "p-l1", "Tidy the parser"))
	srv.Hook(t, "post-tool-use", bashCall(s, "toolu_l1", "echo first-call", "1"))
	id := sessionID(t, srv, s)
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", srv.URL, id)))
	b.waitFor(t, "the live state", liveState+` === "live"`, storyWait)
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))
	count := func(which string) string {
		return fmt.Sprintf(`document.querySelector('#session-facts [data-count=%q]').textContent`, which)
	}
	if got := eval[string](t, b, count("tool-calls")); got != "1 tool call" {
		t.Fatalf("before: %q", got)
	}

	srv.Hook(t, "post-tool-use", bashCall(s, "toolu_l2", "echo second-call", "2"))
	b.waitFor(t, "the tool call in its turn", `[...document.querySelectorAll("#turn-1 .turn-body > .row-obs")].some(r => r.textContent.includes("echo second-call"))`, storyWait)
	b.waitFor(t, "the count", count("tool-calls")+` === "2 tool calls"`, storyWait)

	srv.Hook(t, "post-tool-use-failure", bashFailure(s, "toolu_l3", "make lint", "exit status 2"))
	b.waitFor(t, "the failure", `!!document.querySelector("#turn-1 .turn-body > .row-fail") && `+count("failures")+` === "1 failure"`, storyWait)

	srv.Hook(t, "user-prompt-submit", prompt(s, "p-l2", "Now the lexer"))
	b.waitFor(t, "the second turn", `(function(){var t=document.getElementById("turn-2"); return !!t && t.querySelector(".prompt-text").textContent.includes("Now the lexer") && t.previousElementSibling === document.getElementById("turn-1");})()`, storyWait)

	if st := eval[string](t, b, `document.getElementById("session-status").textContent`); st != "active" {
		t.Fatalf("status before the end: %q", st)
	}
	srv.Hook(t, "session-end", sessionEnd(s))
	b.waitFor(t, "the status", `document.getElementById("session-status").textContent === "completed"`, storyWait)
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Fatal("the page reloaded; it must change in place")
	}
	if n := eval[int](t, b, `document.querySelectorAll("#obs-1, [id='obs-1']").length`); n != 1 {
		t.Errorf("the first call shows %d times", n)
	}
}

// TestBrowserLiveSessionsList: an open session list adds a new session
// at the top, by its title, and its counts and status change in place.
func TestBrowserLiveSessionsList(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/sessions"))
	b.waitFor(t, "the live state", liveState+` === "live"`, storyWait)
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))
	before := eval[int](t, b, `document.querySelectorAll("#sessions-body > tr").length`)

	const s = "brand-new"
	srv.Hook(t, "user-prompt-submit", prompt(s, "p-n1", "Add a dark theme to the charts"))
	id := sessionID(t, srv, s)
	row := fmt.Sprintf(`document.getElementById("session-row-%d")`, id)
	b.waitFor(t, "the new session on top", fmt.Sprintf(`(function(){var r=%s; return !!r && r === document.querySelector("#sessions-body > tr") && r.textContent.includes("Add a dark theme to the charts");})()`, row), storyWait)
	b.waitFor(t, "its prompt count", row+`.querySelector('[data-count="prompts"]').textContent === "1"`, storyWait)

	srv.Hook(t, "post-tool-use", bashCall(s, "toolu_n1", "echo charts", "ok"))
	b.waitFor(t, "its tool-call count", row+`.querySelector('[data-count="tool-calls"]').textContent === "1"`, storyWait)
	srv.Hook(t, "session-end", sessionEnd(s))
	b.waitFor(t, "its status", row+`.getAttribute("data-status") === "completed" && `+row+`.querySelector(".pill").textContent === "completed"`, storyWait)

	if n := eval[int](t, b, `document.querySelectorAll("#sessions-body > tr").length`); n != before+1 {
		t.Errorf("%d rows, want %d", n, before+1)
	}
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Fatal("the page reloaded; rows must change in place")
	}
}
