package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// rowBox is where a memory row and its actions are, and whether the
// page scrolls sideways.
type rowBox struct {
	RowW, RowLeft       float64
	ActionsLeft         float64
	ActionsW            float64
	ActionLines         int // distinct tops of the action buttons
	Height              float64
	TextShown, FormOpen bool
	PageW, WindowW      int
}

const rowBoxJS = `(function(id){
	var r = document.getElementById(id), a = r.querySelector(".mem-actions"), rb = r.getBoundingClientRect(), ab = a.getBoundingClientRect();
	var tops = new Set([...a.querySelectorAll(".btn, .row-forget")].map(e => Math.round(e.getBoundingClientRect().top - ab.top)));
	return {RowW: rb.width, RowLeft: rb.left, ActionsLeft: ab.left - rb.left, ActionsW: ab.width, ActionLines: tops.size, Height: rb.height,
		TextShown: !r.querySelector(".memory-text").hidden && r.querySelector(".memory-text").offsetParent !== null,
		FormOpen: !r.querySelector(".mem-edit-form").hidden,
		PageW: document.documentElement.scrollWidth, WindowW: window.innerWidth};
})(%q)`

// TestBrowserMemoryEditCancelAndJump: at 1366 and 400 px, in both
// themes, Edit opens the row's editor in place of its text without a
// reload and without moving the row or its actions sideways; Cancel puts
// the text back as it was (what was typed dropped), the row its height
// again; Escape cancels too. The jump links at the top take the page to
// each kind's list, and the page never scrolls sideways.
func TestBrowserMemoryEditCancelAndJump(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	var ms []models.Memory
	for i, kind := range []string{models.MemoryConstraint, models.MemoryDecision, models.MemoryCause, models.MemoryTodo} {
		for j := range 6 {
			ms = append(ms, models.Memory{Project: "memproj", Source: models.SourceUser, Kind: kind,
				Text:  fmt.Sprintf("%s %d-%d: keep the importer's retries bounded so that a slow disk never stalls the worker for long", kind, i, j),
				Files: []string{"internal/transcript/run.go"}})
		}
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
	target := ms[7] // a decision
	id := fmt.Sprintf("mem-%d", target.ID)
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	for _, theme := range []string{"light", "dark"} {
		for _, width := range []int{1366, 400} {
			t.Run(fmt.Sprintf("%s %d", theme, width), func(t *testing.T) {
				b.do(t, chromedp.EmulateViewport(int64(width), 900),
					chromedp.Navigate(srv.URL+"/memory?project=memproj"),
					chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem("mneme-theme", %q)`, theme)),
					chromedp.Reload(), chromedp.WaitReady("#memories"))
				b.waitFor(t, "the row", fmt.Sprintf(`!!document.getElementById(%q)`, id), 10*time.Second)
				b.do(t,
					chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`),
					chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.getElementById(%q).scrollIntoView({block: "center"})`, id)))
				before := eval[rowBox](t, b, fmt.Sprintf(rowBoxJS, id))
				if !before.TextShown || before.FormOpen {
					t.Fatalf("before Edit: %+v", before)
				}
				b.do(t, chromedp.Click("#"+id+" .mem-edit-open"))
				b.waitFor(t, "the editor", fmt.Sprintf(`!document.querySelector("#%s .mem-edit-form").hidden`, id), 10*time.Second)
				open := eval[rowBox](t, b, fmt.Sprintf(rowBoxJS, id))
				if open.TextShown || !open.FormOpen {
					t.Errorf("Edit: %+v; want the editor in place of the text", open)
				}
				if open.RowW != before.RowW || open.RowLeft != before.RowLeft || open.ActionsLeft != before.ActionsLeft || open.ActionsW != before.ActionsW || open.ActionLines != before.ActionLines {
					t.Errorf("Edit moved the row or its actions: before %+v, open %+v", before, open)
				}
				if open.PageW > open.WindowW {
					t.Errorf("with the editor open the page is %d px in a %d px window", open.PageW, open.WindowW)
				}
				if got := eval[string](t, b, `document.activeElement.tagName`); got != "TEXTAREA" {
					t.Errorf("Edit gave the focus to %s, not the text", got)
				}
				shot(t, b, fmt.Sprintf("memory-edit-%s-%d.png", theme, width))
				// What is typed, then Cancel: gone, the row as it was.
				b.do(t, chromedp.SendKeys("#"+id+" textarea", " and never mind"),
					chromedp.Click("#"+id+" .mem-edit-cancel"))
				b.waitFor(t, "the text back", fmt.Sprintf(`document.querySelector("#%s .mem-edit-form").hidden`, id), 10*time.Second)
				after := eval[rowBox](t, b, fmt.Sprintf(rowBoxJS, id))
				if !after.TextShown || after.FormOpen || after.Height != before.Height || after.RowW != before.RowW {
					t.Errorf("Cancel: %+v; want the row as before %+v", after, before)
				}
				if v := eval[string](t, b, fmt.Sprintf(`document.querySelector("#%s textarea").value`, id)); strings.Contains(v, "never mind") {
					t.Errorf("Cancel kept what was typed: %q", v)
				}
				// Escape cancels as well.
				b.do(t, chromedp.Click("#"+id+" .mem-edit-open"))
				b.waitFor(t, "the editor again", fmt.Sprintf(`!document.querySelector("#%s .mem-edit-form").hidden`, id), 10*time.Second)
				b.do(t, chromedp.KeyEvent("\x1b"))
				b.waitFor(t, "Escape to cancel", fmt.Sprintf(`document.querySelector("#%s .mem-edit-form").hidden`, id), 10*time.Second)
				if !eval[bool](t, b, `window.__sameDocument === true`) {
					t.Error("Edit or Cancel reloaded the page")
				}
				// The jump links.
				links := eval[[]string](t, b, `[...document.querySelectorAll("#mem-jump a")].map(a => a.textContent.replace(/\s+/g, " ").trim())`)
				if strings.Join(links, ", ") != "Constraints 6, Decisions 6, Causes 6, Todos 6" {
					t.Errorf("jump links %q", links)
				}
				b.do(t, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`), chromedp.Click(`#mem-jump a[href="#mem-group-todo"]`))
				b.waitFor(t, "the todos in view", `(function(){var r = document.getElementById("mem-group-todo").getBoundingClientRect(); return location.hash === "#mem-group-todo" && r.top >= 0 && r.top < window.innerHeight / 2;})()`, 10*time.Second)
				if got := eval[rowBox](t, b, fmt.Sprintf(rowBoxJS, id)); got.PageW > got.WindowW {
					t.Errorf("the page is %d px in a %d px window", got.PageW, got.WindowW)
				}
				shot(t, b, fmt.Sprintf("memory-jump-%s-%d.png", theme, width))
			})
		}
	}
}
