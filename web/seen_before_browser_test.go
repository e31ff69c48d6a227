package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestSeenBeforeBrowser: in real Chromium, a failure seen in an earlier
// session arrives in the open feed marked "seen before", with links to
// the earlier failure and its fix; following the fix's link opens the
// earlier session at that row; the later session's page marks it too.
func TestSeenBeforeBrowser(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	failure := func(dur string) string {
		return "Exit code 1\n--- FAIL: TestLoadConfig (" + dur + ")\nFAIL\nFAIL\tgithub.com/acme/app/load\t" + dur + "\nFAIL"
	}
	srv.Hook(t, "post-tool-use-failure", bashFailure("seen-a", "toolu_seen_1", "go test ./load/...", failure("0.03s")))
	srv.Hook(t, "post-tool-use", bashCall("seen-a", "toolu_seen_2", "go test ./load/...", "ok  \tgithub.com/acme/app/load\t0.2s"))
	a, err := srv.Store.SessionByClaudeID(t.Context(), "seen-a")
	if err != nil {
		t.Fatal(err)
	}
	obs, err := srv.Store.ObservationsOfSession(t.Context(), a.ID)
	if err != nil || len(obs) != 2 {
		t.Fatalf("session a: %v, %d observations", err, len(obs))
	}

	b := newBrowser(t, 1280, 800)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	srv.Hook(t, "post-tool-use-failure", bashFailure("seen-b", "toolu_seen_3", "go test -count=1 ./load", failure("1.4s")))
	b.waitFor(t, "the recurring failure at the top, marked", `(function(){var r=document.querySelector("#feed > .row");`+
		` return !!r && r.classList.contains("row-fail") && !!r.querySelector(".badge-seen");})()`, 10*time.Second)
	links := eval[[]string](t, b, `Array.from(document.querySelector("#feed > .row .seen-before").querySelectorAll("a")).map(a => a.getAttribute("href"))`)
	want := []string{fmt.Sprintf("/sessions/%d#obs-%d", a.ID, obs[0].ID), fmt.Sprintf("/sessions/%d#obs-%d", a.ID, obs[1].ID)}
	if fmt.Sprint(links) != fmt.Sprint(want) {
		t.Fatalf("links %q, want %q", links, want)
	}
	b.do(t, chromedp.Click(chromedp.CSS("#feed > .row .seen-fix")), chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#timeline #obs-%d", obs[1].ID))))
	if path := eval[string](t, b, `location.pathname + location.hash`); path != want[1] {
		t.Errorf("the fix's link opened %s, want %s", path, want[1])
	}

	sb, err := srv.Store.SessionByClaudeID(t.Context(), "seen-b")
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", srv.URL, sb.ID)), chromedp.WaitVisible(chromedp.CSS("#timeline")))
	if n := eval[int](t, b, `document.querySelectorAll("#timeline .badge-seen").length`); n != 1 {
		t.Errorf("the later session's page shows %d seen-before marks, want 1", n)
	}
}
