package handlers

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/views"
)

// feedLimit is how many rows a feed page shows.
const feedLimit = 50

// ShowFeedFragment serves GET /fragments/feed: the next page of feed rows
// (for "load more"), followed by a fresh "load more" link.
func (h *Handler) ShowFeedFragment(c *fiber.Ctx) error {
	f, offset, err := feedQuery(c)
	if err != nil {
		return err
	}
	items, hasMore, err := h.loadFeed(c.UserContext(), f, offset)
	if err != nil {
		return err
	}
	if err := render(c, views.FeedRows(items)); err != nil {
		return err
	}
	return views.LoadMore("/", f, hasMore, offset+feedLimit).Render(c.UserContext(), c.Response().BodyWriter())
}

// ShowEventFragment serves GET /fragments/event/:id: the feed row of one
// event of the live stream, rendered by the same component as the page.
// With the feed's filters in the query, an event they hide is a 204.
// With ?session=N it is the row for that session's page instead (see
// sessionEventRow): its turn holding only the row, or a 204.
func (h *Handler) ShowEventFragment(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return badRequest("event id must be a positive whole number")
	}
	f, _, err := feedQuery(c)
	if err != nil {
		return err
	}
	session, err := sessionQuery(c)
	if err != nil {
		return err
	}
	ev, err := h.Store.EventByID(c.UserContext(), id)
	if err != nil {
		return err
	}
	items, err := h.feedItems(c.UserContext(), []models.Event{*ev})
	if err != nil {
		return err
	}
	if session != 0 {
		if len(items) == 0 {
			return c.SendStatus(fiber.StatusNoContent)
		}
		t := sessionEventRow(items[0], session)
		if t == nil {
			return c.SendStatus(fiber.StatusNoContent)
		}
		return render(c, views.TurnSection(*t))
	}
	if len(items) == 0 || !matchesFeed(items[0], f) {
		return c.SendStatus(fiber.StatusNoContent)
	}
	return render(c, views.FeedRow(items[0]))
}

// feedQuery parses the feed's filters and offset.
func feedQuery(c *fiber.Ctx) (views.FeedFilter, int, error) {
	f := views.FeedFilter{Project: c.Query("project"), Kind: c.Query("kind"), Tool: c.Query("tool")}
	var err error
	if f.FailuresOnly, err = failuresParam(c); err != nil {
		return f, 0, err
	}
	offset, err := offsetParam(c)
	return f, offset, err
}

// matchesFeed reports whether a live row belongs in a feed with filter f.
func matchesFeed(it views.FeedItem, f views.FeedFilter) bool {
	project := ""
	switch {
	case it.Obs != nil:
		project = it.Obs.Project
	case it.Prompt != nil:
		project = it.Prompt.Project
	case it.Summary != nil:
		project = it.Summary.Project
	case it.Session != nil:
		project = it.Session.Project
	}
	if f.Project != "" && project != f.Project {
		return false
	}
	if k := f.EventKinds(); k != nil {
		return (k[0] == views.FeedKindPrompt && it.Prompt != nil) || (k[0] == views.FeedKindSummary && it.Summary != nil)
	}
	if !f.ObservationsOnly() {
		return true
	}
	o := it.Obs
	return o != nil && (f.Kind == "" || o.Kind == f.Kind) && (f.Tool == "" || o.Tool == f.Tool) && (!f.FailuresOnly || !o.Success)
}

// loadFeed loads one page of the feed, newest first by the time of each
// row: every kind of row from the event log (or only prompts, or only
// summaries), or with a tool call's kind, a tool or failures, observations
// only.
func (h *Handler) loadFeed(ctx context.Context, f views.FeedFilter, offset int) ([]views.FeedItem, bool, error) {
	if f.ObservationsOnly() {
		obs, err := h.Store.Observations(ctx, models.ObservationFilter{
			ListFilter: models.ListFilter{Project: f.Project, Offset: offset, Limit: feedLimit},
			Kind:       f.Kind, Tool: f.Tool, FailuresOnly: f.FailuresOnly, ByTime: true,
		})
		if err != nil {
			return nil, false, err
		}
		page := newPage(obs, feedLimit)
		if err := h.markForView(ctx, pointers(page.Items)); err != nil {
			return nil, false, err
		}
		titles, err := h.Store.SessionTitles(ctx, sessionIDs(page.Items, func(o models.Observation) int64 { return o.SessionID }))
		if err != nil {
			return nil, false, err
		}
		items := make([]views.FeedItem, len(page.Items))
		for i := range page.Items {
			v := observationView(page.Items[i])
			v.SessionTitle = titles[v.SessionID]
			items[i] = views.FeedItem{Obs: &v}
		}
		return items, page.HasMore, nil
	}
	evs, err := h.Store.FeedEvents(ctx, models.FeedQuery{Project: f.Project, Kinds: f.EventKinds(), Offset: offset, Limit: feedLimit})
	if err != nil {
		return nil, false, err
	}
	page := newPage(evs, feedLimit)
	items, err := h.feedItems(ctx, page.Items)
	return items, page.HasMore, err
}

