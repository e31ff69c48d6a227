package handlers

import (
	"context"
	"errors"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/views"
	"github.com/mneme-dev/mneme/web/auth"
)

// memoryPageLimit bounds the rows of one kind on the Memory page.
const memoryPageLimit = 200

// memoryState reads the Memory page's state filter: a memory state, or
// "all"; in force (current) when absent.
func memoryState(c *fiber.Ctx) (string, error) {
	s := c.Query("state")
	if s == "" {
		return models.MemoryCurrent, nil
	}
	if s != "all" && !models.ValidMemoryState(s) {
		return "", badRequest("state must be current, superseded, done, retired, proposed, noted or all")
	}
	return strings.Clone(s), nil
}

// allButNoted are the states "all" shows on the Memory page: every one
// but noted. A quote is not the project's memory: it is listed under its
// own filter only.
var allButNoted = []string{models.MemoryCurrent, models.MemorySuperseded, models.MemoryDone, models.MemoryRetired, models.MemoryProposed}

// statesOf is the store filter of a page state.
func statesOf(state string) []string {
	if state == "all" {
		return allButNoted
	}
	return []string{state}
}

// pageShows reports whether a page of state lists a memory in state st.
func pageShows(state, st string) bool {
	return state == st || state == "all" && st != models.MemoryNoted
}

// memoryAsOf reads the Memory page's as_of: a date (what was in force as
// that day ended, UTC) or an RFC 3339 time; nil and "" when absent.
func memoryAsOf(c *fiber.Ctx) (*time.Time, string, error) {
	at, err := asOfParam(c)
	if err != nil || at == nil {
		return nil, "", err
	}
	return at, strings.Clone(strings.TrimSpace(c.Query("as_of"))), nil
}

// memoryItem is a memory's row: with its supersession chain when it has
// one (it was replaced, or it replaced something).
func (h *Handler) memoryItem(ctx context.Context, m models.Memory) (views.MemoryItem, error) {
	it := views.MemoryItem{Memory: m}
	if m.State != models.MemorySuperseded {
		return it, nil
	}
	chain, err := h.Store.SupersessionChain(ctx, m.ID)
	it.Chain = chain
	return it, err
}

// memoryOffsetParam is the query parameter of kind's page on the Memory
// page: the position of its first row ("decision_offset=200").
func memoryOffsetParam(kind string) string { return kind + "_offset" }

// memoryOffsets reads each kind's page position: a multiple of
// memoryPageLimit (0 when absent).
func memoryOffsets(c *fiber.Ctx) (map[string]int, error) {
	out := map[string]int{}
	for _, kind := range models.MemoryKinds {
		raw := c.Query(memoryOffsetParam(kind))
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 || n%memoryPageLimit != 0 || n > 1_000_000 {
			return nil, badRequest(memoryOffsetParam(kind) + " must be a multiple of " + strconv.Itoa(memoryPageLimit))
		}
		out[kind] = n
	}
	return out, nil
}

// memoryURL is the Memory page of project in state at the kinds' page
// positions offsets, with search's parameters (q, mode, offset) or the
// as-of date (as_of) when set.
func memoryURL(project, state string, offsets map[string]int, search url.Values) string {
	q := url.Values{"project": {project}, "state": {state}}
	for k, v := range search {
		if len(v) > 0 && v[0] != "" {
			q.Set(k, v[0])
		}
	}
	for kind, n := range offsets {
		if n > 0 {
			q.Set(memoryOffsetParam(kind), strconv.Itoa(n))
		}
	}
	return "/memory?" + q.Encode()
}

// memoryGroup is one kind's page of the Memory page, with its links to
// the pages before and after; with asOf, the kind's memories that were
// in force then (whatever their state now) instead of those in state.
func (h *Handler) memoryGroup(ctx context.Context, project, state, kind string, asOf *time.Time, extra url.Values, offsets map[string]int, total int64) (views.MemoryGroup, error) {
	g := views.MemoryGroup{Kind: kind, Total: total, Offset: offsets[kind]}
	f := models.MemoryFilter{Project: project, Kinds: []string{kind}, States: statesOf(state), AsOf: asOf, Offset: g.Offset, Limit: memoryPageLimit}
	ms, err := h.Store.Memories(ctx, f)
	if err != nil {
		return g, err
	}
	for _, m := range ms {
		it, err := h.memoryItem(ctx, m)
		if err != nil {
			return g, err
		}
		g.Items = append(g.Items, it)
	}
	at := func(n int) string {
		o := maps.Clone(offsets)
		o[kind] = n
		return memoryURL(project, state, o, extra)
	}
	if g.Offset > 0 {
		g.PrevURL = at(max(g.Offset-memoryPageLimit, 0))
	}
	if after := g.After(); after > 0 {
		g.NextURL, g.NextCount = at(g.Offset+memoryPageLimit), min(after, memoryPageLimit)
	}
	return g, nil
}

