package models

import (
	"context"
	"time"
)

// The search index of observations is kept off the commit path (see
// migration 8): a committed observation is queued in
// observations_fts_pending, and FlushSearchIndex adds the queue to the
// index in large batches. Every search (and every recall lookup) flushes
// the queue first, so a search sees every write acknowledged before it.
//
// In the background the store indexes what is queued once the writer has
// had a quiet indexEvery (nothing but the indexer committed), or at once
// when indexBacklog rows wait. A burst of ingests (a replayed spool, 16
// clients at full speed) therefore spends the writer on acknowledging
// writes and indexes right after it; the backlog bounds what one search
// can find to index first: about 20,000 rows, half a second on 2 cores.

// indexEvery is how often the background indexer looks for queued rows.
const indexEvery = 100 * time.Millisecond

// indexBatch is how many queued rows one indexing transaction takes.
const indexBatch = 5000

// indexBacklog is how many queued rows the background indexer lets wait
// while the writer is busy.
const indexBacklog = 20_000

// pendingIndex counts the observations committed but not yet in the
// search index: none on PostgreSQL, whose fts columns are generated with
// the row.
func (s *Store) pendingIndex(ctx context.Context) (int64, error) {
	if s.Postgres() {
		return 0, nil
	}
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM observations_fts_pending`).Row().Scan(&n)
	return n, err
}

// FlushSearchIndex adds every queued observation to the search index,
// through the writer (so it is ordered with the writes), indexBatch rows
// per transaction. A read-only store has nothing it could flush, nor has
// a PostgreSQL one (its fts columns are generated with the row).
func (s *Store) FlushSearchIndex(ctx context.Context) error {
	if s.readOnly || s.Postgres() {
		return nil
	}
	for {
		var queued bool
		if err := s.db.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM observations_fts_pending)`).Row().Scan(&queued); err != nil || !queued {
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

// indexer flushes the search index in the background until the store
// closes: after a tick in which the writer committed nothing but the
// indexer's own work, or when indexBacklog rows wait. A failed round is
// counted (IndexerStats) and tried again at the next tick, or by the next
// search.
func (s *Store) indexer() {
	defer close(s.idxDone)
	if s.Postgres() {
		return // nothing is ever queued
	}
	t := time.NewTicker(indexEvery)
	defer t.Stop()
	seen := s.Writer.Stats().Ops
	for {
		select {
		case <-s.ckptStop:
			return
		case <-t.C:
		}
		ops := s.Writer.Stats().Ops
		queued, err := s.queuedRows()
		if err == nil && (ops == seen || queued >= indexBacklog) {
			err = s.FlushSearchIndex(context.Background())
		}
		if err != nil {
			s.idxErrs.add(err, "")
		}
		seen = s.Writer.Stats().Ops
	}
}

// queuedRows is how many rows at most wait for the search index: the span
// of the queue's ids, read from the ends of its primary key.
func (s *Store) queuedRows() (int64, error) {
	var n int64
	err := s.db.Raw(`SELECT COALESCE(MAX(id) - MIN(id) + 1, 0) FROM observations_fts_pending`).Row().Scan(&n)
	return n, err
}
