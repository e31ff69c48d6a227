package handlers

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/fullexport"
	"github.com/mneme-dev/mneme/models"
)

// ImportExportRows serves POST /api/import/export-rows, what `mneme
// import FILE.json` sends: sessions of the full export, one
// fullexport.Session per line, restored by fullexport.Restore: checked
// (ranges, kinds, statuses, times), cleaned by this machine's privacy
// settings, merged with what is here, each session in one write; a
// session holding a value capture would never store is refused alone,
// named in the answer's refused list, and the others are stored. The
// whole batch is read before anything is stored: a malformed line
// refuses it all. Restored rows publish nothing on the live stream (the viewer
// shows them on its next load): thousands of rows must not flood /stream.
func (h *Handler) ImportExportRows(c *fiber.Ctx) error {
	var batch []fullexport.Session
	err := eachLine(c.Body(), func(n int, line []byte) error {
		var s fullexport.Session
		if err := json.Unmarshal(line, &s); err != nil {
			return fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf("session %d: malformed JSON: %v", n, err))
		}
		if s.Session.ClaudeSessionID == "" {
			return fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf("session %d: no claudeSessionId", n))
		}
		batch = append(batch, s)
		return nil
	})
	if err != nil {
		return err
	}
	res, err := fullexport.Restore(c.UserContext(), h.Store, h.Settings.Policy(), batch, time.Now())
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// ImportExportMemories serves POST /api/import/export-memories, what
// `mneme import FILE.json` sends for the full export's memories stated
// outside any session: one models.ExportMemory per line. As for sessions,
// a malformed line refuses the batch; fullexport.RestoreMemories checks,
// cleans and restores the rest in one write.
func (h *Handler) ImportExportMemories(c *fiber.Ctx) error {
	var ms []models.ExportMemory
	err := eachLine(c.Body(), func(n int, line []byte) error {
		var m models.ExportMemory
		if err := json.Unmarshal(line, &m); err != nil {
			return fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf("memory %d: malformed JSON: %v", n, err))
		}
		ms = append(ms, m)
		return nil
	})
	if err != nil {
		return err
	}
	res, err := fullexport.RestoreMemories(c.UserContext(), h.Store, h.Settings.Policy(), ms, time.Now())
	if err != nil {
		return err
	}
	return c.JSON(res)
}