// memoryTotals counts the project's memories of each kind in state, or
// in force at asOf when set.
func (h *Handler) memoryTotals(ctx context.Context, project, state string, asOf *time.Time) (map[string]int64, error) {
	if asOf != nil {
		return h.Store.MemoryCountsAsOf(ctx, project, *asOf)
	}
	counts, err := h.Store.MemoryCounts(ctx, project)
	out := map[string]int64{}
	for kind, byState := range counts {
		for st, n := range byState {
			if pageShows(state, st) {
				out[kind] += n
			}
		}
	}
	return out, err
}

// memoryReviewLimit bounds the proposed memories the review list shows.
const memoryReviewLimit = 50

// memoryReview is the project's proposed memories for the owner's
// review, newest first, and how many there are.
func (h *Handler) memoryReview(ctx context.Context, project string) ([]views.MemoryItem, int64, error) {
	ms, err := h.Store.Memories(ctx, models.MemoryFilter{Project: project, States: []string{models.MemoryProposed}, Limit: memoryReviewLimit + 1})
	if err != nil || len(ms) == 0 {
		return nil, 0, err
	}
	total := int64(len(ms))
	if len(ms) > memoryReviewLimit {
		counts, err := h.Store.MemoryCounts(ctx, project)
		if err != nil {
			return nil, 0, err
		}
		total = 0
		for _, byState := range counts {
			total += byState[models.MemoryProposed]
		}
		ms = ms[:memoryReviewLimit]
	}
	out := make([]views.MemoryItem, len(ms))
	for i, m := range ms {
		out[i] = views.MemoryItem{Memory: m}
	}
	return out, total, nil
}

// markEditing opens the editor of memory id's row among items (the
// page's ?edit=, the Edit link without JavaScript).
func markEditing(items []views.MemoryItem, id int64) {
	for i := range items {
		items[i].Editing = id != 0 && items[i].Memory.ID == id
	}
}

// ShowMemory serves GET /memory: a project's memories by kind, in one
// state (in force by default; "all" is every state but quotes), or those
// in force on an as-of date, with their actions; each kind shows
// memoryPageLimit rows at a time, with links to the rest. Teammates'
// proposed memories come first, for the owner to accept or reject. With
// ?edit=ID that memory's row shows its editor.
func (h *Handler) ShowMemory(c *fiber.Ctx) error {
	ctx := c.UserContext()
	state, err := memoryState(c)
	if err != nil {
		return err
	}
	offsets, err := memoryOffsets(c)
	if err != nil {
		return err
	}
	asOf, asOfRaw, err := memoryAsOf(c)
	if err != nil {
		return err
	}
	editing, err := optionalID(c, "edit")
	if err != nil {
		return err
	}
	projects, err := h.Store.MemoryProjects(ctx)
	if err != nil {
		return err
	}
	project := strings.Clone(c.Query("project"))
	if project == "" && len(projects) > 0 {
		project = projects[0]
	}
	last, err := h.Store.LastEventID(ctx)
	if err != nil {
		return err
	}
	p := views.MemoryPage{Meta: h.PageMeta(c, "Memory", "memory"), Project: project, Projects: projects, State: state, LastEventID: last,
		Q: strings.Clone(c.Query("q")), SearchMode: h.searchMode(strings.Clone(c.Query("mode")), embed.Ran{}), AsOf: asOfRaw}
	extra := p.SearchParams(c.Query("offset"))
	if asOfRaw != "" {
		extra.Set("as_of", asOfRaw)
	}
	p.Here = memoryURL(project, state, offsets, extra)
	if strings.TrimSpace(p.Q) != "" {
		if project != "" {
			if err := h.searchMemoryPage(c, &p, asOf); err != nil {
				return err
			}
		}
		markEditing(p.Results, editing)
		return render(c, views.Memory(p))
	}
	if project != "" {
		// The review list, but where the kinds list the proposals
		// themselves (with the same Accept and Reject).
		if asOf == nil && state != models.MemoryProposed && state != "all" {
			if p.Proposed, p.ProposedTotal, err = h.memoryReview(ctx, project); err != nil {
				return err
			}
		}
		totals, err := h.memoryTotals(ctx, project, state, asOf)
		if err != nil {
			return err
		}
		for _, kind := range models.MemoryKinds {
			g, err := h.memoryGroup(ctx, project, state, kind, asOf, url.Values{"as_of": {asOfRaw}}, offsets, totals[kind])
			if err != nil {
				return err
			}
			markEditing(g.Items, editing)
			p.Groups = append(p.Groups, g)
		}
	}
	return render(c, views.Memory(p))
}

