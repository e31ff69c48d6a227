package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// chromiumPath finds the browser the tests drive: $CHROMIUM, Debian's
// /usr/bin/chromium, or chromium / google-chrome on $PATH.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium tab for a test, with a fresh profile.
type browser struct {
	ctx     context.Context
	dialogs atomic.Int32 // alert/confirm/prompt dialogs that opened
}

// parallelBrowser marks a browser test that could run beside another: each
// has its own worker, data directory, port and Chromium with its own
// profile. It runs them one at a time for now: with two at once, a full
// make test once saw Chromium die as it started, test after test, for
// about a minute (its zygote's pipe broken), which never happened one at a
// time; the gain was small on two cores anyway. Not for a test that sets
// the environment, restarts a worker on its old port or builds binaries.
func parallelBrowser(t *testing.T) {
	t.Helper()
}

// newBrowser starts Chromium for t; it skips the test when there is none.
func newBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make test-quick): no browser")
	}
	path := chromiumPath()
	if path == "" {
		t.Skip("chromium not found (install Debian's chromium or set $CHROMIUM): browser tests skipped")
	}
	// Chromium sometimes dies as it starts on a machine running many
	// processes at once (its zygote's pipe breaks: seen once in a full
	// make test, for about half a minute, never alone); a start that
	// fails is tried again with a fresh profile, waiting longer each time
	// (2, 4, 8, 16 s), and only the fifth failure fails the test.
	var b *browser
	for attempt := 1; ; attempt++ {
		ctx, cancel := startChromium(t, path, width, height)
		err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height)))
		if err == nil {
			t.Cleanup(cancel)
			b = &browser{ctx: ctx}
			break
		}
		cancel()
		if attempt == 5 {
			t.Fatalf("start chromium: %v", err)
		}
		t.Logf("start chromium (attempt %d of 5): %v", attempt, err)
		time.Sleep(time.Second << attempt)
	}
	ctx := b.ctx
	// A dialog would mean script ran that we did not write: count it and
	// close it so the page does not hang.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			b.dialogs.Add(1)
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return b
}

func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// startChromium starts a headless Chromium with a fresh profile and opens
// a tab; cancel closes both.
func startChromium(t *testing.T, path string, width, height int) (ctx context.Context, cancel func()) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	return ctx, func() {
		cancelTimeout()
		cancelTab()
		cancelAlloc()
	}
}

