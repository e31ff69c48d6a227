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

// TestBrowserSessionsListFits: the session list of a team (a By column,
// git branches) with long project names, long titles and big counts fits
// a 1366 px laptop and a 1280 px window without scrolling sideways, every
// column inside its card, and at 400 px becomes cards that fit the
// screen, in both themes. Overflow is measured, not pixels compared.
func TestBrowserSessionsListFits(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	if status, body := srv.Do(t, "POST", "/api/tokens", `{"person":"alexandra-the-reviewer"}`, nil); status != 200 {
		t.Fatalf("token: %d %s", status, body)
	}
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		for i := range 6 {
			ref, err := tx.EnsureSession(&models.Session{
				ClaudeSessionID: fmt.Sprintf("fit-%d", i), Project: "payments-reconciliation-service-backend-" + strings.Repeat("x", i*4),
				Cwd: "/src/p", GitBranch: "feature/very-long-branch-name-for-the-ledger-rework-" + fmt.Sprint(i),
				CapturedBy: "alexandra-the-reviewer", StartedAt: time.Date(2026, 11, 20+i, 9, 30, 0, 0, time.UTC),
			})
			if err != nil {
				return err
			}
			if err := tx.SetSessionTitle(ref.ID, strings.Repeat("Reconcile the ledger exports with the bank statements ", 2)); err != nil {
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
	for _, theme := range []string{"light", "dark"} {
		for _, width := range []int{1366, 1280, 400} {
			t.Run(fmt.Sprintf("%s %d", theme, width), func(t *testing.T) {
				b.do(t, chromedp.EmulateViewport(int64(width), 900),
					chromedp.Navigate(srv.URL+"/sessions"),
					chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem("mneme-theme", %q)`, theme)),
					chromedp.Reload(), chromedp.WaitVisible("#sessions-body tr"))
				got := eval[struct {
					Page, Window, Table, Card int
					Cols                      []string
				}](t, b, `(function(){
					var table = document.querySelector(".sessions-table"), card = table.parentElement;
					return {Page: document.documentElement.scrollWidth, Window: window.innerWidth,
						Table: Math.ceil(table.getBoundingClientRect().width), Card: card.clientWidth,
						Cols: [...table.querySelectorAll("thead th")].filter(th => th.offsetParent !== null).map(th => th.textContent.trim())};
				})()`)
				t.Logf("%s %d: page %d of %d, table %d in a card of %d, columns %v", theme, width, got.Page, got.Window, got.Table, got.Card, got.Cols)
				if got.Page > got.Window {
					t.Errorf("the page scrolls sideways: %d px in a %d px window", got.Page, got.Window)
				}
				if got.Table > got.Card+1 {
					t.Errorf("the table is %d px wide in a %d px card", got.Table, got.Card)
				}
				if width > 760 && strings.Join(got.Cols, ",") != "Session,Project,By,Started,Activity,Status" {
					t.Errorf("columns %v", got.Cols)
				}
				// Every count is there, labelled, in each layout.
				labels := eval[string](t, b, `[...document.querySelectorAll("#sessions-body tr:first-child .activity-cell [data-label]")].map(e => e.textContent + " " + e.dataset.label + (getComputedStyle(e, "::after").content.includes(e.dataset.label) ? "" : " (label hidden)")).join(", ")`)
				if labels != "0 prompts, 0 tool calls, 0 failed" {
					t.Errorf("the activity cell says %q", labels)
				}
				if got.Page > got.Window {
					wide := eval[[]string](t, b, `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right))`)
					t.Logf("wider than the window: %v", wide)
				}
				shot(t, b, fmt.Sprintf("sessions-fit-%s-%d.png", theme, width))
			})
		}
	}
}
