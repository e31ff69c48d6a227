package web_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestBrowserSearchModeToggle: in real Chromium, against a worker with a
// loopback fake embeddings endpoint. While embeddings are off the
// search page's mode toggle is shown disabled and says why (with the way
// to the settings), and the search runs by words. Once on, a question
// in plain words finds rows (words and meaning, the default); choosing
// "Words only" in the toggle searches again at once by words (nothing
// matches every word), "Meaning only" by meaning; the page says which ran.
func TestBrowserSearchModeToggle(t *testing.T) {
	parallelBrowser(t)
	fake := embedtest.New(64)
	defer fake.Close()
	srv := testutil.NewServer(t, testutil.FastEmbed)
	srv.Hook(t, "user-prompt-submit", prompt("mode-1", "p1", "users are logged out right after login"))
	srv.Hook(t, "post-tool-use", bashCall("mode-1", "toolu_mode_1", "./check.sh cookie", "POST /session returned 401 after the cookie change"))
	srv.Hook(t, "post-tool-use", bashCall("mode-1", "toolu_mode_2", "hugo build", "template for shortcode youtube not found"))
	const question = "why was the user logged out after the cookie change"
	search := srv.URL + "/search?" + url.Values{"q": {question}}.Encode()
	used := `(document.getElementById("search-mode-used") || {dataset: {}}).dataset.mode`
	results := `document.querySelectorAll("#results > li").length`

	b := newBrowser(t, 1280, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(search), chromedp.WaitReady("body"))
	if !eval[bool](t, b, `document.getElementById("search-mode").disabled`) {
		t.Error("while off, the mode toggle is not disabled")
	}
	off := eval[string](t, b, `(document.getElementById("search-mode-off") || {}).textContent || ""`)
	if !strings.Contains(off, "Search by meaning is off") || !eval[bool](t, b, `!!document.querySelector("#search-mode-off a[href='/settings#embeddings']")`) {
		t.Errorf("while off, no explanation with the way to the settings: %q", off)
	}
	if m := eval[string](t, b, used); m != "text" || eval[int](t, b, results) != 0 {
		t.Errorf("while off: ran %q with %d results, want text and none", m, eval[int](t, b, results))
	}

	srv.EnableEmbeddings(t, fake.URL, "m", 64)
	b.do(t, chromedp.Navigate(search), chromedp.WaitReady("body"))
	if eval[bool](t, b, `document.getElementById("search-mode").disabled`) || eval[string](t, b, used) != "hybrid" || eval[int](t, b, results) == 0 {
		t.Fatalf("once on: disabled %v, ran %q, %d results; want the toggle on, hybrid, results",
			eval[bool](t, b, `document.getElementById("search-mode").disabled`), eval[string](t, b, used), eval[int](t, b, results))
	}
	if !eval[bool](t, b, `document.querySelector("#results").textContent.includes("cookie change")`) {
		t.Error("hybrid does not find the tool call about the cookie change")
	}
	toggle := func(mode string) {
		t.Helper()
		b.do(t, chromedp.Evaluate[chromedp.Void](`(function(){var s=document.getElementById("search-mode"); s.value=`+quote(mode)+`; s.dispatchEvent(new Event("change", {bubbles: true}));})()`))
		// The page navigates: poll across it.
		b.waitAcross(t, "the search by "+mode, used+` === `+quote(mode)+` && location.search.includes("mode=`+mode+`") && document.readyState === "complete"`, 20*time.Second)
	}
	toggle("text")
	if n := eval[int](t, b, results); n != 0 || !eval[bool](t, b, `document.body.textContent.includes("No matches.")`) {
		t.Errorf("words only: %d results, want none (not every word matches)", n)
	}
	toggle("semantic")
	if n := eval[int](t, b, results); n == 0 {
		t.Error("meaning only: no results")
	}
	if v := eval[string](t, b, `document.getElementById("search-mode").value`); v != "semantic" {
		t.Errorf("the toggle shows %q after the search by meaning", v)
	}
}

func quote(s string) string { return `"` + s + `"` }
