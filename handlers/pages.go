package handlers

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/internal/ref"
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
	m := views.PageMeta{Title: title, Active: active, Version: h.Build.Version, Commit: h.Build.ShortCommit(), CommitDate: h.Build.Date, Asset: static.Version}
	m.Status, m.Quarantined = h.Status(), h.Quarantined().Message
	if tok, ok := c.Locals(CSRFContextKey).(string); ok {
		m.CSRFToken = tok
	}
	m.Notice = forgottenNotice(c.Query("forgotten"))
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
	p := views.FeedPage{
		Meta: h.PageMeta(c, "Feed", "feed"), Filter: f, Items: items,
		Projects: facets.Projects, Tools: facets.Tools, Kinds: views.KindOptions(facets.Kinds),
		HasMore: hasMore, NextOffset: offset + feedLimit, LastEventID: last, Live: offset == 0,
	}
	if offset == 0 && len(items) == 0 && len(facets.Projects) == 0 && f == (views.FeedFilter{}) {
		p.FirstRun = h.firstRun()
	}
	return render(c, views.Feed(p))
}

// firstRun is the feed's welcome on an empty memory: what Import would
// read (counted as it counts, without reading a file).
func (h *Handler) firstRun() *views.FirstRun {
	fr := &views.FirstRun{}
	var bytes int64
	fr.Dir, fr.Files, bytes = h.Import.Count()
	fr.MB, fr.CanImport = (bytes+1<<20-1)>>20, true
	return fr
}

// ShowSessions serves GET /sessions: the session list. Its first page
// follows the live stream (app.js): new sessions appear at the top, and
// a row changes in place as its session goes on.
func (h *Handler) ShowSessions(c *fiber.Ctx) error {
	f, err := listParams(c)
	if err != nil {
		return err
	}
	person := c.Query("person")
	// The stream position first, as on the feed (ShowFeed).
	last, err := h.Store.LastEventID(c.UserContext())
	if err != nil {
		return err
	}
	rows, err := h.Store.Sessions(c.UserContext(), models.SessionFilter{Project: f.Project, Person: person, Offset: f.Offset, Limit: f.Limit})
	if err != nil {
		return err
	}
	facets, err := h.Store.FeedFacets(c.UserContext())
	if err != nil {
		return err
	}
	persons, err := h.Store.Persons(c.UserContext())
	if err != nil {
		return err
	}
	page := newPage(rows, f.Limit)
	p := views.SessionsPage{
		Meta: h.PageMeta(c, "Sessions", "sessions"), Project: f.Project, Projects: facets.Projects, Person: person, Persons: persons,
		HasMore: page.HasMore, Offset: f.Offset, NextOffset: f.Offset + f.Limit, PrevOffset: max(0, f.Offset-f.Limit),
		LastEventID: last, Live: f.Offset == 0, Cols: views.SessionCols{Person: len(persons) > 0},
	}
	if p.Rows, err = h.sessionRows(c.UserContext(), page.Items); err != nil {
		return err
	}
	for _, r := range p.Rows {
		p.Cols.Branch = p.Cols.Branch || r.Branch != ""
	}
	return render(c, views.Sessions(p))
}

// sessionListFiles is how many changed files a session list row names.
const sessionListFiles = 3

// sessionRows makes the session list's rows, with each session's digest.
func (h *Handler) sessionRows(ctx context.Context, items []models.SessionStats) ([]views.SessionRow, error) {
	ids := make([]int64, len(items))
	for i, s := range items {
		ids[i] = s.ID
	}
	digests, err := h.Store.SessionDigests(ctx, ids, sessionListFiles)
	if err != nil {
		return nil, err
	}
	rows := make([]views.SessionRow, len(items))
	for i, s := range items {
		rows[i] = sessionRow(s)
		if d := digests[s.ID]; d != nil {
			rows[i].Outcome, rows[i].Files, rows[i].MoreFiles = d.Outcome, d.Files, d.MoreFiles
		}
	}
	return rows, nil
}

// ShowSession serves GET /sessions/:id: what happened in one session,
// then its timeline. The page follows the live stream (app.js).
func (h *Handler) ShowSession(c *fiber.Ctx) error {
	s, err := h.sessionParam(c)
	if err != nil {
		return err
	}
	last, err := h.Store.LastEventID(c.UserContext())
	if err != nil {
		return err
	}
	p, err := h.loadSessionPage(c.UserContext(), s)
	if err != nil {
		return err
	}
	p.LastEventID = last
	title := "Session " + strconv.FormatInt(s.ID, 10) + " · " + s.Project
	if s.Title != "" {
		title = s.Title + " · " + title
	}
	p.Meta = h.PageMeta(c, title, "sessions")
	return render(c, views.SessionTimeline(p))
}

