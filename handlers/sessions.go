package handlers

import (
	"context"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/models"
)

// newPage trims the extra row the store fetched to tell hasMore.
func newPage[T any](items []T, limit int) api.Page[T] {
	if items == nil {
		items = []T{}
	}
	if len(items) > limit {
		return api.Page[T]{Items: items[:limit], HasMore: true}
	}
	return api.Page[T]{Items: items}
}

// ListSessions serves GET /api/sessions: newest first, with
// offset/limit/project and person (who captured them) filters.
func (h *Handler) ListSessions(c *fiber.Ctx) error {
	f, err := listParams(c)
	if err != nil {
		return err
	}
	var id int64
	switch len(f.IDs) {
	case 0:
	case 1:
		id = f.IDs[0]
	default:
		return invalidParam("id names one session here")
	}
	items, err := h.Store.Sessions(c.UserContext(), models.SessionFilter{ID: id, Project: f.Project, Person: c.Query("person"), Offset: f.Offset, Limit: f.Limit})
	if err != nil {
		return err
	}
	for i := range items {
		items[i].HideFrom(capture.PersonFrom(c.UserContext()))
	}
	return c.JSON(newPage(items, f.Limit))
}

// sessionParam finds the session named by :id, a database id or Claude
// Code's session_id, %-escaped or not (Fiber leaves route parameters
// escaped), as the person asking may see it (models.Session.HideFrom).
func (h *Handler) sessionParam(c *fiber.Ctx) (*models.Session, error) {
	id := c.Params("id")
	if u, err := url.PathUnescape(id); err == nil {
		id = u
	}
	var s *models.Session
	var err error
	if n, perr := strconv.ParseInt(id, 10, 64); perr == nil {
		s, err = h.Store.SessionByID(c.UserContext(), n)
	} else {
		s, err = h.Store.SessionByClaudeID(c.UserContext(), id)
	}
	if err != nil {
		return nil, err
	}
	s.HideFrom(capture.PersonFrom(c.UserContext()))
	return s, nil
}

// loadSessionDetail loads a session with its prompts, observations and
// summaries.
func loadSessionDetail(ctx context.Context, store *models.Store, s *models.Session) (*api.SessionDetail, error) {
	d := &api.SessionDetail{Session: s}
	var err error
	if d.Prompts, err = store.PromptsOfSession(ctx, s.ID); err != nil {
		return nil, err
	}
	if d.Observations, err = store.ObservationsOfSession(ctx, s.ID); err != nil {
		return nil, err
	}
	if d.Summaries, err = store.SummariesOfSession(ctx, s.ID); err != nil {
		return nil, err
	}
	return d, nil
}

// ShowSessionJSON serves GET /api/sessions/:id.
func (h *Handler) ShowSessionJSON(c *fiber.Ctx) error {
	s, err := h.sessionParam(c)
	if err != nil {
		return err
	}
	d, err := loadSessionDetail(c.UserContext(), h.Store, s)
	if err != nil {
		return err
	}
	if err := h.markStale(c.UserContext(), pointers(d.Observations)); err != nil {
		return err
	}
	jobs, err := h.Store.JobsOfSession(c.UserContext(), s.ID)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		d.SummaryJobs = append(d.SummaryJobs, api.SummaryJob{
			Kind: j.Kind, PromptNumber: j.PromptNumber, Status: j.Status, Attempts: j.Attempts,
			SummaryID: j.SummaryID, LastError: h.clean(j.LastError),
		})
	}
	return c.JSON(d)
}
