package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/models"
)

// maxBatch caps POST /api/observations/batch.
const maxBatch = 500

// ListObservations serves GET /api/observations: newest first, with
// offset/limit/project, session, kind, tool, failures=1, similar_to=<id>
// (the failures with that one's signature) and person filters.
func (h *Handler) ListObservations(c *fiber.Ctx) error {
	f, err := apiListParams(c)
	if err != nil {
		return err
	}
	failures, err := failuresParam(c)
	if err != nil {
		return err
	}
	signature, err := h.similarTo(c, &f)
	if err != nil {
		return err
	}
	items, err := h.Store.Observations(c.UserContext(), models.ObservationFilter{
		ListFilter: f, Kind: c.Query("kind"), Tool: c.Query("tool"), FailuresOnly: failures, Signature: signature,
	})
	if err != nil {
		return err
	}
	return c.JSON(newPage(items, f.Limit))
}

// similarTo reads similar_to=<id>: the signature of that failure, whose
// project then bounds the listing (a signature is known within its
// project); "" when absent.
func (h *Handler) similarTo(c *fiber.Ctx, f *models.ListFilter) (string, error) {
	id, err := idParam(c, "similar_to")
	if err != nil || id == 0 {
		return "", err
	}
	o, err := h.Store.ObservationByID(c.UserContext(), id)
	if err != nil {
		return "", err
	}
	if o.Signature == "" {
		return "", invalidParam("similar_to: observation %d is no failure with a signature (a failed call that says what failed)", id)
	}
	if f.Project == "" {
		f.Project = o.Project
	}
	return o.Signature, nil
}

// ListPrompts serves GET /api/prompts: newest first, with
// offset/limit/project, session and person filters.
func (h *Handler) ListPrompts(c *fiber.Ctx) error {
	f, err := apiListParams(c)
	if err != nil {
		return err
	}
	items, err := h.Store.Prompts(c.UserContext(), f)
	if err != nil {
		return err
	}
	return c.JSON(newPage(items, f.Limit))
}

// ListSummaries serves GET /api/summaries: newest first, with
// offset/limit/project, session and person filters.
func (h *Handler) ListSummaries(c *fiber.Ctx) error {
	f, err := apiListParams(c)
	if err != nil {
		return err
	}
	items, err := h.Store.Summaries(c.UserContext(), f)
	if err != nil {
		return err
	}
	return c.JSON(newPage(items, f.Limit))
}

// SearchJSON serves GET /api/search: q in FTS5 syntax, with project, type,
// tool, from, to (YYYY-MM-DD, or RFC 3339), offset and limit (at most 100),
// and mode (hybrid, text or semantic; hybrid by default when the
// embeddings are on, text when they are off). A query FTS5 refuses is a
// 400 with the reason, but for a hybrid search, which answers by meaning and says
// why in wordsError; semantic while embeddings are off is a 400, and an
// endpoint that fails a semantic search a 503.
func (h *Handler) SearchJSON(c *fiber.Ctx) error {
	q, err := searchParams(c)
	if err != nil {
		return err
	}
	if strings.TrimSpace(q.Q) == "" {
		return badRequest("q is required: words to search for, in FTS5 syntax")
	}
	hits, ran, err := h.search(c.UserContext(), q, c.Query("mode"))
	if err != nil {
		return err
	}
	res := api.SearchResults{Query: q.Q, Ranked: true, Mode: ran.Mode}
	if ran.Words != nil {
		res.WordsError = ran.Words.Msg
	}
	page := newPage(hits, q.Limit)
	if err := h.markStaleHits(c.UserContext(), page.Items); err != nil {
		return err
	}
	res.HasMore = page.HasMore
	res.Items = make([]api.SearchResult, len(page.Items))
	for i, hit := range page.Items {
		res.Items[i] = api.SearchResult{SearchHit: hit, SnippetParts: models.SplitSnippet(hit.Snippet)}
		res.Ranked = res.Ranked && hit.Ranked
	}
	return c.JSON(res)
}

