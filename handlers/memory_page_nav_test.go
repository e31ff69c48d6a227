package handlers_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// nextOf is the value of the first next field of a Memory page.
func nextOf(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`name="next" value="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no next field on the page")
	}
	return html.UnescapeString(m[1])
}

// TestMemoryActionsReturnToTheirView: a row's action (pin, retire,
// reinstate, edit) and its forget go back to the view the row was on
// (project, state), not to the memories in force; a next that is not a
// Memory page of this site is ignored.
func TestMemoryActionsReturnToTheirView(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	_, ms := memorySeed(t, srv)
	c := srv.LoggedIn(t)
	noRedirect := *c
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	superseded := ms[2]

	_, body, tok := memGet(t, c, srv, "/memory?project=memproj&state=superseded")
	next := nextOf(t, body)
	if next != "/memory?project=memproj&state=superseded" {
		t.Fatalf("the rows' next is %q", next)
	}
	row := fmt.Sprintf("#mem-%d", superseded.ID)
	for _, action := range []url.Values{{"action": {"pin"}}, {"action": {"unpin"}}, {"action": {"edit"}, "text": {"Use BoltDB (edited)"}}} {
		action.Set("_csrf", tok)
		action.Set("next", next)
		resp := memPost(t, &noRedirect, srv, fmt.Sprintf("/memory/%d", superseded.ID), action)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != next+row {
			t.Errorf("%s from the superseded view: %d to %q, want %q", action.Get("action"), resp.StatusCode, loc, next+row)
		}
	}
	// Retire from the view of all states: back there.
	all := "/memory?project=memproj&state=all"
	resp := memPost(t, &noRedirect, srv, fmt.Sprintf("/memory/%d", ms[1].ID), url.Values{"_csrf": {tok}, "action": {"retire"}, "next": {all}})
	if loc := resp.Header.Get("Location"); loc != all+fmt.Sprintf("#mem-%d", ms[1].ID) {
		t.Errorf("retire from all: to %q", loc)
	}
	if m, _ := memoryNow(t, srv, ms[1].ID); m.State != models.MemoryRetired {
		t.Errorf("not retired: %+v", m)
	}
	// A next elsewhere, off-site or malformed: the memory's project in force.
	for _, bad := range []string{"https://evil.example/memory?x", "//evil.example/memory", "/sessions", "/\\evil.example", "/memoryx?project=a",
		"/memory?project=memproj#x", "javascript:alert(1)", ""} {
		resp := memPost(t, &noRedirect, srv, fmt.Sprintf("/memory/%d", ms[1].ID), url.Values{"_csrf": {tok}, "action": {"reinstate"}, "next": {bad}})
		if loc := resp.Header.Get("Location"); loc != fmt.Sprintf("/memory?project=memproj#mem-%d", ms[1].ID) {
			t.Errorf("next %q: to %q", bad, loc)
		}
	}
	// Forget from the superseded view comes back to it, saying so.
	_, body, tok = memGet(t, c, srv, "/memory?project=memproj&state=superseded")
	link := regexp.MustCompile(`href="(/forget/memory/\d+\?next=[^"]+)"`).FindStringSubmatch(body)
	if link == nil {
		t.Fatal("no forget link with next")
	}
	resp = memPost(t, &noRedirect, srv, html.UnescapeString(link[1]), url.Values{"_csrf": {tok}})
	if loc := resp.Header.Get("Location"); loc != "/memory?project=memproj&state=superseded&forgotten=0.0.0.0.1" {
		t.Errorf("forget from the superseded view: to %q", loc)
	}
}

// TestMemoryPagePages: a kind with more rows than a page holds says how
// many there are and how many more, and pages through them; the other
// kinds' pages and the state are kept; actions come back to the page.
func TestMemoryPagePages(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const n = 450
	err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		for i := range n {
			m := models.Memory{Project: "bulk", Source: models.SourceUser, Kind: models.MemoryDecision, Text: fmt.Sprintf("decision number %03d", i)}
			if _, err := tx.InsertMemory(&m); err != nil {
				return err
			}
		}
		m := models.Memory{Project: "bulk", Source: models.SourceUser, Kind: models.MemoryTodo, Text: "the one todo"}
		_, err := tx.InsertMemory(&m)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	c := srv.LoggedIn(t)
	rows := func(body string) int { return strings.Count(body, `class="row memory-row`) }
	status, body, _ := memGet(t, c, srv, "/memory?project=bulk")
	if status != http.StatusOK || rows(body) != 201 {
		t.Fatalf("first page: %d, %d rows, want 200 decisions and the todo", status, rows(body))
	}
	for _, want := range []string{`Decisions <span class="muted count">450</span>`, "1–200 of 450", "Show the next 200 (250 more)", "decision number 449", `data-hidden="250"`} {
		if !strings.Contains(body, want) {
			t.Errorf("first page lacks %q", want)
		}
	}
	if strings.Contains(body, "decision number 249") || strings.Contains(body, "mem-prev") {
		t.Error("the first page shows a row of the second, or a link back")
	}
	next := regexp.MustCompile(`class="btn btn-small mem-next" href="([^"]+)"`).FindStringSubmatch(body)
	if next == nil || html.UnescapeString(next[1]) != "/memory?decision_offset=200&project=bulk&state=current" {
		t.Fatalf("next link: %v", next)
	}
	_, body, tok := memGet(t, c, srv, html.UnescapeString(next[1]))
	for _, want := range []string{"201–400 of 450", "Show the next 50 (50 more)", "decision number 249", "‹ Previous", "the one todo"} {
		if !strings.Contains(body, want) {
			t.Errorf("second page lacks %q", want)
		}
	}
	if rows(body) != 201 || strings.Contains(body, "decision number 250") {
		t.Errorf("second page: %d rows", rows(body))
	}
	// An action on page 2 comes back to page 2.
	here := nextOf(t, body)
	noRedirect := *c
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	id := regexp.MustCompile(`id="mem-(\d+)"`).FindStringSubmatch(body)[1]
	resp := memPost(t, &noRedirect, srv, "/memory/"+id, url.Values{"_csrf": {tok}, "action": {"pin"}, "next": {here}})
	if loc := resp.Header.Get("Location"); loc != "/memory?decision_offset=200&project=bulk&state=current#mem-"+id {
		t.Errorf("pin on page 2: to %q", loc)
	}
	_, body, _ = memGet(t, c, srv, "/memory?project=bulk&decision_offset=400")
	if rows(body) != 51 || !strings.Contains(body, "401–450 of 450") || strings.Contains(body, "mem-next") {
		t.Errorf("last page: %d rows", rows(body))
	}
	for _, bad := range []string{"decision_offset=7", "decision_offset=-200", "todo_offset=x"} {
		if status, _, _ := memGet(t, c, srv, "/memory?project=bulk&"+bad); status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, status)
		}
	}
}