// loadSessionPage loads what the session page shows of s.
func (h *Handler) loadSessionPage(ctx context.Context, s *models.Session) (views.SessionPage, error) {
	d, err := loadSessionDetail(ctx, h.Store, s)
	if err != nil {
		return views.SessionPage{}, err
	}
	if err := h.markForView(ctx, pointers(d.Observations)); err != nil {
		return views.SessionPage{}, err
	}
	p := sessionPage(d)
	if p.Memories, err = h.Store.Memories(ctx, models.MemoryFilter{SessionID: s.ID, Limit: 100}); err != nil {
		return p, err
	}
	p.Story = sessionStory(d, &p)
	// A superseded decision stays on the page, saying what replaced it.
	var ids []int64
	for _, m := range p.Story.Decisions {
		if m.State == models.MemorySuperseded && m.SupersededBy != 0 {
			ids = append(ids, m.SupersededBy)
		}
	}
	if len(ids) > 0 {
		repl, err := h.Store.Memories(ctx, models.MemoryFilter{IDs: ids})
		if err != nil {
			return p, err
		}
		byID := map[int64]models.Memory{}
		for _, r := range repl {
			byID[r.ID] = r
		}
		p.Story.ReplacedBy = map[int64]models.Memory{}
		for _, m := range p.Story.Decisions {
			if r, ok := byID[m.SupersededBy]; ok {
				p.Story.ReplacedBy[m.ID] = r
			}
		}
	}
	return p, nil
}

func sessionRow(s models.SessionStats) views.SessionRow {
	return views.SessionRow{
		ID: s.ID, Title: s.Title, TitleEdited: s.TitleEdited, Project: s.Project, Branch: s.GitBranch, Status: s.Status, StartedAt: s.StartedAt,
		EndedAt: s.EndedAt, Prompts: s.Prompts, ToolCalls: s.ToolCalls, Failures: s.Failures, Observations: s.Observations,
		CapturedBy: s.CapturedBy,
	}
}

// sessionPage groups a session's observations and summaries under the
// prompt they belong to, in prompt order, and counts the files touched.
func sessionPage(d *api.SessionDetail) views.SessionPage {
	s := d.Session
	p := views.SessionPage{
		ClaudeID: s.ClaudeSessionID, Cwd: s.Cwd, Source: s.Source, EndReason: s.EndReason, LastResponse: s.LastAssistantMessage,
		Session: views.SessionRow{ID: s.ID, Title: s.Title, TitleEdited: s.TitleEdited, Project: s.Project, Branch: s.GitBranch, Status: s.Status,
			StartedAt: s.StartedAt, EndedAt: s.EndedAt, Prompts: len(d.Prompts), CapturedBy: s.CapturedBy},
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
	status := map[string]string{} // by the session's latest record of each file
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
		if o.Kind == models.KindSearch {
			continue // a search's path is where it looked, not a file it touched
		}
		for _, f := range o.Files {
			files[f]++
			if st, ok := o.FileStatus[f]; ok {
				status[f] = st
			}
		}
	}
	for _, sm := range keepSaying(d.Summaries, singleTurn(d)) {
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
		p.Files = append(p.Files, views.FileTouch{Path: f, Count: n, Status: status[f]})
	}
	sort.Slice(p.Files, func(i, j int) bool {
		if p.Files[i].Count != p.Files[j].Count {
			return p.Files[i].Count > p.Files[j].Count
		}
		return p.Files[i].Path < p.Files[j].Path
	})
	return p
}

// singleTurn is the session's only turn summary when it has one turn
// (keepSaying's turns), from the detail already loaded.
func singleTurn(d *api.SessionDetail) map[int64]models.Summary {
	if len(d.Prompts) > 1 || d.Session.PromptCounter > 1 {
		return nil
	}
	var turns []models.Summary
	for _, sm := range d.Summaries {
		if sm.Kind == models.SummaryTurn {
			turns = append(turns, sm)
		}
	}
	if len(turns) != 1 {
		return nil
	}
	return map[int64]models.Summary{d.Session.ID: turns[0]}
}

// searchPageSize is how many hits a search page shows.
const searchPageSize = 20