// TimelineJSON serves GET /api/timeline: ?anchor=<observation id> with
// before and after (default 10, at most 100), or ?session=<id> with offset
// and limit.
func (h *Handler) TimelineJSON(c *fiber.Ctx) error {
	var q models.TimelineQuery
	var err error
	if q.Anchor, err = idParam(c, "anchor"); err != nil {
		return err
	}
	if q.SessionID, err = idParam(c, "session"); err != nil {
		return err
	}
	if (q.Anchor == 0) == (q.SessionID == 0) {
		return badRequest("give either anchor (an observation id) or session (a session id)")
	}
	if q.Before, err = intParam(c, "before", 10, 0, 100); err != nil {
		return err
	}
	if q.After, err = intParam(c, "after", 10, 0, 100); err != nil {
		return err
	}
	if q.Offset, err = intParam(c, "offset", 0, 0, 1<<30); err != nil {
		return err
	}
	if q.Limit, err = intParam(c, "limit", 50, 1, 500); err != nil {
		return err
	}
	tl, err := h.Store.Timeline(c.UserContext(), q)
	if err != nil {
		return err
	}
	if tl.Session != nil {
		tl.Session.HideFrom(capture.PersonFrom(c.UserContext()))
	}
	if err := h.markStale(c.UserContext(), timelineObservations(tl)); err != nil {
		return err
	}
	return c.JSON(tl)
}

// batchRequest is the body of POST /api/observations/batch.
type batchRequest struct {
	IDs []int64 `json:"ids"`
}

// batchResponse answers it: the records found, in the order asked, and the
// ids that were not.
type batchResponse struct {
	Items   []models.Observation `json:"items"`
	Missing []int64              `json:"missing"`
}

// ObservationsBatch serves POST /api/observations/batch: {"ids": [...]}
// (1 to 500 ids) → the full records, in the order asked, duplicates once.
func (h *Handler) ObservationsBatch(c *fiber.Ctx) error {
	var req batchRequest
	if err := c.BodyParser(&req); err != nil {
		return badRequest(`body must be JSON like {"ids": [1, 2, 3]}`)
	}
	if len(req.IDs) == 0 || len(req.IDs) > maxBatch {
		return badRequest(fmt.Sprintf("ids must hold 1 to %d observation ids", maxBatch))
	}
	seen := map[int64]bool{}
	ids := make([]int64, 0, len(req.IDs))
	for _, id := range req.IDs {
		if id <= 0 {
			return badRequest("ids must be positive whole numbers")
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	found, err := h.Store.ObservationsByIDs(c.UserContext(), ids)
	if err != nil {
		return err
	}
	byID := make(map[int64]*models.Observation, len(found))
	for i := range found {
		byID[found[i].ID] = &found[i]
	}
	if err := h.markStale(c.UserContext(), pointers(found)); err != nil {
		return err
	}
	res := batchResponse{Items: make([]models.Observation, 0, len(found)), Missing: []int64{}}
	for _, id := range ids {
		if o := byID[id]; o != nil {
			res.Items = append(res.Items, *o)
		} else {
			res.Missing = append(res.Missing, id)
		}
	}
	return c.JSON(res)
}

// ListProjects serves GET /api/projects: every project, most recently
// active first.
func (h *Handler) ListProjects(c *fiber.Ctx) error {
	items, err := h.Store.Projects(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(newPage(items, len(items)))
}

// StatsJSON serves GET /api/stats: project, days (default 14, at most
// 366), or from and to (YYYY-MM-DD), and top (at most 50).
func (h *Handler) StatsJSON(c *fiber.Ctx) error {
	q, err := statsParams(c)
	if err != nil {
		return err
	}
	st, err := h.Store.Stats(c.UserContext(), q)
	if err != nil {
		return err
	}
	return c.JSON(st)
}

// search runs q in mode through the embeddings (text only without it)
// and returns the hits and how it ran.
func (h *Handler) search(ctx context.Context, q models.SearchQuery, mode string) ([]models.SearchHit, embed.Ran, error) {
	return semanticOr(h, mode, func() ([]models.SearchHit, error) { return h.Store.Search(ctx, q) },
		func() ([]models.SearchHit, embed.Ran, error) { return h.Embed.Search(ctx, q, mode) })
}

// searchMemories runs a memory search in mode, as search.
func (h *Handler) searchMemories(ctx context.Context, q models.MemorySearch, mode string) ([]models.Memory, embed.Ran, error) {
	return semanticOr(h, mode, func() ([]models.Memory, error) { return h.Store.SearchMemories(ctx, q) },
		func() ([]models.Memory, embed.Ran, error) { return h.Embed.SearchMemories(ctx, q, mode) })
}

// semanticOr runs a search in mode: through the embeddings when the
// worker has it, else text (and semantic or hybrid asked for is
// embed.ErrOff); an endpoint that fails a semantic search is a 503.
func semanticOr[T any](h *Handler, mode string, text func() ([]T, error), semantic func() ([]T, embed.Ran, error)) ([]T, embed.Ran, error) {
	out, used, err := semantic()
	if errors.Is(err, embed.ErrEndpoint) || errors.Is(err, models.ErrVectorsLoading) {
		return nil, used, fiber.NewError(fiber.StatusServiceUnavailable, h.clean(err.Error()))
	}
	return out, used, err
}
