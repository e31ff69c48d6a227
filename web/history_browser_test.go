package web_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// summariesBySession counts the feed's summary rows per session.
const summariesBySession = `(function(){var m={};document.querySelectorAll("#feed > .row-summary").forEach(function(r){
	var s=r.getAttribute("data-session");m[s]=(m[s]||0)+1;});return JSON.stringify(m);})()`

// newestFirst is a predicate: the feed's rows go from newest to oldest by
// their own time.
const newestFirst = `(function(){var t=[...document.querySelectorAll("#feed > .row .row-time")].map(function(e){return e.getAttribute("datetime");});
	for (var i=1;i<t.length;i++){if(t[i]>t[i-1])return false;}return t.length>0;})()`

// TestBrowserOneTurnOneCard: a session of one prompt shows one summary
// card, its turn's: live on an open feed, after a reload, and on the
// session page; no interim card, no session summary repeating it.
func TestBrowserOneTurnOneCard(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 20*time.Second)

	const sid = "one-card"
	srv.Hook(t, "user-prompt-submit", prompt(sid, "p-one", "rename the config loader"))
	srv.Hook(t, "post-tool-use", bashCall(sid, "toolu_one_1", "go build ./...", ""))
	srv.Hook(t, "stop", map[string]any{
		"session_id": sid, "transcript_path": "", "cwd": "/tmp/live-project", "hook_event_name": "Stop",
		"prompt_id": "p-one", "stop_hook_active": false, "last_assistant_message": "The config loader is renamed; the build passes.",
	})
	srv.Hook(t, "session-end", map[string]any{
		"session_id": sid, "transcript_path": "", "cwd": "/tmp/live-project", "hook_event_name": "SessionEnd", "reason": "prompt_input_exit",
	})
	b.waitFor(t, "the session's end and its turn summary", `!!document.querySelector("#feed .row-mark.mark-end") && !!document.querySelector("#feed > .row-summary")`, 60*time.Second)
	testutil.WaitJobs(t, srv.Store, 60*time.Second)
	// Anything the queue wrote has been announced by now; give the stream
	// its round trip (a row it would add arrives within it).
	srv.Hook(t, "post-tool-use", bashCall("other", "toolu_marker", "echo marker", ""))
	b.waitFor(t, "a later row", firstRowHas("echo marker"), 30*time.Second)
	if got := eval[string](t, b, summariesBySession); got != `{"1":1}` {
		t.Errorf("live feed: summary rows by session %s, want one for session 1", got)
	}
	if eval[bool](t, b, `!!document.querySelector("#feed .summary-final, #feed .summary-intermediate")`) {
		t.Error("live feed shows a session or interim summary for a one-turn session")
	}

	b.do(t, chromedp.Reload())
	b.waitFor(t, "the feed", `!!document.querySelector("#feed > .row-summary")`, 20*time.Second)
	if got := eval[string](t, b, summariesBySession); got != `{"1":1}` {
		t.Errorf("reloaded feed: summary rows by session %s, want one for session 1", got)
	}

	b.do(t, chromedp.Navigate(srv.URL+"/sessions/1"))
	b.waitFor(t, "the session page", `!!document.querySelector('[id^="summary-"]')`, 20*time.Second)
	if n := eval[int](t, b, `document.querySelectorAll('[id^="summary-"]').length`); n != 1 {
		t.Errorf("the session page shows %d summary cards, want 1", n)
	}
}

