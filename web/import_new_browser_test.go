package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestBrowserImportSaysWhatIsNew: the import page's final line tells the
// sessions it added from those already in memory, live and after a reload;
// importing the same transcripts again adds nothing and says so.
func TestBrowserImportSaysWhatIsNew(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t, testutil.WithTranscripts(t, 2, "n0"))
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	finish := func(want string) string {
		t.Helper()
		b.do(t, chromedp.Navigate(srv.URL+"/import"), chromedp.WaitReady("#import-form"))
		// The form's own POST, sent by fetch so that the wait below never
		// races the navigation a click would start.
		status, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`fetch("/import", {method: "POST",
			body: new URLSearchParams({_csrf: document.querySelector('input[name="_csrf"]').value}), redirect: "manual"})
			.then(r => String(r.status)).catch(e => String(e))`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("start: %s", status)
		b.do(t, chromedp.Navigate(srv.URL+"/import"), chromedp.WaitReady("#import-progress"))
		b.waitFor(t, want, `document.getElementById("import-progress") && document.getElementById("import-progress").dataset.running === "false" && `+
			`document.getElementById("import-text").textContent.includes(`+"`"+want+"`"+`)`, 60*time.Second)
		return eval[string](t, b, `document.getElementById("import-text").textContent`)
	}
	first := finish("New in memory: 2 sessions, 2 prompts, 8 tool calls; 0 sessions were already there.")
	if !strings.Contains(first, "Read 2 sessions, 2 prompts, 8 tool calls") {
		t.Errorf("first import says %q", first)
	}
	again := finish("New in memory: 0 sessions, 0 prompts, 0 tool calls; 2 sessions were already there.")
	if !strings.Contains(again, "Read 2 sessions") {
		t.Errorf("the second import says %q", again)
	}
	shot(t, b, "import-again.png")
	b.do(t, chromedp.Reload(), chromedp.WaitReady("#import-form"))
	if got := eval[string](t, b, `document.getElementById("import-text").textContent`); !strings.Contains(got, "2 sessions were already there") {
		t.Errorf("after a reload the page says %q", got)
	}
	b.do(t, chromedp.EmulateViewport(400, 900))
	if eval[bool](t, b, `document.documentElement.scrollWidth > window.innerWidth`) {
		t.Error("at 400 px the import page scrolls sideways")
	}
	shot(t, b, "import-again-400.png")
}
