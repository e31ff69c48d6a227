package handlers

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/fullexport"
	"github.com/mneme-dev/mneme/internal/report"
	"github.com/mneme-dev/mneme/models"
)

// exportTimeout bounds one streamed export.
const exportTimeout = 10 * time.Minute

// ExportSession serves GET /api/sessions/:id/export?format=md|json|html: the
// session's report as a download, streamed.
func (h *Handler) ExportSession(c *fiber.Ctx) error {
	format, err := report.ParseFormat(c.Query("format"))
	if err != nil {
		return badRequest(strings.TrimPrefix(err.Error(), models.ErrInvalid.Error()+": "))
	}
	s, err := h.sessionParam(c)
	if err != nil {
		return err
	}
	return h.streamReport(c, report.Filename(s, format), report.Request{SessionIDs: []int64{s.ID}, Format: format, Person: capture.PersonFrom(c.UserContext())})
}

// ExportProject serves GET /api/export?project=P&since=YYYY-MM-DD&format=:
// a multi-session report of the project's sessions started since the date.
func (h *Handler) ExportProject(c *fiber.Ctx) error {
	format, err := report.ParseFormat(c.Query("format"))
	if err != nil {
		return badRequest(strings.TrimPrefix(err.Error(), models.ErrInvalid.Error()+": "))
	}
	project := strings.Clone(c.Query("project"))
	if c.Query("since") == "" {
		return badRequest("since is required (YYYY-MM-DD)")
	}
	since, err := timeParam(c, "since", false)
	if err != nil {
		return err
	}
	ids, err := report.SessionsSince(c.UserContext(), h.Store, project, since)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return fiber.NewError(fiber.StatusNotFound, fmt.Sprintf("no session of project %q since %s", project, since.Format("2006-01-02")))
	}
	noun := "sessions"
	if len(ids) == 1 {
		noun = "session"
	}
	title := fmt.Sprintf("%s: %d %s since %s", project, len(ids), noun, since.Format("2006-01-02"))
	return h.streamReport(c, report.ProjectFilename(project, since, format), report.Request{SessionIDs: ids, Format: format, Title: title, Person: capture.PersonFrom(c.UserContext())})
}

// streamReport answers with the report as an attachment, written while it
// is generated.
func (h *Handler) streamReport(c *fiber.Ctx, filename string, req report.Request) error {
	c.Set(fiber.HeaderContentType, report.ContentType(req.Format))
	return h.streamDownload(c, filename, func(ctx context.Context, w *bufio.Writer) error {
		return report.Export(ctx, h.Store, w, req)
	})
}

// streamDownload answers with an attachment that write writes while the
// response goes out, within exportTimeout. Once it has started, headers
// are gone: an error is logged and the truncated body is all the client
// sees.
func (h *Handler) streamDownload(c *fiber.Ctx, filename string, write func(context.Context, *bufio.Writer) error) error {
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+filename+`"`)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set(fiber.HeaderCacheControl, "no-store")
	log := h.Log
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
		defer cancel()
		if err := write(ctx, w); err != nil && log != nil {
			log.Error("export failed", "file", filename, "err", err)
		}
		w.Flush()
	})
	return nil
}

// ExportAll serves GET /api/export/all: every session with its prompts,
// observations and summaries, as one JSON document streamed while it is
// read (internal/fullexport owns the format). `mneme export --all`.
func (h *Handler) ExportAll(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, "application/json; charset=utf-8")
	name := "mneme-export-" + time.Now().UTC().Format("2006-01-02") + ".json"
	return h.streamDownload(c, name, func(ctx context.Context, w *bufio.Writer) error {
		_, err := fullexport.Write(ctx, h.Store, w, time.Now())
		return err
	})
}
