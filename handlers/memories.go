package handlers

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/memory"
	"github.com/mneme-dev/mneme/models"
)

// memoryFilterParams reads a memory listing's filters: project, session,
// kind, state and speaker (each a comma-separated list; state "all" is
// every state), as_of (what was in force then: a date, YYYY-MM-DD, as
// that day ended in UTC, or an RFC 3339 time), offset and limit.
func memoryFilterParams(c *fiber.Ctx) (models.MemoryFilter, error) {
	f := models.MemoryFilter{Project: strings.Clone(c.Query("project"))}
	var err error
	if f.SessionID, err = optionalID(c, "session"); err != nil {
		return f, err
	}
	if f.IDs, err = idsParam(c, "id"); err != nil {
		return f, err
	}
	if f.Kinds, err = listOf(c, "kind", models.ValidMemoryKind); err != nil {
		return f, err
	}
	if c.Query("state") != "all" {
		if f.States, err = listOf(c, "state", models.ValidMemoryState); err != nil {
			return f, err
		}
	}
	if f.Speakers, err = listOf(c, "speaker", models.ValidSpeaker); err != nil {
		return f, err
	}
	if f.AsOf, err = asOfParam(c); err != nil {
		return f, err
	}
	if f.AsOf != nil && len(f.States) > 0 {
		return f, invalidParam("as_of lists what was in force then, whatever its state now: leave state out (or state=all)")
	}
	if f.Offset, err = offsetParam(c); err != nil {
		return f, err
	}
	f.Limit, err = intParam(c, "limit", 100, 1, 500)
	return f, err
}

// asOfParam reads as_of: a date (YYYY-MM-DD), meaning as that day ended
// (UTC), or an RFC 3339 time; nil when absent.
func asOfParam(c *fiber.Ctx) (*time.Time, error) {
	v := strings.TrimSpace(c.Query("as_of"))
	if v == "" {
		return nil, nil
	}
	at, err := parseAsOf(v)
	if err != nil {
		return nil, invalidParam("as_of must be a date (YYYY-MM-DD) or an RFC 3339 time, not %q", v)
	}
	return &at, nil
}

// parseAsOf reads an as-of time: a date (YYYY-MM-DD) is the last instant
// of that day in UTC (what held as the day ended), an RFC 3339 time is
// itself.
func parseAsOf(v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t.AddDate(0, 0, 1).Add(-time.Microsecond), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	return t.UTC(), err
}

// optionalID is the positive id in query parameter name, 0 when absent.
func optionalID(c *fiber.Ctx, name string) (int64, error) {
	if c.Query(name) == "" {
		return 0, nil
	}
	return idParam(c, name)
}

// listOf reads a comma-separated query parameter whose values valid accepts.
func listOf(c *fiber.Ctx, name string, valid func(string) bool) ([]string, error) {
	raw := c.Query(name)
	if raw == "" {
		return nil, nil
	}
	var out []string
	for _, v := range strings.Split(raw, ",") {
		v = strings.TrimSpace(v)
		if !valid(v) {
			return nil, invalidParam("%s: unknown value %q", name, v)
		}
		out = append(out, strings.Clone(v))
	}
	return out, nil
}

// ListMemories serves GET /api/memories: the memories of project (and
// session), by kind, state and speaker, or those in force at as_of,
// pinned first then newest; with q, those
// matching it, best first, in mode (hybrid, text or semantic, as
// /api/search: hybrid by default when embeddings are on, else FTS5
// syntax alone). The answer is {items, hasMore}, and with q the mode the
// search ran in and, when a hybrid search's words could not be read (it
// answered by meaning alone), wordsError: why.
func (h *Handler) ListMemories(c *fiber.Ctx) error {
	f, err := memoryFilterParams(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	if q := strings.Clone(c.Query("q")); strings.TrimSpace(q) != "" {
		items, ran, err := h.searchMemories(ctx, models.MemorySearch{Q: q, Project: f.Project, Kinds: f.Kinds, States: f.States,
			AsOf: f.AsOf, Speakers: f.Speakers, Offset: f.Offset, Limit: f.Limit}, c.Query("mode"))
		if err != nil {
			return err
		}
		res := api.MemoryResults{Page: newPage(items, f.Limit), Mode: ran.Mode}
		if ran.Words != nil {
			res.WordsError = ran.Words.Msg
		}
		return c.JSON(res)
	}
	f.Limit++
	items, err := h.Store.Memories(ctx, f)
	f.Limit--
	if err != nil {
		return err
	}
	return c.JSON(newPage(items, f.Limit))
}

// RememberInput is the body of POST /api/memories: a decision or a
// constraint stated explicitly (by Claude through MCP, or by the user).
type RememberInput struct {
	Project string   `json:"project"`
	Kind    string   `json:"kind"`
	Text    string   `json:"text"`
	Files   []string `json:"files"`
	Source  string   `json:"source"` // claude (default) or user
}

// Remember serves POST /api/memories: it stores the statement, cleaned by
// the privacy pipeline in force, as a memory of the project (it
// supersedes nothing by itself), and answers the stored memory. Who said
// it: the user (source user) or Claude (source claude) for the owner; a
// person's token (team mode) makes it that teammate's, proposed until
// the owner accepts it unless the settings trust them (memory.trust).
func (h *Handler) Remember(c *fiber.Ctx) error {
	var in RememberInput
	if err := json.Unmarshal(c.Body(), &in); err != nil {
		return badRequest("malformed JSON: " + err.Error())
	}
	if in.Source == "" {
		in.Source = models.SourceClaude
	}
	if in.Source != models.SourceClaude && in.Source != models.SourceUser {
		return badRequest("source must be claude or user")
	}
	if strings.TrimSpace(in.Project) == "" {
		return badRequest("project is required")
	}
	m, err := memory.Remember(c.UserContext(), h.Store, h.Settings.Policy(),
		models.Memory{Project: in.Project, Kind: in.Kind, Text: in.Text, Source: in.Source, Files: in.Files}, capture.PersonFrom(c.UserContext()))
	if err != nil {
		return err
	}
	return c.JSON(m)
}

// MemoryChange is the body of POST /api/memories/:id: one change.
type MemoryChange struct {
	Action string `json:"action"` // pin, unpin, retire, reinstate, edit, accept, reject
	Text   string `json:"text"`   // the new text, for edit
}

// ChangeMemory serves POST /api/memories/:id: pin, unpin, retire,
// reinstate or edit a memory, or accept or reject a teammate's proposed
// one; the answer is the memory as it is now. The route is the owner's
// only (a person's token is refused before this runs).
func (h *Handler) ChangeMemory(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var in MemoryChange
	if err := json.Unmarshal(c.Body(), &in); err != nil {
		return badRequest("malformed JSON: " + err.Error())
	}
	m, err := h.changeMemory(c, id, in)
	if err != nil {
		return err
	}
	return c.JSON(m)
}

// changeMemory applies one change to memory id (memory.Change: an
// edited text cleaned by the privacy pipeline).
func (h *Handler) changeMemory(c *fiber.Ctx, id int64, in MemoryChange) (*models.Memory, error) {
	if !memory.KnownChange(in.Action) {
		return nil, badRequest("action must be pin, unpin, retire, reinstate, edit, accept or reject")
	}
	return memory.Change(c.UserContext(), h.Store, h.Settings.Policy(), id, in.Action, in.Text)
}
