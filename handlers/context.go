package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/views"
)

// contextPreview builds exactly what a new session of project would be
// given now, with its size.
func (h *Handler) contextPreview(ctx context.Context, project string) (views.ContextPreview, error) {
	p := views.ContextPreview{Project: project, MaxTokens: h.Settings.Policy().Settings.Injection.MaxInjectTokens}
	if project == "" {
		return p, nil
	}
	text, err := h.Capture.PreviewContext(ctx, project)
	if err != nil {
		return p, err
	}
	p.Text, p.Bytes, p.Tokens = text, len(text), recall.EstimateTokens(text)
	return p, nil
}

// PreviewContextJSON serves GET /api/settings/preview?project=: the block a
// new session of the project would receive now, its estimated tokens and
// bytes, and the budget in force.
func (h *Handler) PreviewContextJSON(c *fiber.Ctx) error {
	project := c.Query("project")
	if project == "" {
		return badRequest("missing project")
	}
	p, err := h.contextPreview(c.UserContext(), project)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"project": p.Project, "text": p.Text, "tokens": p.Tokens, "bytes": p.Bytes, "maxTokens": p.MaxTokens})
}