// eval evaluates a JavaScript expression to a T.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript predicate until it holds, failing after d,
// or after a minute when d is shorter: a wait on a loaded machine running
// two browser tests at once under the race detector is no failure, and a
// predicate that holds returns as soon as it does.
func (b *browser) waitFor(t *testing.T, what, predicate string, d time.Duration) {
	t.Helper()
	d = max(d, time.Minute)
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[chromedp.Void](predicate,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(d))); err != nil {
		html, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("feed") ? document.getElementById("feed").innerHTML.slice(0, 1500) : document.body.innerText.slice(0, 1500)`))
		t.Fatalf("waiting for %s: %v\npage: %s", what, err, html)
	}
}

// liveState is the live indicator's state: connecting, live or offline.
const liveState = `document.getElementById("live").getAttribute("data-state")`

// firstRowHas is a predicate: the newest feed row contains text.
func firstRowHas(text string) string {
	return fmt.Sprintf(`(function(){var r=document.querySelector("#feed > .row"); return !!r && r.textContent.includes(%q);})()`, text)
}

func bashCall(session, toolUseID, command, stdout string) map[string]any {
	return map[string]any{
		"session_id": session, "transcript_path": "", "cwd": "/tmp/live-project",
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": toolUseID,
		"tool_input":    map[string]any{"command": command},
		"tool_response": map[string]any{"stdout": stdout, "stderr": "", "interrupted": false},
	}
}

func bashFailure(session, toolUseID, command, errText string) map[string]any {
	return map[string]any{
		"session_id": session, "transcript_path": "", "cwd": "/tmp/live-project",
		"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": toolUseID,
		"tool_input": map[string]any{"command": command}, "error": errText, "is_interrupt": false,
	}
}

func prompt(session, id, text string) map[string]any {
	return map[string]any{
		"session_id": session, "transcript_path": "", "cwd": "/tmp/live-project",
		"hook_event_name": "UserPromptSubmit", "prompt_id": id, "prompt": text,
	}
}

// TestBrowserLiveFeed: rows ingested through the real hook endpoint appear
// at the top of an open feed without a reload — a tool call, a failure, a
// prompt — and an XSS payload in tool output stays text.
func TestBrowserLiveFeed(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	b := newBrowser(t, 1280, 800)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	// Marks this document: a reload would lose it.
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))

	srv.Hook(t, "post-tool-use", bashCall("live-1", "toolu_live_1", "echo live-row-one", "one"))
	b.waitFor(t, "the new tool call at the top", firstRowHas("echo live-row-one"), 5*time.Second)

	srv.Hook(t, "post-tool-use-failure", bashFailure("live-1", "toolu_live_2", "make broken-target", "exit status 2: no rule to make target"))
	b.waitFor(t, "the failure at the top", firstRowHas("make broken-target"), 5*time.Second)
	if !eval[bool](t, b, `document.querySelector("#feed > .row").classList.contains("row-fail")`) {
		t.Error("the failed tool call is not marked as a failure")
	}

	srv.Hook(t, "user-prompt-submit", prompt("live-1", "p-live-1", "please refactor the parser"))
	b.waitFor(t, "the prompt at the top", firstRowHas("please refactor the parser")+
		` && document.querySelector("#feed > .row").classList.contains("row-prompt")`, 5*time.Second)

	// A turn ends: the summarizer writes a turn summary in the background,
	// and it arrives as a row too.
	srv.Hook(t, "stop", map[string]any{
		"session_id": "live-1", "transcript_path": "", "cwd": "/tmp/live-project", "hook_event_name": "Stop",
		"prompt_id": "p-live-1", "stop_hook_active": false, "last_assistant_message": "The parser is refactored.",
	})
	b.waitFor(t, "the turn summary at the top", `document.querySelector("#feed > .row").classList.contains("row-summary")`+
		` && document.querySelector("#feed > .row").textContent.includes("please refactor the parser")`, 10*time.Second)

	xss := `<script>window.pwned=1;alert(1)</script><img id="xss" src="x" onerror="window.pwned=2;alert(2)">`
	srv.Hook(t, "post-tool-use", bashCall("live-1", "toolu_live_xss", "cat evil.html", xss))
	b.waitFor(t, "the XSS row", firstRowHas("cat evil.html"), 5*time.Second)
	b.do(t, chromedp.Click(chromedp.CSS("#feed > .row details.io > summary")))
	checkInert := func(when string) {
		t.Helper()
		time.Sleep(200 * time.Millisecond) // give a broken image time to fire onerror
		if eval[bool](t, b, `typeof window.pwned !== "undefined"`) || b.dialogs.Load() > 0 {
			t.Fatalf("%s: the payload ran script", when)
		}
		if eval[bool](t, b, `!!document.getElementById("xss") || document.querySelectorAll("#feed script").length > 0`) {
			t.Fatalf("%s: the payload became elements", when)
		}
		if !eval[bool](t, b, `[...document.querySelectorAll("#feed pre")].some(p => p.textContent.includes("onerror=\"window.pwned=2"))`) {
			t.Fatalf("%s: the payload is not shown as text", when)
		}
	}
	checkInert("live row")
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Fatal("the page reloaded; rows must arrive in place")
	}
	// The same rows, server-rendered.
	b.do(t, chromedp.Reload())
	b.waitFor(t, "the feed", `!!document.querySelector("#feed > .row")`, 5*time.Second)
	b.do(t, chromedp.Click(chromedp.CSS("#feed > .row details.io > summary")))
	checkInert("server-rendered row")
	if n := eval[int](t, b, `document.querySelectorAll("#feed > .row").length`); n < 12 {
		t.Errorf("feed has %d rows after reload, want the fixture's and the live ones", n)
	}
}

// TestBrowserReconnect: the worker restarts on the same port and data; the
// page notices, says after a few seconds that the worker stopped and how
// to start it, reconnects by itself, drops the banner, and shows what was
// ingested meanwhile.
func TestBrowserReconnect(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.NewServerIn(t, dir)
	srv.SeedFixture(t)
	port := srv.Port
	b := newBrowser(t, 1280, 800)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))

	if err := srv.Shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "the page to notice", liveState+` !== "live"`, 15*time.Second)
	b.waitFor(t, "the worker-down banner", `!document.getElementById("worker-down").hidden`, 20*time.Second)
	if text := eval[string](t, b, `document.getElementById("worker-down").textContent`); !strings.Contains(text, "mneme serve") || !strings.Contains(text, "stopped") {
		t.Errorf("the worker-down banner says %q", text)
	}

	srv2 := testutil.NewServerAt(t, dir, port)
	// Ingested right away: the page is still waiting to retry, so these
	// reach it through Last-Event-ID replay.
	srv2.Hook(t, "post-tool-use", bashCall("after-restart", "toolu_r1", "echo after-restart-one", "1"))
	srv2.Hook(t, "user-prompt-submit", prompt("after-restart", "p-r1", "what changed while you were down"))
	b.waitFor(t, "the live state again", liveState+` === "live"`, 30*time.Second)
	if !eval[bool](t, b, `document.getElementById("worker-down").hidden`) {
		t.Error("the worker-down banner stays after the reconnect")
	}
	b.waitFor(t, "the rows ingested meanwhile", firstRowHas("what changed while you were down")+
		` && document.getElementById("feed").textContent.includes("echo after-restart-one")`, 10*time.Second)

	// And it keeps following live events after the reconnect.
	srv2.Hook(t, "post-tool-use", bashCall("after-restart", "toolu_r2", "echo after-restart-two", "2"))
	b.waitFor(t, "a live row after the reconnect", firstRowHas("echo after-restart-two"), 5*time.Second)
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Fatal("the page reloaded instead of reconnecting")
	}
	if n := eval[int](t, b, `document.querySelectorAll("#feed [id='obs-`+"1"+`']").length`); n != 1 {
		t.Errorf("row obs-1 appears %d times after the replay", n)
	}
}

// TestBrowserSearchAndSession: search shows highlighted hits, a hit leads
// to the session, whose page shows the timeline and the export menu.
func TestBrowserSearchAndSession(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	b := newBrowser(t, 1280, 800)
	b.login(t, srv)
	b.do(t,
		chromedp.Navigate(srv.URL+"/search"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="q"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="q"]`), "hello\n"),
		chromedp.WaitVisible(chromedp.CSS("#results mark")),
	)
	marks := eval[[]string](t, b, `[...document.querySelectorAll("#results mark")].map(m => m.textContent.toLowerCase())`)
	if len(marks) == 0 || marks[0] != "hello" {
		t.Fatalf("highlighted %q, want hello", marks)
	}
	b.do(t,
		chromedp.Navigate(srv.URL+`/search?q=%22unclosed`),
		chromedp.WaitVisible(chromedp.ID("search-error")),
	)
	if msg := eval[string](t, b, `document.getElementById("search-error").textContent`); !strings.Contains(msg, "quoted phrase") {
		t.Errorf("bad syntax message: %q", msg)
	}

	b.do(t,
		chromedp.Navigate(srv.URL+"/search?q=hello"),
		chromedp.WaitVisible(chromedp.CSS("#results a.result-title")),
		chromedp.Click(chromedp.CSS("#results a.result-title")),
		chromedp.WaitVisible(chromedp.ID("timeline")),
	)
	if !eval[bool](t, b, `location.pathname === "/sessions/1" && location.hash.startsWith("#obs-")`) {
		t.Errorf("the hit led to %s", eval[string](t, b, `location.href`))
	}
	got := eval[map[string]any](t, b, `({
		prompt: document.querySelector("#turn-1 .row-prompt .prompt-text").textContent,
		calls: document.querySelectorAll("#turn-1 .row-obs").length,
		files: document.querySelector(".file-list").textContent,
	})`)
	if !strings.Contains(got["prompt"].(string), "write notes please") || got["calls"].(float64) != 4 || !strings.Contains(got["files"].(string), "notes.md") {
		t.Errorf("timeline: %v", got)
	}
	b.do(t,
		chromedp.Click(chromedp.CSS("#export-menu > summary")),
		chromedp.WaitVisible(chromedp.CSS(`#export-menu a[href$="format=md"]`)),
	)
}

