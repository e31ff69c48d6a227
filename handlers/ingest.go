package handlers

import (
	"github.com/gofiber/fiber/v2"
	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/shape"
)

// IngestHook takes Claude Code's own hook JSON for one event and answers with
// exactly the JSON the hook must print, after the data is committed.
func (h *Handler) IngestHook(c *fiber.Ctx) error {
	event, ok := hookwire.EventName(c.Params("event"))
	if !ok {
		return fiber.NewError(fiber.StatusNotFound, "unknown hook event "+c.Params("event"))
	}
	if event == hookwire.PreToolUse {
		return h.gate(c, c.Body())
	}
	return h.ingest(c, event, c.Body())
}

// gate answers the file gate (PreToolUse): read-only, so it neither
// announces itself to the group commit nor waits for it.
func (h *Handler) gate(c *fiber.Ctx, body []byte) error {
	p, err := shape.Decode(hookwire.PreToolUse, body)
	if err != nil {
		return badRequest(err.Error())
	}
	out, err := h.Capture.Handle(c.UserContext(), hookwire.PreToolUse, p)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// ingest decodes body as a hook payload for event and runs it through the
// capture pipeline.
func (h *Handler) ingest(c *fiber.Ctx, event string, body []byte) error {
	ctx, done := h.Capture.Expect(c.UserContext())
	defer done()
	p, err := shape.Decode(event, body)
	if err != nil {
		return badRequest(err.Error())
	}
	out, err := h.Capture.Handle(ctx, event, p)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
