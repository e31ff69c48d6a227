package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/transcript"
)

// TestBrowserImport: the import page shows what the transcripts hold per
// project and what is already in memory; its form starts the import, whose
// progress arrives live over /stream (import_progress) without a reload; a
// second start while it runs gets a clear message; the feed then shows the
// imported history.
func TestBrowserImport(t *testing.T) {
	parallelBrowser(t)
	const sessions = 240
	srv := testutil.NewServer(t, testutil.WithTranscripts(t, sessions, "b0"))
	srv.SeedFixture(t) // one session of the kind, captured live, is not in dir

	b := newBrowser(t, 1280, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/import"), chromedp.WaitReady("#import-form"))
	if got := eval[string](t, b, `document.getElementById("scan-sessions").textContent`); got != "240" {
		t.Errorf("the page says %s sessions to import, want 240", got)
	}
	if got := eval[string](t, b, `document.getElementById("scan-known").textContent`); got != "0" {
		t.Errorf("the page says %s sessions are already in memory, want 0", got)
	}
	if n := eval[int](t, b, `document.querySelectorAll("#import-projects tbody tr").length`); n != 8 {
		t.Errorf("%d project rows, want 8", n)
	}
	if !eval[bool](t, b, `document.querySelector('nav a[href="/import"]').classList.contains("active")`) {
		t.Error("the nav does not mark Import")
	}
	shot(t, b, "import-before.png")

	// While another import runs (`mneme import` holds the lock), a start
	// is refused with a message.
	unlock, err := transcript.Lock(srv.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, chromedp.Click(chromedp.CSS("#import-start")), chromedp.WaitReady("#import-message"))
	msg := eval[string](t, b, `document.getElementById("import-message").textContent`)
	if !strings.Contains(msg, "An import is already running") {
		t.Errorf("a start during another import says %q", msg)
	}
	shot(t, b, "import-refused.png")
	unlock()

	b.do(t, chromedp.Click(chromedp.CSS("#import-start")), chromedp.WaitReady(`#import-progress[data-running="true"]`))
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))
	// Progress arrives over the stream while the import runs.
	b.waitFor(t, "live progress", `(+document.getElementById("import-progress").dataset.events || 0) >= 1 && `+
		`document.getElementById("import-progress").dataset.running === "true"`, 60*time.Second)
	shot(t, b, "import-running.png")
	// A second start from the page while it runs is refused too (unless
	// it has just finished: then it starts an import that finds nothing
	// new, which is fine but proves nothing).
	second, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`fetch("/import", {method: "POST",
		body: new URLSearchParams({_csrf: document.querySelector('input[name="_csrf"]').value}), redirect: "manual"})
		.then(r => String(r.status)).catch(e => String(e))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(second, "409") {
		t.Logf("second start answered %q: the first import had finished", second)
	}
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))
	b.waitFor(t, "the import to finish", `document.getElementById("import-progress").dataset.running === "false" && `+
		`document.getElementById("import-text").textContent.includes("sessions")`, 120*time.Second)
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Error("the page reloaded instead of following the stream")
	}
	text := eval[string](t, b, `document.getElementById("import-text").textContent`)
	t.Logf("final: %s (after %s import_progress events)", text, eval[string](t, b, `document.getElementById("import-progress").dataset.events`))
	// Said as the page says it on a later visit: when, and how long ago.
	if at := eval[string](t, b, `(document.getElementById("import-last-at") || {}).dateTime || ""`); !strings.HasPrefix(text, "Last import, finished ") || !strings.Contains(text, "(just now): New in memory:") || at == "" {
		t.Errorf("the finished import is told as %q, its time %q", text, at)
	}
	shot(t, b, "import-done.png")

	c, err := srv.Store.Counts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Sessions != sessions+1 || c.Observations != 4*(sessions+1) {
		t.Errorf("stored %+v, want %d sessions and %d observations", c, sessions+1, 4*(sessions+1))
	}
	b.do(t, chromedp.Click(chromedp.CSS("#import-done a")), chromedp.WaitReady("#feed"))
	b.waitFor(t, "imported history in the feed", `document.querySelector("#feed").textContent.includes("write notes please")`, 10*time.Second)
	b.do(t, chromedp.Navigate(srv.URL+"/import"), chromedp.WaitReady("#import-form"))
	if got := eval[string](t, b, `document.getElementById("scan-known").textContent`); got != "240" {
		t.Errorf("after the import the page says %s sessions already in memory, want 240", got)
	}
}
