package handlers

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/views"
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
		return "", badRequest("state must be current, superseded, done, retired or all")
	}
	return strings.Clone(s), nil
}

// statesOf is the store filter of a page state.
func statesOf(state string) []string {
	if state == "all" {
		return nil
	}
	return []string{state}
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

// ShowMemory serves GET /memory: a project's memories by kind, in one
// state (in force by default), with their actions.
func (h *Handler) ShowMemory(c *fiber.Ctx) error {
	ctx := c.UserContext()
	state, err := memoryState(c)
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
	p := views.MemoryPage{Meta: h.PageMeta(c, "Memory", "memory"), Project: project, Projects: projects, State: state, LastEventID: last}
	if project != "" {
		for _, kind := range models.MemoryKinds {
			ms, err := h.Store.Memories(ctx, models.MemoryFilter{Project: project, Kinds: []string{kind}, States: statesOf(state), Limit: memoryPageLimit})
			if err != nil {
				return err
			}
			g := views.MemoryGroup{Kind: kind}
			for _, m := range ms {
				it, err := h.memoryItem(ctx, m)
				if err != nil {
					return err
				}
				g.Items = append(g.Items, it)
			}
			p.Groups = append(p.Groups, g)
		}
	}
	return render(c, views.Memory(p))
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
	if state != "all" && m.State != state {
		return c.SendStatus(fiber.StatusNoContent)
	}
	it, err := h.memoryItem(c.UserContext(), *m)
	if err != nil {
		return err
	}
	return render(c, views.MemoryRow(it, ""))
}

// MemoryForm serves POST /memory/:id, a row's forms on the Memory page:
// action pin, unpin, retire, reinstate or edit (with text). It goes back
// to the Memory page, at the row.
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
	back := "/memory?project=" + url.QueryEscape(m.Project)
	if s := c.Query("state"); s != "" && (s == "all" || models.ValidMemoryState(s)) {
		back += "&state=" + s
	}
	return c.Redirect(back+"#mem-"+strconv.FormatInt(m.ID, 10), fiber.StatusSeeOther)
}

// pathID reads the route's :id, a positive whole number.
func pathID(c *fiber.Ctx) (int64, error) {
	n, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || n <= 0 {
		return 0, badRequest("id must be a positive whole number")
	}
	return n, nil
}