// feedItems turns events into feed rows, loading the rows they announce in
// one query per kind. Events whose row is gone (retention) are skipped.
func (h *Handler) feedItems(ctx context.Context, evs []models.Event) ([]views.FeedItem, error) {
	ids := map[string][]int64{}
	for _, ev := range evs {
		ids[ev.Kind] = append(ids[ev.Kind], ev.RefID)
	}
	obs, err := h.Store.ObservationsByIDs(ctx, ids[models.EventObservation])
	if err != nil {
		return nil, err
	}
	if err := h.markForView(ctx, pointers(obs)); err != nil {
		return nil, err
	}
	prompts, err := h.Store.PromptsByIDs(ctx, ids[models.EventPrompt])
	if err != nil {
		return nil, err
	}
	sums, err := h.Store.SummariesByIDs(ctx, ids[models.EventSummary])
	if err != nil {
		return nil, err
	}
	if sums, err = h.dropRestated(ctx, sums); err != nil {
		return nil, err
	}
	titles, err := h.Store.SessionTitles(ctx, sessionIDs(evs, func(ev models.Event) int64 { return ev.SessionID }))
	if err != nil {
		return nil, err
	}
	obsBy := byID(obs, func(o models.Observation) int64 { return o.ID })
	promptBy := byID(prompts, func(p models.Prompt) int64 { return p.ID })
	sumBy := byID(sums, func(s models.Summary) int64 { return s.ID })
	items := make([]views.FeedItem, 0, len(evs))
	for _, ev := range evs {
		it := views.FeedItem{EventID: ev.ID}
		switch ev.Kind {
		case models.EventObservation:
			if o, ok := obsBy[ev.RefID]; ok {
				v := observationView(o)
				v.SessionTitle = titles[o.SessionID]
				it.Obs = &v
			}
		case models.EventPrompt:
			if p, ok := promptBy[ev.RefID]; ok {
				v := promptView(p)
				v.SessionTitle = titles[p.SessionID]
				it.Prompt = &v
			}
		case models.EventSummary:
			if s, ok := sumBy[ev.RefID]; ok {
				v := summaryView(s)
				v.SessionTitle = titles[s.SessionID]
				it.Summary = &v
			}
		case models.EventSessionStarted, models.EventSessionCompleted:
			it.Session = sessionMark(ev)
			it.Session.SessionTitle = titles[ev.SessionID]
		}
		if it.Obs != nil || it.Prompt != nil || it.Summary != nil || it.Session != nil {
			items = append(items, it)
		}
	}
	return items, nil
}

// dropRestated leaves out the session summaries that only repeat the turn
// summary of a session of one turn (stored before the queue stopped
// writing them, see models.Summary.Restates): one turn, one card.
func (h *Handler) dropRestated(ctx context.Context, sums []models.Summary) ([]models.Summary, error) {
	var sessions []int64
	for _, s := range sums {
		if s.Kind != models.SummaryTurn {
			sessions = append(sessions, s.SessionID)
		}
	}
	if len(sessions) == 0 {
		return sums, nil
	}
	turns, err := h.Store.SingleTurnSummaries(ctx, sessions)
	if err != nil {
		return nil, err
	}
	return keepSaying(sums, turns), nil
}

// keepSaying is sums without the non-turn summaries that restate their
// session's only turn summary (of turns, by session).
func keepSaying(sums []models.Summary, turns map[int64]models.Summary) []models.Summary {
	out := sums[:0:0]
	for _, s := range sums {
		if t, ok := turns[s.SessionID]; ok && s.Kind != models.SummaryTurn && s.Restates(t) {
			continue
		}
		out = append(out, s)
	}
	return out
}

func byID[T any](rows []T, id func(T) int64) map[int64]T {
	m := make(map[int64]T, len(rows))
	for _, r := range rows {
		m[id(r)] = r
	}
	return m
}

// sessionMark reads a session start or end from its event's payload.
func sessionMark(ev models.Event) *views.SessionMarkView {
	var d struct {
		Branch string `json:"branch"`
		Source string `json:"source"`
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(ev.Data, &d) // a payload we cannot read still marks the event
	return &views.SessionMarkView{
		SessionID: ev.SessionID, Project: ev.Project, Branch: d.Branch, Source: d.Source,
		Completed: ev.Kind == models.EventSessionCompleted, Reason: d.Reason, At: ev.CreatedAt,
	}
}

func observationView(o models.Observation) views.ObservationView {
	return views.ObservationView{
		ID: o.ID, SessionID: o.SessionID, Project: o.Project, PromptNumber: o.PromptNumber,
		Tool: o.ToolName, Kind: o.Kind, Title: o.Title, Input: o.Input, Output: o.Output,
		Files: o.Files, Success: o.Success, Importance: o.Importance, DurationMS: o.DurationMS,
		ExcludedBy: o.ExcludedBy, At: o.CreatedAt, FileStatus: o.FileStatus,
		SeenBefore: seenBeforeView(o.SeenBefore),
	}
}

func seenBeforeView(s *models.SeenBefore) *views.SeenBeforeView {
	if s == nil {
		return nil
	}
	return &views.SeenBeforeView{ID: s.ID, SessionID: s.SessionID, At: s.At, FixedByID: s.FixedByID, FixedBy: s.FixedBy}
}

func promptView(p models.Prompt) views.PromptView {
	return views.PromptView{ID: p.ID, SessionID: p.SessionID, Project: p.Project, Number: p.Number, Text: p.Text, At: p.CreatedAt}
}

func summaryView(s models.Summary) views.SummaryView {
	return views.SummaryView{
		ID: s.ID, SessionID: s.SessionID, Project: s.Project, PromptNumber: s.PromptNumber, Kind: s.Kind,
		Request: s.Request, Investigated: s.Investigated, Learned: s.Learned, Completed: s.Completed,
		NextSteps: s.NextSteps, Generator: s.Generator, Note: s.Note, At: s.CreatedAt,
	}
}