// TestBrowserImportedHistory: importing last week's transcripts while the
// feed is open puts their rows (prompts, tool calls, summaries, "Session
// ended") at their own time, under today's work, live and after a reload;
// each imported one-turn session has one summary card.
func TestBrowserImportedHistory(t *testing.T) {
	parallelBrowser(t)
	const sessions = 3
	srv := testutil.NewServer(t, testutil.WithTranscripts(t, sessions, "5e"))
	start := time.Now().UTC()
	srv.Hook(t, "user-prompt-submit", prompt("today", "p-today", "today-work: tighten the retry loop"))
	srv.Hook(t, "post-tool-use", bashCall("today", "toolu_today", "echo today-row", "ok"))

	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 20*time.Second)
	status, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`fetch("/import", {method: "POST",
		body: new URLSearchParams({_csrf: document.querySelector('meta[name="csrf-token"]').content}), redirect: "manual"})
		.then(r => String(r.status)).catch(e => String(e))`, chromedp.EvalAwaitPromise))
	if err != nil || (status != "303" && status != "0") { // a manual redirect reads as 0 (opaqueredirect)
		t.Fatalf("starting the import: %q, %v", status, err)
	}
	var st struct {
		State struct {
			Running bool `json:"running"`
			Stats   *struct {
				Sessions int `json:"sessions"`
			} `json:"stats"`
		} `json:"state"`
	}
	deadline := time.Now().Add(120 * time.Second)
	for {
		srv.GetJSON(t, "/api/import", &st)
		if !st.State.Running && st.State.Stats != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the import did not finish")
		}
		time.Sleep(100 * time.Millisecond)
	}
	testutil.WaitJobs(t, srv.Store, 60*time.Second)
	old := fmt.Sprintf(`[...document.querySelectorAll("#feed > .row .row-time")].filter(function(e){return e.getAttribute("datetime") < %q;}).length`,
		start.Format(time.RFC3339))
	// Every imported session has its start, prompt, tool calls, summary and end.
	b.waitFor(t, "the imported rows, live", fmt.Sprintf(`%s >= %d && document.querySelectorAll("#feed > .row-summary").length >= %d`, old, sessions*5, sessions), 60*time.Second)
	check := func(when string) {
		t.Helper()
		if !eval[bool](t, b, firstRowHas("today-row")) {
			t.Errorf("%s: the top row is not today's: %s", when, eval[string](t, b, `document.querySelector("#feed > .row").textContent`))
		}
		if !eval[bool](t, b, newestFirst) {
			t.Errorf("%s: the rows are not newest first by their own time", when)
		}
		// The imported summaries and ends carry their events' time.
		for _, sel := range []string{".row-summary", ".row-mark.mark-end"} {
			n := eval[int](t, b, fmt.Sprintf(`[...document.querySelectorAll("#feed > %s .row-time")].filter(function(e){return e.getAttribute("datetime") >= %q;}).length`, sel, start.Format(time.RFC3339)))
			if n != 0 {
				t.Errorf("%s: %d %s rows stamped at import time", when, n, sel)
			}
		}
		bySession := eval[string](t, b, summariesBySession)
		for i := 2; i < 2+sessions; i++ {
			if !strings.Contains(bySession, fmt.Sprintf(`"%d":1`, i)) {
				t.Errorf("%s: summary rows by session %s, want one per imported session", when, bySession)
				break
			}
		}
	}
	check("live")
	b.do(t, chromedp.Reload())
	b.waitFor(t, "the feed", `document.querySelectorAll("#feed > .row").length > 5`, 20*time.Second)
	check("reloaded")
}

// TestBrowserFirstRun: on an empty memory the feed says how to connect
// Claude Code (`mneme install`), how many transcripts Import would read,
// and links to it; the first live row replaces the welcome.
func TestBrowserFirstRun(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t, testutil.WithTranscripts(t, 4, "5f"))
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("first-run-install")))
	if text := eval[string](t, b, `document.getElementById("first-run-install").textContent`); !strings.Contains(text, "mneme install") || !strings.Contains(text, "mneme doctor") {
		t.Errorf("the first screen does not say to run mneme install, and mneme doctor when nothing arrives: %q", text)
	}
	if got := eval[string](t, b, `document.getElementById("first-run-count").textContent`); got != "4 transcripts" {
		t.Errorf("the first screen counts %q, want 4 transcripts", got)
	}
	if !eval[bool](t, b, `!!document.querySelector('#first-run-import a[href="/import"]')`) {
		t.Error("no link to Import")
	}
	b.waitFor(t, "the live state", liveState+` === "live"`, 20*time.Second)
	srv.Hook(t, "post-tool-use", bashCall("first", "toolu_first", "echo first-row", ""))
	b.waitFor(t, "the first row", firstRowHas("echo first-row")+` && !document.getElementById("first-run-install")`, 20*time.Second)

	// Once memory holds something, the welcome is gone for good.
	b.do(t, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#feed > .row")))
	if eval[bool](t, b, `!!document.querySelector(".first-run")`) {
		t.Error("the welcome is back on a memory that is not empty")
	}

	// A worker with no transcripts says so.
	empty := testutil.NewServer(t)
	b.login(t, empty)
	b.do(t, chromedp.Navigate(empty.URL+"/"), chromedp.WaitVisible(chromedp.ID("first-run-count")))
	if got := eval[string](t, b, `document.getElementById("first-run-count").textContent`); got != "no transcripts" {
		t.Errorf("with no transcripts the first screen says %q", got)
	}
}