// ShowSearch serves GET /search. A query FTS5 refuses, or a malformed
// filter, is answered with the page and a message (status 400), never a 500.
func (h *Handler) ShowSearch(c *fiber.Ctx) error {
	if to, err := h.refLocation(c.UserContext(), c.Query("q")); err != nil {
		return err
	} else if to != "" {
		return c.Redirect(to, fiber.StatusSeeOther)
	}
	p := views.SearchPage{
		Meta: h.PageMeta(c, "Search", "search"),
		Q:    c.Query("q"), Project: c.Query("project"), Type: c.Query("type"), Tool: c.Query("tool"),
		From: c.Query("from"), To: c.Query("to"), SearchMode: h.searchMode(c.Query("mode"), embed.Ran{}),
	}
	facets, err := h.Store.FeedFacets(c.UserContext())
	if err != nil {
		return err
	}
	p.Projects, p.Tools = facets.Projects, facets.Tools
	q, err := searchParams(c)
	q.Limit = searchPageSize + 1 // one more, to tell whether more follow
	p.Offset = q.Offset
	if err == nil && strings.TrimSpace(p.Q) != "" {
		p.Searched = true
		var hits []models.SearchHit
		var ran embed.Ran
		hits, ran, err = h.search(c.UserContext(), q, p.Mode)
		if err == nil {
			p.SearchMode = h.searchMode(p.Mode, ran)
		}
		page := newPage(hits, searchPageSize)
		p.HasMore, p.NextOffset = page.HasMore, q.Offset+searchPageSize
		var titles map[int64]string
		if err == nil {
			titles, err = h.Store.SessionTitles(c.UserContext(), sessionIDs(page.Items, func(h models.SearchHit) int64 { return h.SessionID }))
		}
		for _, hit := range page.Items {
			p.Results = append(p.Results, searchResult(hit, titles))
			// Hybrid hits are in fused order whatever the text leg's.
			p.NewestFirst = p.NewestFirst || !hit.Ranked && ran.Mode == embed.ModeText
		}
	}
	if err != nil {
		if !errors.Is(err, models.ErrInvalid) {
			return err
		}
		p.Error = err.Error()
		c.Status(fiber.StatusBadRequest)
	}
	return render(c, views.Search(p))
}

// searchMode is a page's view of a search asked for in mode that ran as
// ran says (its zero value before one ran).
func (h *Handler) searchMode(mode string, ran embed.Ran) views.SearchMode {
	used := ran.Mode
	m := views.SearchMode{Semantic: h.Embed.Enabled(), Mode: mode, Used: used}
	m.FellBack = used == embed.ModeText && mode != embed.ModeText && m.Semantic
	m.Off = used == embed.ModeText && mode == embed.ModeHybrid && !m.Semantic
	if ran.Words != nil {
		m.Words = ran.Words.Msg
	}
	return m
}

func searchResult(hit models.SearchHit, titles map[int64]string) views.SearchResult {
	r := views.SearchResult{
		Type: hit.Type, ID: hit.ID, SessionID: hit.SessionID, SessionTitle: titles[hit.SessionID], Project: hit.Project, Title: hit.Title,
		ToolName: hit.ToolName, Kind: hit.Kind, Success: hit.Success, PromptNumber: hit.PromptNumber, At: hit.CreatedAt,
	}
	for _, part := range models.SplitSnippet(hit.Snippet) {
		r.Snippet = append(r.Snippet, views.SnippetPart{Text: part.Text, Match: part.Match})
	}
	if hit.Type == models.SearchPrompt {
		// "Prompt #1" names nothing: say whose prompt it is.
		of := titles[hit.SessionID]
		if of == "" {
			of = "session " + ref.Sess(hit.SessionID)
		} else {
			of = "“" + of + "”"
		}
		r.Title = "Prompt " + strconv.Itoa(hit.PromptNumber) + " of " + of
	}
	return r
}

// ShowStats serves GET /stats: totals and SVG charts of a window of days.
func (h *Handler) ShowStats(c *fiber.Ctx) error {
	q, err := statsParams(c)
	if err != nil {
		return err
	}
	project, days := q.Project, q.Days
	st, err := h.Store.Stats(c.UserContext(), models.StatsQuery{Project: project, Days: days})
	if err != nil {
		return err
	}
	facets, err := h.Store.FeedFacets(c.UserContext())
	if err != nil {
		return err
	}
	p := statsPage(st, project)
	p.Meta, p.Project, p.Projects, p.Days = h.PageMeta(c, "Stats", "stats"), project, facets.Projects, days
	if p.LLM, err = h.llmSpend(c.UserContext()); err != nil {
		return err
	}
	return render(c, views.Stats(p))
}