// memorySearchLimit is how many matches a page of the Memory page's
// search shows.
const memorySearchLimit = 50

// searchMemoryPage runs the Memory page's search: the memories of
// p.Project in p.State (or in force at asOf) matching p.Q, best first,
// in p.Mode, from the
// offset asked. A query or mode that cannot run is said on the page, the
// form filled in: 400 (bad syntax, search by meaning while it is off),
// 503 (the embeddings endpoint failed a search by meaning).
func (h *Handler) searchMemoryPage(c *fiber.Ctx, p *views.MemoryPage, asOf *time.Time) error {
	ctx := c.UserContext()
	p.Searched = true
	offset, err := intParam(c, "offset", 0, 0, models.MaxSearchWindow-memorySearchLimit-1)
	var found []models.Memory
	if err == nil {
		var ran embed.Ran
		found, ran, err = h.searchMemories(ctx, models.MemorySearch{Q: p.Q, Project: p.Project, States: statesOf(p.State), AsOf: asOf, Offset: offset, Limit: memorySearchLimit}, p.Mode)
		p.SearchMode = h.searchMode(p.Mode, ran)
	}
	var fe *fiber.Error
	switch {
	case err == nil:
	case errors.Is(err, models.ErrInvalid):
		p.Error = err.Error()
		c.Status(fiber.StatusBadRequest)
		return nil
	case errors.As(err, &fe) && fe.Code == fiber.StatusServiceUnavailable:
		p.Error = fe.Message
		c.Status(fe.Code)
		return nil
	default:
		return err
	}
	page := newPage(found, memorySearchLimit)
	for _, m := range page.Items {
		it, err := h.memoryItem(ctx, m)
		if err != nil {
			return err
		}
		p.Results = append(p.Results, it)
	}
	if page.HasMore {
		more := p.SearchParams(strconv.Itoa(offset + memorySearchLimit))
		if p.AsOf != "" {
			more.Set("as_of", p.AsOf)
		}
		p.MoreURL = memoryURL(p.Project, p.State, nil, more)
	}
	return nil
}

// ShowMemoryFragment serves GET /fragments/memory/:id: one memory's row,
// rendered by the same component as the Memory page, for app.js to put
// in place when the stream announces it. With ?state=, a memory no
// longer in that state is a 204 (the page drops its row).
func (h *Handler) ShowMemoryFragment(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	state, err := memoryState(c)
	if err != nil {
		return err
	}
	m, err := h.Store.MemoryByID(c.UserContext(), id)
	if err != nil {
		return err
	}
	if !pageShows(state, m.State) {
		return c.SendStatus(fiber.StatusNoContent)
	}
	it, err := h.memoryItem(c.UserContext(), *m)
	if err != nil {
		return err
	}
	return render(c, views.MemoryRow(it, "", ""))
}

// MemoryForm serves POST /memory/:id, a row's forms on the Memory page:
// action pin, unpin, retire, reinstate or edit (with text), or accept or
// reject a teammate's proposed memory (the review list's). It goes back
// to the page the form was on (its next field: the same project, state
// and pages), at the row; to the memory's project in force when next is
// not a Memory page of this site.
func (h *Handler) MemoryForm(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	in := MemoryChange{Action: strings.Clone(c.FormValue("action")), Text: strings.Clone(c.FormValue("text"))}
	m, err := h.changeMemory(c, id, in)
	if err != nil {
		return err
	}
	back := memoryNext(c.FormValue("next"))
	if back == "" {
		back = "/memory?project=" + url.QueryEscape(m.Project)
	}
	return c.Redirect(back+"#mem-"+strconv.FormatInt(m.ID, 10), fiber.StatusSeeOther)
}

// memoryNext is next when it is a Memory page of this site
// (auth.SafeNext, then /memory with a query of its own), else "".
func memoryNext(next string) string {
	next = auth.SafeNext(strings.Clone(next))
	u, err := url.Parse(next)
	if err != nil || u.Path != "/memory" || u.Fragment != "" || strings.Contains(next, "#") {
		return ""
	}
	return next
}

// pathID reads the route's :id, a positive whole number.
func pathID(c *fiber.Ctx) (int64, error) {
	n, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || n <= 0 {
		return 0, badRequest("id must be a positive whole number")
	}
	return n, nil
}
