package fullexport

import (
	"context"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// Cleaner puts restored rows through this machine's privacy settings
// (shape.Policy): the export was redacted by the rules of the machine
// that wrote it, which may be fewer.
type Cleaner interface {
	// CleanRestored cleans r, and reports false when its session's
	// project is excluded here: nothing of it is to be stored.
	CleanRestored(r *models.RestoreRows) bool
	// CleanRestoredMemories cleans ms and keeps those whose project is
	// not excluded here.
	CleanRestoredMemories(ms []models.ExportMemory) []models.ExportMemory
}

// Restore stores the sessions of a full export in store, as they were
// stored (they were redacted and compressed when captured) after one more
// pass of clean, merged with what is there (models.Tx.Restore). Each
// session is one write, stored whole or not at all. A session holding a
// value capture would never store (Check) is refused alone, named in the
// answer's refused list; a session of a project excluded here is skipped;
// the others are stored. A part marked Continued does not count its
// session again.
func Restore(ctx context.Context, store *models.Store, clean Cleaner, batch []Session, now time.Time) (models.RestoreCounts, error) {
	var res models.RestoreCounts
	for i := range batch {
		s := &batch[i]
		rows := s.Rows()
		if err := Check(&rows, now); err != nil {
			res.Refuse(s.Session.ClaudeSessionID, err)
			continue
		}
		if !clean.CleanRestored(&rows) {
			continue // a project excluded here: nothing of it is stored
		}
		var got models.RestoreCounts
		err := store.Writer.Do(ctx, func(tx *models.Tx) error {
			var err error
			got, err = tx.Restore(&rows)
			return err
		})
		if err != nil {
			return res, err
		}
		if s.Continued {
			got.New.Sessions, got.Existing.Sessions = 0, 0
		}
		res.Add(got)
	}
	return res, nil
}

// RestoreMemories stores the full export's memories stated outside any
// session: checked whole (CheckMemories; an error refuses them all),
// cleaned (those of a project excluded here are dropped) and restored in
// one write, merged with what is stored.
func RestoreMemories(ctx context.Context, store *models.Store, clean Cleaner, ms []models.ExportMemory, now time.Time) (models.RestoreCounts, error) {
	var res models.RestoreCounts
	if err := CheckMemories(ms, now); err != nil {
		return res, err
	}
	ms = clean.CleanRestoredMemories(ms)
	err := store.Writer.Do(ctx, func(tx *models.Tx) error {
		var err error
		res, err = tx.RestoreMemories(ms)
		return err
	})
	return res, err
}