// TestBrowserLoginPage: a stranger (or an expired link) gets the login page
// in the viewer's style, saying which command gives a fresh link; a wrong
// secret is not echoed back.
func TestBrowserLoginPage(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	b := newBrowser(t, 1366, 900)
	for _, path := range []string{"/", "/login?token=made-up-expired-link"} {
		b.do(t, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS(".login-card")))
		text := eval[string](t, b, `document.querySelector(".login-card").innerText`)
		if !strings.Contains(text, "mneme open") || !strings.Contains(text, "fresh login link") || !strings.Contains(text, "mneme doctor") {
			t.Errorf("%s: the login page does not say to run mneme open (and mneme doctor if that fails): %q", path, text)
		}
		// Styled: the card is a panel, the command a code block, the nav
		// (nothing a stranger can reach) hidden.
		if r := eval[string](t, b, `getComputedStyle(document.querySelector(".login-card")).borderTopLeftRadius`); r != "10px" {
			t.Errorf("%s: the login card is not styled (border radius %q)", path, r)
		}
		if eval[bool](t, b, `getComputedStyle(document.querySelector(".nav")).display !== "none"`) {
			t.Errorf("%s: the nav shows on the login page", path)
		}
		if !eval[bool](t, b, `getComputedStyle(document.querySelector(".login-command")).fontFamily.includes("mono")`) {
			t.Errorf("%s: the command is not set as code", path)
		}
	}
	if msg := eval[string](t, b, `document.getElementById("login-message").textContent`); !strings.Contains(msg, "expired") {
		t.Errorf("an expired link says %q", msg)
	}
	const guess = "wrong-guess-7f3a9c"
	b.do(t, chromedp.SendKeys("#login-secret", guess), chromedp.Submit("#login-form"))
	// The form posts and a new page loads: poll across the navigation.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		msg, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(document.getElementById("login-message")||{}).textContent || ""`))
		if err == nil && msg == "That is not the worker's secret." {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a wrong secret: message %q, %v", msg, err)
		}
	}
	if html := eval[string](t, b, `document.documentElement.outerHTML`); strings.Contains(html, guess) || strings.Contains(html, srv.Secret) {
		t.Error("the login page echoes a secret")
	}
	// Status codes and rules are as before: pages answer 401 to a stranger.
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / as a stranger: %d, want 401", resp.StatusCode)
	}
}

// TestBrowserKindFilter: the feed's kind filter reads as words, not ids,
// and shows only prompts or only summaries, live rows included.
func TestBrowserKindFilter(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	testutil.WaitJobs(t, srv.Store, 60*time.Second)
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`select[name="kind"]`)))
	labels := eval[string](t, b, `[...document.querySelectorAll('select[name="kind"] option')].map(function(o){return o.textContent.trim();}).join("|")`)
	for _, raw := range []string{"file_change", "excluded", "tool_use"} {
		if strings.Contains(labels, raw) {
			t.Errorf("the kind filter shows the raw id %s: %s", raw, labels)
		}
	}
	for _, want := range []string{"Prompts only", "Summaries only", "File changes", "Hidden by privacy rules"} {
		if !strings.Contains(labels, want) {
			t.Errorf("the kind filter lacks %q: %s", want, labels)
		}
	}

	b.do(t, chromedp.Navigate(srv.URL+"/?kind=prompt"), chromedp.WaitVisible(chromedp.CSS("#feed > .row")))
	if n := eval[int](t, b, `document.querySelectorAll("#feed > .row:not(.row-prompt)").length`); n != 0 {
		t.Errorf("prompts only: %d other rows", n)
	}
	b.waitFor(t, "the live state", liveState+` === "live"`, 20*time.Second)
	srv.Hook(t, "post-tool-use", bashCall("kinds", "toolu_k1", "echo hidden-by-kind", ""))
	srv.Hook(t, "user-prompt-submit", prompt("kinds", "p-k1", "kind-filter live prompt"))
	b.waitFor(t, "the live prompt", firstRowHas("kind-filter live prompt"), 20*time.Second)
	if strings.Contains(eval[string](t, b, `document.getElementById("feed").textContent`), "hidden-by-kind") {
		t.Error("a tool call arrived live on a prompts-only feed")
	}

	b.do(t, chromedp.Navigate(srv.URL+"/?kind=summary"), chromedp.WaitVisible(chromedp.CSS("#feed > .row")))
	if n := eval[int](t, b, `document.querySelectorAll("#feed > .row:not(.row-summary)").length`); n != 0 {
		t.Errorf("summaries only: %d other rows", n)
	}
	if got := eval[string](t, b, `document.querySelector('select[name="kind"]').selectedOptions[0].textContent`); got != "Summaries only" {
		t.Errorf("the filter shows %q selected", got)
	}
}

