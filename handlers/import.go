package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/internal/transcript"
	"github.com/mneme-dev/mneme/views"
)

// Importer runs the viewer's imports of Claude Code's transcripts
// (transcript.Job).
type Importer interface {
	Scan(ctx context.Context) (transcript.Preview, error)
	Count() (dir string, files int, bytes int64)
	Start() error
	State() transcript.State
}

// ShowImportJSON serves GET /api/import.
func (h *Handler) ShowImportJSON(c *fiber.Ctx) error {
	out := api.ImportStatus{State: h.Import.State()}
	counts, err := h.Store.Counts(c.UserContext())
	if err != nil {
		return err
	}
	out.Counts = counts
	return c.JSON(out)
}

// ImportEvents serves POST /api/import/events, what `mneme import` sends:
// hook events rebuilt from transcripts, one api.ImportEvent per line,
// stored in order through the capture pipeline as POST /api/hooks/{event}
// stores one. A malformed event is refused and listed; a storage error
// stops the batch (the client stops too: a second run stores nothing
// twice).
func (h *Handler) ImportEvents(c *fiber.Ctx) error {
	var res api.ImportResult
	err := eachLine(c.Body(), func(n int, line []byte) error {
		var ev api.ImportEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			res.Refused = append(res.Refused, fmt.Sprintf("event %d: malformed JSON", n))
			return nil
		}
		name, ok := hookwire.EventName(ev.Event)
		if !ok {
			res.Refused = append(res.Refused, fmt.Sprintf("event %d: unknown event %q", n, ev.Event))
			return nil
		}
		p, err := shape.Decode(name, ev.Payload)
		if err != nil {
			res.Refused = append(res.Refused, fmt.Sprintf("event %d (%s): %v", n, name, err))
			return nil
		}
		if _, err := h.Capture.Handle(c.UserContext(), name, p); err != nil {
			return err
		}
		res.Stored++
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// eachLine calls fn with each non-blank line of an NDJSON body, numbered
// from 1, until fn fails.
func eachLine(body []byte, fn func(n int, line []byte) error) error {
	for n := 1; len(body) > 0; n++ {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	return nil
}

// ShowImport serves GET /import: a dry run of the transcripts directory,
// and the import running or last run.
func (h *Handler) ShowImport(c *fiber.Ctx) error {
	return h.renderImport(c, fiber.StatusOK, "")
}

// StartImport serves POST /import (the page's form): it starts an import
// in the background, or says why not.
func (h *Handler) StartImport(c *fiber.Ctx) error {
	// The page said so already; a directory emptied since says it again.
	if dir, files, _ := h.Import.Count(); files == 0 {
		return h.renderImport(c, fiber.StatusConflict, "Nothing to import: there are no Claude Code transcripts in "+dir+".")
	}
	if err := h.Import.Start(); err != nil {
		if errors.Is(err, transcript.ErrRunning) {
			return h.renderImport(c, fiber.StatusConflict, "An import is already running (here or from `mneme import`). Start another once it has finished: nothing is imported twice.")
		}
		return err
	}
	return c.Redirect("/import", fiber.StatusSeeOther)
}

func (h *Handler) renderImport(c *fiber.Ctx, status int, msg string) error {
	p := views.ImportPage{Meta: h.PageMeta(c, "Import", "import"), Message: msg}
	st := h.Import.State()
	p.Running, p.Progress, p.Last, p.LastAt = st.Running, importProgress(st.Progress), lastImport(st), st.Finished
	pre, err := h.Import.Scan(c.UserContext())
	if err != nil {
		p.ScanErr = "The transcripts could not be read: " + err.Error()
	}
	p.Dir, p.Files, p.MB, p.Known, p.Problems, p.Missing = pre.Dir, pre.Stats.Files, pre.Stats.Bytes>>20, pre.Known, pre.Stats.Skipped, pre.Missing
	p.Total = importRow("", pre.Stats.Counts)
	for name, n := range pre.Stats.Projects {
		p.Projects = append(p.Projects, importRow(name, *n))
	}
	sort.Slice(p.Projects, func(i, j int) bool { return p.Projects[i].Project < p.Projects[j].Project })
	c.Status(status)
	return render(c, views.Import(p))
}

func importRow(project string, n transcript.Counts) views.ImportRow {
	return views.ImportRow{Project: project, Sessions: n.Sessions, Prompts: n.Prompts, ToolCalls: n.Observations, Failures: n.Failures}
}

func importProgress(p transcript.Progress) views.ImportProgress {
	return views.ImportProgress{Done: p.BytesDone, Total: p.Bytes, Text: ProgressText(p)}
}

// ProgressText is a running import's position in words; import.js writes
// the same from import_progress events.
func ProgressText(p transcript.Progress) string {
	return fmt.Sprintf("%d of %d files: %d sessions, %d prompts, %d tool calls", p.FilesDone, p.Files, p.Sessions, p.Prompts, p.Observations)
}

func lastImport(st transcript.State) string {
	if st.Running || st.Stats == nil {
		return ""
	}
	s := st.Stats
	text := fmt.Sprintf("Read %s, %s, %s (%d failed) from %s; skipped %d, errors %d.",
		count(int64(s.Sessions), "session", "sessions"), count(int64(s.Prompts), "prompt", "prompts"), count(int64(s.Observations), "tool call", "tool calls"),
		s.Failures, count(int64(s.Files), "file", "files"), s.Skipped, s.Errors)
	if n := st.New; n != nil {
		text = fmt.Sprintf("New in memory: %s, %s, %s; %s already there. ",
			count(int64(n.Sessions), "session", "sessions"), count(int64(n.Prompts), "prompt", "prompts"), count(int64(n.Observations), "tool call", "tool calls"),
			count(int64(st.Known), "session was", "sessions were")) + text
	}
	if st.Error != "" {
		text += " Stopped: " + st.Error
	}
	return text
}

// knownRequest is POST /api/import/known: Claude Code session ids.
type knownRequest struct {
	IDs []string `json:"ids"`
}

// KnownSessions serves POST /api/import/known: {"ids": [...]} (Claude Code
// session ids) → {"known": n}, how many of them are in memory.
func (h *Handler) KnownSessions(c *fiber.Ctx) error {
	var req knownRequest
	if err := json.Unmarshal(c.Body(), &req); err != nil {
		return badRequest(`body must be JSON like {"ids": ["<Claude Code session id>", …]}`)
	}
	n, err := h.Store.KnownSessions(c.UserContext(), req.IDs)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"known": n})
}
