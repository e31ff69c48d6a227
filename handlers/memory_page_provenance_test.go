package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// provenanceSeed stores memories of project app said by every voice: the
// user's constraint, Claude's decision (with a subject, which tries to be
// HTML) that replaced an older one of the 10th on the 25th, a quote of
// README.md, and two proposals of bob.
type provenanceSeed struct {
	rule, old, newer, quote, proposal, other models.Memory
}

func seedProvenance(t *testing.T, srv *testutil.Server) provenanceSeed {
	t.Helper()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 10, 0, 0, 0, time.UTC) }
	var s provenanceSeed
	s.rule = models.Memory{Project: "app", Source: models.SourcePrompt, Kind: models.MemoryConstraint, Text: "Never touch the cache by hand", CreatedAt: day(1)}
	s.old = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Use SQLite for the store", CreatedAt: day(10)}
	s.newer = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Switched the store to bbolt",
		Subject: "<i>store</i>", CreatedAt: day(25)}
	s.quote = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Decision: deploy on Fridays",
		Speaker: models.SpeakerQuoted, SpeakerRef: "README.md", CreatedAt: day(12)}
	s.proposal = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Make the cache shared",
		Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed, Subject: "cache", CreatedAt: day(13)}
	s.other = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryTodo, Text: "Drop the legacy importer",
		Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed, CreatedAt: day(14)}
	err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		for _, m := range []*models.Memory{&s.rule, &s.old, &s.newer, &s.quote, &s.proposal, &s.other} {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		_, err := tx.SupersedeMemory(s.old.ID, s.newer.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMemoryPageProvenance: each row of /memory says who said it ("you",
// "Claude", "quoted: README.md", a teammate) and what it is about;
// teammates' proposals are listed for review with Accept and Reject
// (forms with the page's CSRF token) and are not among the memories in
// force; quotes are listed under their own filter only, not under All;
// As of lists what was in force on a date. Accept and Reject work from
// the page and come back to it.
func TestMemoryPageProvenance(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	s := seedProvenance(t, srv)
	c := srv.LoggedIn(t)
	row := func(id int64) string { return fmt.Sprintf(`id="mem-%d"`, id) }
	review := func(id int64) string { return fmt.Sprintf(`id="review-%d"`, id) }

	status, body, tok := memGet(t, c, srv, "/memory?project=app")
	if status != http.StatusOK || tok == "" {
		t.Fatalf("GET /memory: %d %s", status, body)
	}
	rev := between(body, `id="memory-review"`, `id="memories"`)
	list := between(body, `id="memories"`, "</main>")
	if rev == "" || list == "" {
		t.Fatalf("the page has no review list, or no memories:\n%s", body)
	}
	for _, want := range []string{"Proposed by teammates", review(s.proposal.ID), review(s.other.ID), "Make the cache shared", "about cache",
		`<span class="mem-voice" title="Proposed by">bob</span>`, `value="accept"`, `value="reject"`,
		fmt.Sprintf(`action="/memory/%d"`, s.proposal.ID), `name="_csrf" value="` + tok + `"`} {
		if !strings.Contains(rev, want) {
			t.Errorf("the review list lacks %q", want)
		}
	}
	for _, want := range []string{row(s.rule.ID), row(s.newer.ID), `title="Who said it">you</span>`, `title="Who said it">Claude</span>`,
		"about &lt;i&gt;store&lt;/i&gt;"} {
		if !strings.Contains(list, want) {
			t.Errorf("the memories in force lack %q", want)
		}
	}
	for _, no := range []string{row(s.proposal.ID), row(s.quote.ID), row(s.old.ID), "<i>store</i>"} {
		if strings.Contains(body, no) {
			t.Errorf("the page in force shows %q", no)
		}
	}

	// All: every state but quotes, proposals among them.
	_, body, _ = memGet(t, c, srv, "/memory?project=app&state=all")
	for _, want := range []string{row(s.rule.ID), row(s.old.ID), row(s.newer.ID), row(s.proposal.ID), "ended by Claude"} {
		if !strings.Contains(body, want) {
			t.Errorf("state=all lacks %q", want)
		}
	}
	if strings.Contains(body, row(s.quote.ID)) || strings.Contains(body, "deploy on Fridays") {
		t.Error("state=all lists the quote")
	}
	if strings.Contains(body, `id="memory-review"`) || !strings.Contains(between(body, row(s.proposal.ID), "</article>"), `value="accept"`) {
		t.Error("state=all lists the proposals twice, or without Accept")
	}
	// Quoted notes: the quote alone, with its source and no pin or retire.
	_, body, _ = memGet(t, c, srv, "/memory?project=app&state=noted")
	quoteRow := between(body, row(s.quote.ID), "</article>")
	if !strings.Contains(quoteRow, `title="Who said it">quoted: README.md</span>`) || strings.Contains(quoteRow, `value="pin"`) ||
		strings.Contains(quoteRow, `value="retire"`) || strings.Contains(body, row(s.rule.ID)) {
		t.Errorf("state=noted: %s", quoteRow)
	}
	// Proposed: the proposals with Accept and Reject on their rows, and no
	// second review list.
	_, body, _ = memGet(t, c, srv, "/memory?project=app&state=proposed")
	if strings.Contains(body, `id="memory-review"`) || !strings.Contains(between(body, row(s.proposal.ID), "</article>"), `value="accept"`) {
		t.Errorf("state=proposed: %s", body)
	}

	// As of the 20th: the old decision (superseded since) and the rule,
	// not yet its replacement; not live, and saying so.
	status, body, _ = memGet(t, c, srv, "/memory?project=app&as_of=2026-11-20")
	if status != http.StatusOK {
		t.Fatalf("as_of: %d %s", status, body)
	}
	for _, want := range []string{row(s.old.ID), row(s.rule.ID), `id="memory-as-of-note"`, `value="2026-11-20"`} {
		if !strings.Contains(body, want) {
			t.Errorf("as_of=2026-11-20 lacks %q", want)
		}
	}
	for _, no := range []string{row(s.newer.ID), row(s.quote.ID), row(s.proposal.ID), `id="memory-review"`, `data-live="true"`} {
		if strings.Contains(body, no) {
			t.Errorf("as_of=2026-11-20 shows %q", no)
		}
	}
	if status, body, _ := memGet(t, c, srv, "/memory?project=app&as_of=yesterday"); status != http.StatusBadRequest || !strings.Contains(body, "as_of must be a date") {
		t.Errorf("as_of=yesterday: %d", status)
	}
	// With a search, as of a date too.
	_, body, _ = memGet(t, c, srv, "/memory?project=app&as_of=2026-11-20&q=store")
	if !strings.Contains(body, row(s.old.ID)) || strings.Contains(body, row(s.newer.ID)) {
		t.Errorf("a search as of the 20th: %s", between(body, `id="memory-search"`, "</section>"))
	}

	// Accept and reject from the review list: back to the page, at the row.
	next := "/memory?project=app&state=current"
	for _, c2 := range []struct {
		id     int64
		action string
		state  string
	}{{s.proposal.ID, "accept", models.MemoryCurrent}, {s.other.ID, "reject", models.MemoryRetired}} {
		if resp := memPost(t, c, srv, fmt.Sprintf("/memory/%d", c2.id), url.Values{"action": {c2.action}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s without the CSRF token: %d", c2.action, resp.StatusCode)
		}
		resp := memPost(t, c, srv, fmt.Sprintf("/memory/%d", c2.id), url.Values{"_csrf": {tok}, "action": {c2.action}, "next": {next}})
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != next+fmt.Sprintf("#mem-%d", c2.id) {
			t.Errorf("%s: %d to %q", c2.action, resp.StatusCode, loc)
		}
		if m, err := srv.Store.MemoryByID(t.Context(), c2.id); err != nil || m.State != c2.state {
			t.Errorf("after %s: %+v %v", c2.action, m, err)
		}
	}
	_, body, _ = memGet(t, c, srv, next)
	if strings.Contains(body, `id="memory-review"`) || !strings.Contains(body, row(s.proposal.ID)) ||
		!strings.Contains(between(body, row(s.proposal.ID), "</article>"), `title="Who said it">bob</span>`) {
		t.Errorf("after the review the accepted memory is not in force as bob's, or the review list remains")
	}
	// The live row of a quote is not one of All's.
	if status, _ := fragment(t, c, srv, s.quote.ID, "all"); status != http.StatusNoContent {
		t.Errorf("the quote's fragment under All: %d, want 204", status)
	}
	if status, _ := fragment(t, c, srv, s.quote.ID, models.MemoryNoted); status != http.StatusOK {
		t.Errorf("the quote's fragment under its own filter: %d", status)
	}
}

// fragment is GET /fragments/memory/:id?state= with the logged-in client.
func fragment(t *testing.T, c *http.Client, srv *testutil.Server, id int64, state string) (int, string) {
	t.Helper()
	status, body, _ := memGet(t, c, srv, fmt.Sprintf("/fragments/memory/%d?state=%s", id, state))
	return status, body
}

// TestSessionPageMemoryVoices: a session's page lists its memories with
// who said each, a quote linked to its row under Quoted notes (All
// leaves quotes out).
func TestSessionPageMemoryVoices(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	sid, _ := memorySeed(t, srv)
	quote := models.Memory{SessionID: sid, Project: "memproj", PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision,
		Text: "Decision: deploy on Fridays", Speaker: models.SpeakerQuoted, SpeakerRef: "RELEASING.md"}
	if err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error { _, err := tx.InsertMemory(&quote); return err }); err != nil {
		t.Fatal(err)
	}
	_, body, _ := memGet(t, srv.LoggedIn(t), srv, fmt.Sprintf("/sessions/%d", sid))
	story := between(body, `id="story-decisions"`, "</div>")
	for _, want := range []string{`title="Who said it">Claude</span>`, `title="Who said it">quoted: RELEASING.md</span>`,
		fmt.Sprintf(`href="/memory?project=memproj&amp;state=noted#mem-%d"`, quote.ID)} {
		if !strings.Contains(story, want) {
			t.Errorf("the session's decisions lack %q:\n%s", want, story)
		}
	}
}
