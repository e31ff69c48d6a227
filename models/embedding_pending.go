package models

import (
	"context"
	"sync"
	"time"
)

// Finding the rows to embed without reading the whole database each time.
// PendingEmbeddings looks for rows with no vector of a model in id order;
// when every row has one that look is a scan of every table (about 4 s
// at a million rows), and the indexer looks again every couple of
// seconds. So the store remembers, per model and table, an id at or
// below which every row had a vector (a mark), and looks only above it:
// new rows, found within a poll. What can leave a row without a vector
// below a mark (its text rewritten: re-applied redaction, a memory
// edited, a retitle; rows imported with their old ids; another replica
// on PostgreSQL) is caught by counting: every pendingVerifyEvery, while
// the indexer is idle, the rows and the vectors of the model are counted
// (index-only counts), and fewer vectors than rows sends the next look
// back to the start.
const (
	// pendingVerifyEvery is how often an idle indexer counts.
	pendingVerifyEvery = 30 * time.Second
	// pendingWindowPG is how far below the newest id a mark stays on
	// PostgreSQL, where ids are taken before commit, so a row with a
	// lower id than one already seen may still commit. On SQLite the one
	// writer commits ids in order.
	pendingWindowPG = 1000
)

// pendingMarks are the marks of PendingEmbeddings, per model.
type pendingMarks struct {
	mu     sync.Mutex
	models map[string]*modelMarks
}

type modelMarks struct {
	ids      map[string]int64 // table → every row with an id at or below it had a vector
	verified time.Time        // when the counts last agreed, or reset the marks
	idle     bool             // the last look found nothing
}

// of returns model's marks, made on first use.
func (p *pendingMarks) of(model string) *modelMarks {
	if p.models == nil {
		p.models = map[string]*modelMarks{}
	}
	m := p.models[model]
	if m == nil {
		m = &modelMarks{ids: map[string]int64{}}
		p.models[model] = m
	}
	return m
}

// verifyPendingMarks counts model's rows and vectors when the indexer is idle and
// the last count is older than pendingVerifyEvery (or there was none),
// and forgets the marks when some row has no vector: the next look
// starts from the first row.
func (s *Store) verifyPendingMarks(ctx context.Context, model string) error {
	s.pending.mu.Lock()
	m := s.pending.of(model)
	due := m.idle && time.Since(m.verified) >= pendingVerifyEvery
	s.pending.mu.Unlock()
	if !due {
		return nil
	}
	done, total, err := s.EmbeddingProgress(ctx, model)
	if err != nil {
		return err
	}
	s.pending.mu.Lock()
	defer s.pending.mu.Unlock()
	m.verified = time.Now()
	if done < total {
		clear(m.ids)
	}
	return nil
}

// pendingFrom is the id above which PendingEmbeddings looks in table.
func (s *Store) pendingFrom(model, table string) int64 {
	s.pending.mu.Lock()
	defer s.pending.mu.Unlock()
	return s.pending.of(model).ids[table]
}

// movePendingMark records a look at table above from: it found its first
// row without a vector at first (0 for none), and newest was the table's
// highest id before it looked. The mark never passes a row without a
// vector, nor comes within pendingWindow of newest, nor goes back.
func (s *Store) movePendingMark(model, table string, from, first, newest int64) {
	to := newest - s.pendingWindow()
	if first > 0 {
		to = min(to, first-1)
	}
	s.pending.mu.Lock()
	defer s.pending.mu.Unlock()
	m := s.pending.of(model)
	if to > from && to > m.ids[table] {
		m.ids[table] = to
	}
}

// pendingWindow is how far below the newest id a mark stays.
func (s *Store) pendingWindow() int64 {
	if s.Postgres() {
		return pendingWindowPG
	}
	return 0
}

// pendingLooked records whether a look found rows to embed.
func (s *Store) pendingLooked(model string, found bool) {
	s.pending.mu.Lock()
	defer s.pending.mu.Unlock()
	m := s.pending.of(model)
	if !m.idle && !found {
		// Just went idle: count at the next look, in case the backlog
		// worked off above the marks left a row below them.
		m.verified = time.Time{}
	}
	m.idle = !found
}
