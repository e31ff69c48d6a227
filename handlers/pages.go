package handlers

import (
	"sort"
	"strconv"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/static"
	"github.com/mneme-dev/mneme/views"
)

// CSRFContextKey is the c.Locals key the CSRF middleware stores the
// request's token under; pages render it as <meta name="csrf-token">.
const CSRFContextKey = "csrf"

// render writes a templ component as the HTML answer.
func render(c *fiber.Ctx, comp templ.Component) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}

// PageMeta fills the layout's view model for this request.
func (h *Handler) PageMeta(c *fiber.Ctx, title, active string) views.PageMeta {
	m := views.PageMeta{Title: title, Active: active, Version: h.Version, Asset: static.Version}
	if h.Status != nil {
		m.Status = h.Status()
	}
	if tok, ok := c.Locals(CSRFContextKey).(string); ok {
		m.CSRFToken = tok
	}
	return m
}

// ShowFeed serves GET /: the live feed.
func (h *Handler) ShowFeed(c *fiber.Ctx) error {
	f, offset, err := feedQuery(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	// Read the stream position first: an event committed while the page
	// renders is then replayed rather than lost.
	last, err := h.Store.LastEventID(ctx)
	if err != nil {
		return err
	}
	items, hasMore, err := h.loadFeed(ctx, f, offset)
	if err != nil {
		return err
	}
	facets, err := h.Store.FeedFacets(ctx)
	if err != nil {
		return err
	}
	return render(c, views.Feed(views.FeedPage{
		Meta: h.PageMeta(c, "Feed", "feed"), Filter: f, Items: items,
		Projects: facets.Projects, Tools: facets.Tools, Kinds: facets.Kinds,
		HasMore: hasMore, NextOffset: offset + feedLimit, LastEventID: last, Live: offset == 0,
	}))
}

// ShowSessions serves GET /sessions: the session list.
func (h *Handler) ShowSessions(c *fiber.Ctx) error {
	f, err := listFilter(c)
	if err != nil {
		return err
	}
	rows, err := h.Store.Sessions(c.UserContext(), models.SessionFilter{Project: f.Project, Offset: f.Offset, Limit: f.Limit})
	if err != nil {
		return err
	}
	facets, err := h.Store.FeedFacets(c.UserContext())
	if err != nil {
		return err
	}
	page := newPage(rows, f.Limit)
	p := views.SessionsPage{
		Meta: h.PageMeta(c, "Sessions", "sessions"), Project: f.Project, Projects: facets.Projects,
		HasMore: page.HasMore, Offset: f.Offset, NextOffset: f.Offset + f.Limit, PrevOffset: max(0, f.Offset-f.Limit),
	}
	for _, s := range page.Items {
		p.Rows = append(p.Rows, sessionRow(s))
	}
	return render(c, views.Sessions(p))
}

// ShowSession serves GET /sessions/:id: one session's timeline.
func (h *Handler) ShowSession(c *fiber.Ctx) error {
	s, err := h.sessionParam(c)
	if err != nil {
		return err
	}
	d, err := LoadSessionDetail(c.UserContext(), h.Store, s)
	if err != nil {
		return err
	}
	p := sessionPage(d)
	p.Meta = h.PageMeta(c, "Session "+strconv.FormatInt(s.ID, 10)+" · "+s.Project, "sessions")
	return render(c, views.SessionTimeline(p))
}

func sessionRow(s models.SessionStats) views.SessionRow {
	return views.SessionRow{
		ID: s.ID, Project: s.Project, Branch: s.GitBranch, Status: s.Status, StartedAt: s.StartedAt,
		EndedAt: s.EndedAt, Prompts: s.Prompts, ToolCalls: s.ToolCalls, Failures: s.Failures, Observations: s.Observations,
	}
}

// sessionPage groups a session's observations and summaries under the
// prompt they belong to, in prompt order, and counts the files touched.
func sessionPage(d *SessionDetail) views.SessionPage {
	s := d.Session
	p := views.SessionPage{
		ClaudeID: s.ClaudeSessionID, Cwd: s.Cwd, Source: s.Source, EndReason: s.EndReason, LastResponse: s.LastAssistantMessage,
		Session: views.SessionRow{ID: s.ID, Project: s.Project, Branch: s.GitBranch, Status: s.Status, StartedAt: s.StartedAt, EndedAt: s.EndedAt, Prompts: len(d.Prompts)},
	}
	turns := map[int]*views.Turn{}
	turn := func(n int) *views.Turn {
		if t, ok := turns[n]; ok {
			return t
		}
		t := &views.Turn{Number: n}
		turns[n] = t
		return t
	}
	for _, pr := range d.Prompts {
		v := promptView(pr)
		turn(pr.Number).Prompt = &v
	}
	files := map[string]int{}
	for _, o := range d.Observations {
		t := turn(o.PromptNumber)
		t.Observations = append(t.Observations, observationView(o))
		p.Session.Observations++
		if o.ExcludedBy == "" {
			p.Session.ToolCalls++
		}
		if !o.Success {
			t.Failures++
			p.Session.Failures++
		}
		for _, f := range o.Files {
			files[f]++
		}
	}
	for _, sm := range d.Summaries {
		if sm.Kind == models.SummaryTurn {
			turn(sm.PromptNumber).Summaries = append(turn(sm.PromptNumber).Summaries, summaryView(sm))
		} else {
			p.Final = append(p.Final, summaryView(sm))
		}
	}
	for _, t := range turns {
		p.Turns = append(p.Turns, *t)
	}
	sort.Slice(p.Turns, func(i, j int) bool { return p.Turns[i].Number < p.Turns[j].Number })
	for f, n := range files {
		p.Files = append(p.Files, views.FileTouch{Path: f, Count: n})
	}
	sort.Slice(p.Files, func(i, j int) bool {
		if p.Files[i].Count != p.Files[j].Count {
			return p.Files[i].Count > p.Files[j].Count
		}
		return p.Files[i].Path < p.Files[j].Path
	})
	return p
}
