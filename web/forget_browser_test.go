package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestBrowserForget: in one tab, a tool call is forgotten from its
// session's timeline through the confirmation page; the session page
// comes back without it, and the feed open in another tab drops it live,
// without a reload. Then the whole session goes the same way.
func TestBrowserForget(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	srv.Hook(t, "user-prompt-submit", prompt("forget-1", "p-f1", "look at the deploy script"))
	srv.Hook(t, "post-tool-use", bashCall("forget-1", "toolu_f1", "cat deploy.sh", "secret-ish deploy notes"))
	srv.Hook(t, "post-tool-use", bashCall("forget-1", "toolu_f2", "ls scripts", "deploy.sh"))
	srv.Hook(t, "user-prompt-submit", prompt("forget-2", "p-f2", "another session stays"))
	var obs struct {
		Items []models.Observation `json:"items"`
	}
	srv.GetJSON(t, "/api/observations", &obs)
	var victim, kept models.Observation
	for _, o := range obs.Items {
		switch {
		case strings.Contains(o.Title, "deploy.sh") && o.ToolName == "Bash" && strings.Contains(o.Title, "cat"):
			victim = o
		case strings.Contains(o.Title, "ls scripts"):
			kept = o
		}
	}
	if victim.ID == 0 || kept.ID == 0 {
		t.Fatalf("seeded observations not found: %+v", obs.Items)
	}
	victimRow, keptRow := fmt.Sprintf("obs-%d", victim.ID), fmt.Sprintf("obs-%d", kept.ID)
	present := func(id string) string { return fmt.Sprintf(`!!document.getElementById(%q)`, id) }

	feed := newBrowser(t, 1280, 800)
	feed.login(t, srv)
	feed.do(t, chromedp.Navigate(srv.URL+"/"))
	feed.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	feed.waitFor(t, "both rows in the feed", present(victimRow)+" && "+present(keptRow), 5*time.Second)
	feed.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))

	// A second tab of the same browser (the same login).
	tabCtx, cancelTab := chromedp.NewContext(feed.ctx)
	defer cancelTab()
	tab := &browser{ctx: tabCtx}
	tab.do(t, chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", srv.URL, victim.SessionID)))
	tab.waitFor(t, "the timeline", present(victimRow), 5*time.Second)
	tab.do(t, chromedp.Click(chromedp.CSS("#"+victimRow+" .row-forget")), chromedp.WaitVisible(chromedp.ID("forget-confirm")))
	if text := eval[string](t, tab, `document.getElementById("forget").innerText`); !strings.Contains(text, "cat deploy.sh") || !strings.Contains(text, "1 tool call") {
		t.Errorf("the confirmation page does not say what goes: %q", text)
	}
	shot(t, tab, "forget-confirm.png")
	if !eval[bool](t, feed, present(victimRow)) {
		t.Fatal("the row left the feed before the confirmation")
	}
	tab.do(t, chromedp.Click(chromedp.CSS("#forget-confirm")), chromedp.WaitVisible(chromedp.ID("page-notice")), chromedp.WaitReady(chromedp.ID("timeline")))
	if eval[bool](t, tab, present(victimRow)) || !eval[bool](t, tab, present(keptRow)) {
		t.Fatal("after the forget, the session page still shows the forgotten row, or lost the other")
	}
	if notice := eval[string](t, tab, `document.getElementById("page-notice").textContent`); !strings.Contains(notice, "1 tool call") {
		t.Errorf("notice %q", notice)
	}
	shot(t, tab, "forget-done.png")

	feed.waitFor(t, "the row to leave the feed live", "!"+present(victimRow), 10*time.Second)
	if !eval[bool](t, feed, present(keptRow)) || !eval[bool](t, feed, `window.__sameDocument === true`) {
		t.Fatal("the feed lost the other row, or reloaded")
	}
	shot(t, feed, "forget-feed-after.png")

	// The whole session, from its Forget… menu.
	tab.do(t, chromedp.Click(chromedp.CSS("#forget-menu > summary")), chromedp.Click(chromedp.CSS("#forget-session")),
		chromedp.WaitVisible(chromedp.ID("forget-confirm")))
	tab.do(t, chromedp.Click(chromedp.CSS("#forget-confirm")), chromedp.WaitVisible(chromedp.ID("page-notice")))
	if path := eval[string](t, tab, `location.pathname`); path != "/sessions" {
		t.Fatalf("after forgetting the session: at %s", path)
	}
	sessionRows := fmt.Sprintf(`document.querySelectorAll('#feed [data-session="%d"]').length`, victim.SessionID)
	feed.waitFor(t, "the session's rows to leave the feed live", sessionRows+" === 0", 10*time.Second)
	if !eval[bool](t, feed, `document.getElementById("feed").textContent.includes("another session stays")`) {
		t.Fatal("the other session's prompt left the feed")
	}
	if !eval[bool](t, feed, `window.__sameDocument === true`) {
		t.Fatal("the feed reloaded")
	}
	// A reload agrees.
	feed.do(t, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#feed > .row")))
	if n := eval[int](t, feed, sessionRows); n != 0 {
		t.Fatalf("after a reload the feed shows %d rows of the forgotten session", n)
	}
}
