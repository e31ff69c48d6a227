package models

import (
	"context"
	"time"
)

// The search index of observations is kept off the commit path (see
// migration 8): a committed observation is queued in
// observations_fts_pending, and FlushSearchIndex adds the queue to the
// index in large batches. The store flushes it in the background every
// indexEvery, and every search flushes it first, so a search sees every
// write acknowledged before it.

// indexEvery is how often the background indexer looks for queued rows.
const indexEvery = 100 * time.Millisecond

// indexBatch is how many queued rows one indexing transaction takes.
const indexBatch = 5000

// PendingIndex counts the observations committed but not yet in the
// search index.
func (s *Store) PendingIndex(ctx context.Context) (int64, error) {
	var n int64
	err := s.DB.WithContext(ctx).Raw(`SELECT COUNT(*) FROM observations_fts_pending`).Row().Scan(&n)
	return n, err
}

// FlushSearchIndex adds every queued observation to the search index,
// through the writer (so it is ordered with the writes), indexBatch rows
// per transaction. A read-only store has nothing it could flush.
func (s *Store) FlushSearchIndex(ctx context.Context) error {
	if s.readOnly {
		return nil
	}
	for {
		var queued bool
		if err := s.DB.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM observations_fts_pending)`).Row().Scan(&queued); err != nil || !queued {
			return err
		}
		var n int64
		if err := s.Writer.Do(ctx, func(tx *Tx) error {
			var err error
			n, err = tx.indexPending(indexBatch)
			return err
		}); err != nil || n < indexBatch {
			return err
		}
	}
}

// indexPending indexes up to limit queued observations, oldest first, and
// dequeues them. It returns how many it indexed.
func (tx *Tx) indexPending(limit int) (int64, error) {
	var upto *int64
	if err := tx.db.Raw(`SELECT MAX(id) FROM (SELECT id FROM observations_fts_pending ORDER BY id LIMIT ?)`, limit).Row().Scan(&upto); err != nil || upto == nil {
		return 0, err
	}
	if err := tx.db.Exec(`INSERT INTO observations_fts(rowid, title, input, output, files)
		SELECT o.id, o.title, o.input, o.output, o.files FROM observations_fts_pending p JOIN observations o ON o.id = p.id
		WHERE p.id <= ? ORDER BY p.id`, *upto).Error; err != nil {
		return 0, err
	}
	res := tx.db.Exec(`DELETE FROM observations_fts_pending WHERE id <= ?`, *upto)
	return res.RowsAffected, res.Error
}

// indexer flushes the search index every indexEvery until the store
// closes. Errors are left for the next round (or the next search) to meet.
func (s *Store) indexer() {
	defer close(s.idxDone)
	t := time.NewTicker(indexEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ckptStop:
			return
		case <-t.C:
			_ = s.FlushSearchIndex(context.Background())
		}
	}
}
