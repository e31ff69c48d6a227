package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestBrowserMemorySearch: in real Chromium, the Memory page's search is
// reached and used from the keyboard alone: tabbing from the filters
// reaches the search box, typing words and Enter shows the memories
// matching them with their kind (one in force, not the one it
// superseded, nor one that does not match) and no script ran from
// stored text; "Clear the search" goes back to the kinds' lists. It
// fits 400 px without scrolling sideways, in both themes (screenshots
// with MNEME_SCREENSHOTS).
func TestBrowserMemorySearch(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	ms := []models.Memory{
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryConstraint, Text: "Never run database migrations inside the request handler"},
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryDecision, Text: "Run the database migrations from a job at startup <img src=x onerror=alert(1)>"},
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryDecision, Text: "Run the database migrations by hand before a release"},
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryTodo, Text: "Add a benchmark for the cache warm-up"},
	}
	storeMemories(t, srv, ms, 2, 1)
	present := func(id int64) string {
		return fmt.Sprintf(`!!document.querySelector("#memory-search-list #mem-%d")`, id)
	}

	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/memory?project=memproj"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	// From the state filter, Tab reaches the search box.
	b.do(t, chromedp.Focus(`#memory-filters select[name="state"]`))
	b.do(t, chromedp.KeyEvent("\t"))
	if id := eval[string](t, b, `document.activeElement.id`); id != "memory-q" {
		t.Fatalf("Tab from the state filter focused %q, want the search box", id)
	}
	b.do(t, chromedp.KeyEvent("migrations\n"))
	b.waitAcross(t, "the matches", `!!document.getElementById("memory-search-list") && document.readyState === "complete"`, 20*time.Second)
	if !eval[bool](t, b, present(ms[0].ID)+" && "+present(ms[1].ID)) {
		t.Fatal("the memories in force matching the words are not listed")
	}
	if eval[bool](t, b, present(ms[2].ID)) || eval[bool](t, b, present(ms[3].ID)) {
		t.Error("a superseded memory, or one not matching, is listed")
	}
	if kind := eval[string](t, b, fmt.Sprintf(`document.querySelector("#mem-%d .badge-mem-constraint").textContent`, ms[0].ID)); kind != "constraint" {
		t.Errorf("the match shows kind %q", kind)
	}
	if v := eval[string](t, b, `document.getElementById("memory-q").value`); v != "migrations" {
		t.Errorf("the search box holds %q after the search", v)
	}
	if b.dialogs.Load() != 0 || eval[int](t, b, `document.querySelectorAll("#memory-search img").length`) != 0 {
		t.Error("a memory's text became markup")
	}
	shot(t, b, "memory-search.png")

	// 400 px: nothing wider than the page, in either theme.
	b.do(t, chromedp.EmulateViewport(400, 860), chromedp.Sleep(200*time.Millisecond))
	for _, theme := range []string{"light", "dark"} {
		b.do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.documentElement.setAttribute("data-theme", %q)`, theme)), chromedp.Sleep(200*time.Millisecond))
		if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 400 {
			t.Errorf("%s at 400 px: the page is %d px wide", theme, w)
		}
		// The date keeps the first line's right end only: the text's
		// first line ends before it, and the head keeps no column for
		// it, so the lines below run on beneath it.
		lines := eval[struct{ N, FirstRight, DateLeft, HeadRight float64 }](t, b, fmt.Sprintf(`(function(){var r=document.querySelector("#memory-search-list #mem-%d");
			var t=r.querySelector(".memory-text").getClientRects(), d=r.querySelector(".row-time").getBoundingClientRect(), h=r.querySelector(".row-head");
			return {N:t.length, FirstRight:t[0].right, DateLeft:d.left,
				HeadRight:h.getBoundingClientRect().right-parseFloat(getComputedStyle(h).paddingRight)};})()`, ms[1].ID))
		if lines.N < 2 || lines.FirstRight > lines.DateLeft+0.5 || lines.HeadRight <= lines.DateLeft {
			t.Errorf("%s at 400 px, the memory's text around its date: %+v; want 2+ lines, the first ending before the date, the head's lines reaching past where it starts", theme, lines)
		}
		shot(t, b, "memory-search-narrow-"+theme+".png")
	}
	b.do(t, chromedp.EmulateViewport(1366, 900))

	// None found, said; then back to the lists.
	b.do(t, chromedp.Navigate(srv.URL+"/memory?project=memproj&q=kubernetes"), chromedp.WaitVisible("#memory-search-empty"))
	b.do(t, chromedp.Focus("#memory-search-clear"), chromedp.KeyEvent("\n"))
	b.waitAcross(t, "the kinds' lists", `!!document.getElementById("memories") && !document.getElementById("memory-search") && document.readyState === "complete"`, 20*time.Second)
	if v := eval[string](t, b, `document.getElementById("memory-q").value`); v != "" {
		t.Errorf("the cleared search box holds %q", v)
	}
}
