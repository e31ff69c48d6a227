package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestBrowserMemory: the Memory page shows a project's memories by kind;
// pinning one through its form marks it pinned; a memory stated while
// the page is open arrives in its kind's list without a reload, and one
// retired elsewhere leaves the in-force list live.
func TestBrowserMemory(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	ms := []models.Memory{
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryConstraint, Text: "Never call the network from unit tests"},
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryDecision, Text: "Use BoltDB for the cache", Files: []string{"internal/cache/cache.go"}},
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryDecision, Text: "Use SQLite for the cache instead of BoltDB", Files: []string{"internal/cache/cache.go"}},
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryCause, Text: "The flaky test came from a shared temp dir"},
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryTodo, Text: "Add a benchmark for the cache warm-up"},
	}
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		for i := range ms {
			if _, err := tx.InsertMemory(&ms[i]); err != nil {
				return err
			}
		}
		if _, err := tx.EditMemory(ms[3].ID, "The flaky test came from a temp dir shared between parallel tests"); err != nil {
			return err
		}
		_, err := tx.SupersedeMemory(ms[1].ID, ms[2].ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	row := func(id int64) string { return fmt.Sprintf("mem-%d", id) }
	present := func(id int64) string { return fmt.Sprintf(`!!document.getElementById(%q)`, row(id)) }

	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/memory?project=memproj"))
	b.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	if !eval[bool](t, b, present(ms[0].ID)+" && "+present(ms[2].ID)) || eval[bool](t, b, present(ms[1].ID)) {
		t.Fatal("the in-force list lacks a memory, or shows the superseded one")
	}
	if got := eval[string](t, b, fmt.Sprintf(`document.getElementById(%q).closest(".memory-list").id`, row(ms[0].ID))); got != "mem-list-constraint" {
		t.Errorf("the constraint is in %q", got)
	}
	shot(t, b, "memory.png")

	// Pin, through the row's form (a POST with the CSRF token, then the page again).
	b.do(t, chromedp.Click(chromedp.CSS("#"+row(ms[2].ID)+" .mem-pin")), chromedp.WaitVisible(chromedp.CSS("#"+row(ms[2].ID)+" .badge-pin")))
	b.waitFor(t, "the live state", liveState+` === "live"`, 10*time.Second)
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`))

	// A memory stated now (MCP's remember) arrives live, in its kind's list.
	var fresh models.Memory
	status, body := srv.Post(t, "/api/memories", map[string]any{"project": "memproj", "kind": "constraint", "text": "Run gofmt before every commit", "source": "user"})
	if status != 200 {
		t.Fatalf("remember: %d %s", status, body)
	}
	if err := json.Unmarshal(body, &fresh); err != nil || fresh.ID == 0 {
		t.Fatalf("remember answered %s", body)
	}
	b.waitFor(t, "the new memory, live", fmt.Sprintf(`(function(){var r=document.getElementById(%q); return !!r && r.closest(".memory-list").id === "mem-list-constraint" && r.textContent.includes("Run gofmt before every commit");})()`, row(fresh.ID)), 10*time.Second)
	// Its forms work: the CSRF field was filled from the page.
	if tok := eval[string](t, b, fmt.Sprintf(`document.querySelector("#%s input[name=_csrf]").value`, row(fresh.ID))); tok == "" {
		t.Error("the live row's form has no CSRF token")
	}
	// Retired elsewhere: it leaves the in-force list.
	if status, body := srv.Post(t, fmt.Sprintf("/api/memories/%d", ms[0].ID), map[string]any{"action": "retire"}); status != 200 {
		t.Fatalf("retire: %d %s", status, body)
	}
	b.waitFor(t, "the retired memory to leave", "!"+present(ms[0].ID), 10*time.Second)
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Fatal("the page reloaded")
	}
	if text := eval[string](t, b, `document.getElementById("memories").textContent`); !strings.Contains(text, "pinned") {
		t.Errorf("the pinned mark is gone: %q", text)
	}
	shot(t, b, "memory-live.png")
}
