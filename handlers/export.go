package handlers

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

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
	return h.streamReport(c, report.Filename(s, format), report.Request{SessionIDs: []int64{s.ID}, Format: format})
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
	return h.streamReport(c, report.ProjectFilename(project, since, format), report.Request{SessionIDs: ids, Format: format, Title: title})
}

// streamReport answers with the report as an attachment, written while it
// is generated.
func (h *Handler) streamReport(c *fiber.Ctx, filename string, req report.Request) error {
	c.Set(fiber.HeaderContentType, report.ContentType(req.Format))
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+filename+`"`)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set(fiber.HeaderCacheControl, "no-store")
	store, log := h.Store, h.Log
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
		defer cancel()
		if err := report.Export(ctx, store, w, req); err != nil && log != nil {
			// Headers are gone; the truncated body is all the client sees.
			log.Error("export failed", "file", filename, "err", err)
		}
		w.Flush()
	})
	return nil
}