// llmSpend reads the token ledger against the daily budget in force.
func (h *Handler) llmSpend(ctx context.Context) (views.LLMSpend, error) {
	sum := h.Settings.Policy().Settings.Summarizer
	t, err := h.Store.LedgerTotals(ctx, time.Now().UTC(), 30, sum.DailyTokenBudget)
	if err != nil {
		return views.LLMSpend{}, err
	}
	l := views.LLMSpend{
		Summarizer: sum.Kind, DailyBudget: t.DailyBudget, Exceeded: t.BudgetExceeded,
		TodayTokens: t.Today.InputTokens + t.Today.OutputTokens, TodayCalls: t.Today.Calls,
		AllTokens: t.All.InputTokens + t.All.OutputTokens, AllCalls: t.All.Calls, AllCostUSD: t.All.CostUSD,
	}
	for _, d := range t.Days {
		l.MonthTokens += d.InputTokens + d.OutputTokens
	}
	return l, nil
}

// statsPage turns the aggregates into the page's charts; project is the
// page's project filter ("" for all).
func statsPage(st *models.Stats, project string) views.StatsPage {
	p := views.StatsPage{
		From: st.From, To: st.To, Sessions: st.Totals.Sessions, Prompts: st.Totals.Prompts,
		ToolCalls: st.Totals.Observations, Failures: st.Totals.Failures, Summaries: st.Totals.Summaries,
	}
	var activity, failures, tools, files, projects []views.Point
	for _, d := range st.Days {
		activity = append(activity, views.Point{Label: d.Day, Value: d.Observations, Sub: d.Failures})
		failures = append(failures, views.Point{Label: d.Day, Value: d.Failures})
	}
	for _, t := range st.Tools {
		tools = append(tools, views.Point{Label: t.Name, Value: t.Count})
	}
	for _, f := range st.Files {
		files = append(files, views.Point{Label: shortPath(views.ProjectPath(f.Project, f.Name, project != ""), 56), Value: f.Count})
	}
	for _, pr := range st.Projects {
		projects = append(projects, views.Point{Label: pr.Project, Value: pr.Observations, Sub: pr.Failures})
		p.ProjectRows = append(p.ProjectRows, views.ProjectRow{Project: pr.Project, Sessions: pr.Sessions, Prompts: pr.Prompts, ToolCalls: pr.Observations, Failures: pr.Failures})
	}
	p.Activity = views.NewColumnChart(activity, false, "Tool calls per day")
	p.FailuresByDay = views.NewColumnChart(failures, true, "Failures per day")
	p.Tools = views.NewHBarChart(tools, "Tool calls by tool")
	p.Files = views.NewHBarChart(files, "Most touched files")
	p.PerProject = views.NewHBarChart(projects, "Tool calls per project")
	return p
}

// shortPath keeps the end of a long path, where the file name is.
func shortPath(p string, max int) string {
	r := []rune(p)
	if len(r) <= max {
		return p
	}
	return "…" + string(r[len(r)-max+1:])
}

// refLocation is where the row q names is shown, when q is an id with
// its "#" (#12, #m6, #s7: package ref) and that row is stored; "" when q
// is anything else. Without the "#" it is a search: "s3" and "m1" are
// words people look for.
func (h *Handler) refLocation(ctx context.Context, q string) (string, error) {
	q = strings.TrimSpace(q)
	if !strings.HasPrefix(q, "#") {
		return "", nil
	}
	r, err := ref.Parse(q)
	if err != nil {
		return "", nil
	}
	switch r.Kind {
	case ref.Observation:
		obs, err := h.Store.ObservationsByIDs(ctx, []int64{r.ID})
		if err != nil || len(obs) == 0 {
			return "", err
		}
		return "/sessions/" + strconv.FormatInt(obs[0].SessionID, 10) + "#obs-" + strconv.FormatInt(r.ID, 10), nil
	case ref.Memory:
		ms, err := h.Store.Memories(ctx, models.MemoryFilter{IDs: []int64{r.ID}})
		if err != nil || len(ms) == 0 {
			return "", err
		}
		return views.MemoryRowURL(ms[0]), nil
	case ref.Session:
		_, err := h.Store.SessionByID(ctx, r.ID)
		if errors.Is(err, models.ErrNotFound) {
			return "", nil // not stored (or forgotten): search for the words
		}
		if err != nil {
			return "", err
		}
		return "/sessions/" + strconv.FormatInt(r.ID, 10), nil
	}
	return "", nil
}
