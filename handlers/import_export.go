package handlers

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/models"
)

// ImportExportRows serves POST /api/import/export-rows, what `mneme
// import FILE.json` sends: sessions of the full export, one
// api.ExportSession per line, restored as they were stored (they were
// redacted and compressed when captured) after one more pass of this
// machine's privacy settings (ingest.Policy.CleanRestored), merged with
// what is here (models.Tx.Restore). Each session is one write, stored whole or not at
// all. The whole batch is read before anything is stored: a malformed
// line refuses it all; a session holding a value capture would never
// store (models.RestoreRows.Check: ranges, kinds, statuses, times) is
// refused alone, named in the answer's refused list, and the others are
// stored. Restored rows publish nothing on the live stream (the viewer
// shows them on its next load): thousands of rows must not flood /stream.
func (h *Handler) ImportExportRows(c *fiber.Ctx) error {
	var batch []api.ExportSession
	err := eachLine(c.Body(), func(n int, line []byte) error {
		var s api.ExportSession
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
	var res models.RestoreCounts
	pol := h.Capture.Policy()
	now := time.Now()
	for i := range batch {
		s := &batch[i]
		rows := models.RestoreRows{Session: s.Session, Prompts: s.Prompts, Summaries: s.Summaries, Observations: s.Observations, Memories: s.Memories}
		if err := rows.Check(now); err != nil {
			res.Refuse(s.Session.ClaudeSessionID, err)
			continue
		}
		if !pol.CleanRestored(&rows) {
			continue // a project excluded here: nothing of it is stored
		}
		var got models.RestoreCounts
		err := h.Store.Writer.Do(c.UserContext(), func(tx *models.Tx) error {
			var err error
			got, err = tx.Restore(&rows)
			return err
		})
		if err != nil {
			return err
		}
		if s.Continued {
			got.New.Sessions, got.Existing.Sessions = 0, 0
		}
		res.Add(got)
	}
	return c.JSON(res)
}

// ImportExportMemories serves POST /api/import/export-memories, what
// `mneme import FILE.json` sends for the full export's memories stated
// outside any session: one models.ExportMemory per line. As for sessions,
// a malformed line refuses the batch; the batch is checked whole
// (models.CheckMemories), cleaned by this machine's privacy settings
// (memories of a project excluded here are dropped), and restored in one
// write, merged with what is stored.
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
	if err := models.CheckMemories(ms, time.Now()); err != nil {
		return err
	}
	ms = h.Capture.Policy().CleanRestoredMemories(ms)
	var res models.RestoreCounts
	err = h.Store.Writer.Do(c.UserContext(), func(tx *models.Tx) error {
		var err error
		res, err = tx.RestoreMemories(ms)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(res)
}
