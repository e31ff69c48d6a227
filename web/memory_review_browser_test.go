package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestBrowserMemoryReview: a teammate's proposed memory is listed for
// review above the memories in force, with who proposed it; Accept (the
// row's form) puts it in force, in its kind's list as the teammate's,
// and the review list is gone; As of a date lists what was in force then.
func TestBrowserMemoryReview(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	ms := []models.Memory{
		{Project: "memproj", Source: models.SourcePrompt, Kind: models.MemoryConstraint, Text: "Never call the network from unit tests",
			CreatedAt: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)},
		{Project: "memproj", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Use SQLite for the cache", Subject: "cache"},
		{Project: "memproj", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Make the cache shared between workers",
			Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed, Subject: "cache"},
	}
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		for i := range ms {
			if _, err := tx.InsertMemory(&ms[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/memory?project=memproj"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	review := fmt.Sprintf("review-%d", ms[2].ID)
	if who := eval[string](t, b, fmt.Sprintf(`document.querySelector("#%s .mem-voice").textContent`, review)); who != "bob" {
		t.Errorf("the proposal is by %q", who)
	}
	if eval[bool](t, b, fmt.Sprintf(`!!document.getElementById("mem-%d")`, ms[2].ID)) {
		t.Error("the proposal is among the memories in force")
	}
	shot(t, b, "memory-review.png")

	b.do(t, chromedp.Click(chromedp.CSS("#"+review+" .mem-accept")))
	b.waitAcross(t, "the accepted memory in force", fmt.Sprintf(`(function(){var r=document.getElementById("mem-%d");
		return document.readyState === "complete" && !!r && r.closest(".memory-list").id === "mem-list-decision" && r.querySelector(".mem-voice").textContent === "bob";})()`, ms[2].ID), 20*time.Second)
	if eval[bool](t, b, `!!document.getElementById("memory-review")`) {
		t.Error("the review list remains with nothing to review")
	}

	// As of the 3rd: the constraint alone.
	b.do(t, chromedp.Navigate(srv.URL+"/memory?project=memproj&as_of=2026-11-03"), chromedp.WaitVisible("#memory-as-of-note"))
	if n := eval[int](t, b, `document.querySelectorAll("#memories .memory-row").length`); n != 1 ||
		!eval[bool](t, b, fmt.Sprintf(`!!document.getElementById("mem-%d")`, ms[0].ID)) {
		t.Errorf("as of the 3rd: %d rows", n)
	}
	if v := eval[string](t, b, `document.getElementById("memory-as-of").value`); v != "2026-11-03" {
		t.Errorf("the As of field holds %q", v)
	}
	shot(t, b, "memory-as-of.png")
}
