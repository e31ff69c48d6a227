package handlers

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/edit"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/views"
)

// storyFailures is how many failures the story of a session lists.
const storyFailures = 8

// sessionStory tells what happened in a session, for the top of its page:
// the request and outcome from its latest session summary (else its latest
// turn summary), decisions and open items from its memories, and its
// failures with whether a later call fixed them. The summary it tells is
// taken out of p's trailing summaries, so it is not shown twice.
func sessionStory(d *api.SessionDetail, p *views.SessionPage) views.Story {
	var st views.Story
	var pick *models.Summary
	for i := range d.Summaries {
		s := &d.Summaries[i]
		if s.Kind != models.SummaryTurn || pick == nil || pick.Kind == models.SummaryTurn {
			pick = s // the latest, a session summary over any turn's
		}
	}
	if pick != nil {
		v := summaryView(*pick)
		st.Summary, st.Request = &v, pick.Request
		kept := p.Final[:0]
		for _, f := range p.Final {
			if f.ID != pick.ID {
				kept = append(kept, f)
			}
		}
		p.Final = kept
	}
	if st.Request == "" && len(d.Prompts) > 0 {
		st.Request = shape.Truncate(strings.TrimSpace(d.Prompts[0].Text), 600)
	}
	for _, m := range p.Memories {
		switch {
		case m.State == models.MemoryRetired:
		case m.Kind == models.MemoryTodo:
			st.OpenItems = append(st.OpenItems, m)
		default:
			st.Decisions = append(st.Decisions, m)
		}
	}
	tr := summarize.Tracker{Max: storyFailures}
	for _, o := range d.Observations {
		tr.Add(o)
	}
	for _, f := range tr.Failures {
		fv := views.FailureView{ObsID: f.Obs.ID, Title: f.Obs.Title, Reason: f.Reason, Fixed: f.Fixed}
		if f.Fixed {
			fv.FixedBy, fv.FixedByID = f.FixedBy.Title, f.FixedBy.ID
		}
		st.Failures = append(st.Failures, fv)
	}
	st.MoreFailures = tr.Dropped
	return st
}

// RenameSession serves POST /sessions/:id/title, the session page's
// rename form: the title, cleaned by the privacy rules like any stored
// text, of at most models.TitleMax characters; an empty one brings the
// automatic title back. It goes back to the session page.
func (h *Handler) RenameSession(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := edit.RenameSession(c.UserContext(), h.Store, h.Settings.Policy(), id, strings.Clone(c.FormValue("title"))); err != nil {
		return err
	}
	return c.Redirect("/sessions/"+strconv.FormatInt(id, 10), fiber.StatusSeeOther)
}

// ShowSessionRowFragment serves GET /fragments/sessions/:id: the session's
// row of the session list, rendered by the list's component, with the
// columns of ?person_col= and ?branch_col=. With the list's ?project= or
// ?person=, a session they leave out is a 204.
func (h *Handler) ShowSessionRowFragment(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	items, err := h.Store.Sessions(c.UserContext(), models.SessionFilter{ID: id, Project: c.Query("project"), Person: c.Query("person"), Limit: 1})
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return c.SendStatus(fiber.StatusNoContent)
	}
	rows, err := h.sessionRows(c.UserContext(), items[:1])
	if err != nil {
		return err
	}
	cols := views.SessionCols{Person: c.Query("person_col") == "1", Branch: c.Query("branch_col") == "1"}
	return render(c, views.SessionListRow(rows[0], cols))
}

// ShowSessionHeadFragment serves GET /fragments/sessions/:id/head: the
// session page's head and story (SessionParts), rendered anew as the
// session goes on.
func (h *Handler) ShowSessionHeadFragment(c *fiber.Ctx) error {
	s, err := h.sessionParam(c)
	if err != nil {
		return err
	}
	p, err := h.loadSessionPage(c.UserContext(), s)
	if err != nil {
		return err
	}
	return render(c, views.SessionParts(p))
}

// sessionEventRow renders the row of one event for the page of session
// (the event fragment with ?session=): a tool call, prompt or turn
// summary as its turn holding only it; nil for an event of another
// session or one the page shows in its head and story instead.
func sessionEventRow(it views.FeedItem, session int64) *views.Turn {
	switch {
	case it.Obs != nil && it.Obs.SessionID == session:
		t := views.Turn{Number: it.Obs.PromptNumber, Observations: []views.ObservationView{*it.Obs}}
		if !it.Obs.Success {
			t.Failures = 1
		}
		return &t
	case it.Prompt != nil && it.Prompt.SessionID == session:
		return &views.Turn{Number: it.Prompt.Number, Prompt: it.Prompt}
	case it.Summary != nil && it.Summary.SessionID == session && it.Summary.Kind == models.SummaryTurn:
		return &views.Turn{Number: it.Summary.PromptNumber, Summaries: []views.SummaryView{*it.Summary}}
	}
	return nil
}

// sessionQuery reads the ?session= of an event fragment: 0 when absent.
func sessionQuery(c *fiber.Ctx) (int64, error) {
	v := c.Query("session")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, badRequest("session must be a positive whole number")
	}
	return n, nil
}

// sessionIDs lists the distinct session ids of rows.
func sessionIDs[T any](rows []T, id func(T) int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, r := range rows {
		if n := id(r); n != 0 && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