// TestBrowserLoadMoreAndTheme: "load more" appends the next page in place;
// the theme switch cycles system → light → dark and survives a reload.
func TestBrowserLoadMoreAndTheme(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	for i := range 60 {
		srv.Hook(t, "post-tool-use", bashCall("many", fmt.Sprintf("toolu_%02d", i), fmt.Sprintf("echo row-%02d", i), "ok"))
	}
	b := newBrowser(t, 1280, 800)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#load-more a")))
	if n := eval[int](t, b, `document.querySelectorAll("#feed > .row").length`); n != 50 {
		t.Fatalf("first page has %d rows, want 50", n)
	}
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`), chromedp.Click(chromedp.CSS("#load-more a")))
	b.waitFor(t, "the second page", `document.querySelectorAll("#feed > .row").length === 61 && !document.querySelector("#load-more a")`, 5*time.Second)
	if !eval[bool](t, b, `window.__sameDocument === true && document.querySelector("#feed > .row:last-child").textContent.includes("Session started")`) {
		t.Error("load more should append the oldest rows in place")
	}

	theme := `(document.documentElement.getAttribute("data-theme") || "system") + "/" + (localStorage.getItem("mneme-theme") || "")`
	for _, want := range []string{"light/light", "dark/dark", "system/"} {
		b.do(t, chromedp.Click(chromedp.ID("theme-toggle")))
		if got := eval[string](t, b, theme); got != want {
			t.Fatalf("theme after a click: %s, want %s", got, want)
		}
	}
	b.do(t, chromedp.Click(chromedp.ID("theme-toggle")), chromedp.Click(chromedp.ID("theme-toggle")), chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("feed")))
	if got := eval[string](t, b, theme); got != "dark/dark" {
		t.Errorf("theme after reload: %s, want dark/dark", got)
	}
	bg := eval[string](t, b, `getComputedStyle(document.body).backgroundColor`)
	if bg != "rgb(17, 19, 23)" {
		t.Errorf("dark theme background %s", bg)
	}
}

// TestBrowserFilteredLiveFeed: with "failures only", live rows that do not
// match the filter stay out (the server answers their fragment with 204).
func TestBrowserFilteredLiveFeed(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	b := newBrowser(t, 1280, 800)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/?failures=1"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	srv.Hook(t, "post-tool-use", bashCall("filtered", "toolu_f1", "echo filtered-success", "ok"))
	srv.Hook(t, "user-prompt-submit", prompt("filtered", "p-f1", "a prompt the filter hides"))
	srv.Hook(t, "post-tool-use-failure", bashFailure("filtered", "toolu_f2", "make filtered-failure", "exit status 2"))
	b.waitFor(t, "the failure", firstRowHas("make filtered-failure"), 5*time.Second)
	// The rows' own text: the failure's link to its session shows the
	// session's title, which is the prompt the filter hides.
	if text := eval[string](t, b, `[...document.querySelectorAll("#feed .row-title, #feed .prompt-text")].map(e => e.textContent).join("\n")`); strings.Contains(text, "filtered-success") || strings.Contains(text, "the filter hides") {
		t.Errorf("rows outside the filter arrived live")
	}
	if n := eval[int](t, b, `document.querySelectorAll("#feed > .row:not(.row-fail)").length`); n != 0 {
		t.Errorf("%d rows that are not failures", n)
	}
}

// login logs the browser in to srv through a one-time login link, as
// `mneme open` does: the login cookie then goes with every page. The link
// goes on to the login page, not the feed: a feed page left for another
// keeps its stream open on the worker until the next keep-alive write (up
// to 15 s), which holds up a Shutdown the test may do.
func (b *browser) login(t *testing.T, srv *testutil.Server) {
	t.Helper()
	b.do(t, chromedp.Navigate(srv.LoginURL(t, "/login")), chromedp.WaitReady("body"))
}