// TestBrowserSettingsIndexAndFirstError: the settings page opens on an
// index of its sections; a refused save brings the first bad field into
// view and focuses it, however far down the form it is.
func TestBrowserSettingsIndexAndFirstError(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	b := newBrowser(t, 1366, 768)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/settings"), chromedp.WaitVisible(chromedp.ID("settings-index")))
	targets := eval[string](t, b, `[...document.querySelectorAll("#settings-index a")].map(function(a){
		var id=a.getAttribute("href").slice(1); return id + ":" + !!document.getElementById(id);}).join(" ")`)
	if strings.Contains(targets, ":false") || !strings.Contains(targets, "summarizer:true") || !strings.Contains(targets, "privacy:true") {
		t.Errorf("section index: %s", targets)
	}
	if !eval[bool](t, b, `document.getElementById("settings-index").getBoundingClientRect().bottom < innerHeight`) {
		t.Error("the section index is not on the first screen")
	}
	const field = "f-injection-maxInjectTokens"
	b.do(t, chromedp.SetValue(chromedp.ID(field), "-5"), chromedp.Click(chromedp.ID("settings-save")),
		chromedp.WaitVisible(chromedp.ID("settings-errors")))
	b.waitFor(t, "the bad field focused", fmt.Sprintf(`document.activeElement && document.activeElement.id === %q`, field), 20*time.Second)
	if !eval[bool](t, b, fmt.Sprintf(`(function(){var r=document.getElementById(%q).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight;})()`, field)) {
		t.Error("the first bad field is not in view")
	}
}

// TestScreenshotsFirstRun saves the first screen of an empty memory and
// the login page, at 1366 and 400 px in both themes (see TestScreenshots;
// skipped without MNEME_SCREENSHOTS).
func TestScreenshotsFirstRun(t *testing.T) {
	dir := os.Getenv("MNEME_SCREENSHOTS")
	if dir == "" {
		t.Skip("set MNEME_SCREENSHOTS=<dir> to save screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := testutil.NewServer(t, testutil.WithTranscripts(t, 12, "5a"))
	for _, w := range []struct {
		name          string
		width, height int
	}{{"", 1366, 800}, {"-narrow", 400, 860}} {
		b := newBrowser(t, w.width, w.height)
		for _, theme := range []string{"light", "dark"} {
			b.do(t, chromedp.Navigate(srv.URL+"/login?token=expired-link"), chromedp.WaitVisible(chromedp.CSS(".login-card")),
				chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem("mneme-theme", %q)`, theme)))
			shoot(t, b, srv.URL+"/login?token=expired-link", ".login-card", filepath.Join(dir, "login"+w.name+"-"+theme+".png"))
		}
		b.login(t, srv)
		for _, theme := range []string{"light", "dark"} {
			b.do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem("mneme-theme", %q)`, theme)))
			shoot(t, b, srv.URL+"/", "#first-run-install", filepath.Join(dir, "first-run"+w.name+"-"+theme+".png"))
		}
	}
}
