package models

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// The search index is filled off the commit path. Whatever happens to a row
// while it is queued (deleted, updated) or after it was indexed, the index
// stays exactly the rows and their current text: FTS5's integrity check
// passes and each word matches what it should.
func TestSearchIndexQueue(t *testing.T) {
	t.Parallel()
	pgtest.SkipOnPostgres(t, "FTS5's index queue and integrity check (PostgreSQL indexes in the commit)")
	s := openTestStore(t)
	ctx := context.Background()
	sess := testSession(t, s, "idx")
	add := func(title string) int64 {
		o := Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: KindBash, Title: title, Input: "x"}
		if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.InsertObservation(&o); return err }); err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	exec := func(q string, args ...any) {
		if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.db.Exec(q, args...).Error }); err != nil {
			t.Fatal(err)
		}
	}
	count := func(word string) int64 {
		var n int64
		s.db.Raw(`SELECT COUNT(*) FROM observations_fts WHERE observations_fts MATCH ?`, word).Scan(&n)
		return n
	}

	// Queued: deleted and updated in the transaction that inserted them,
	// so the background indexer (which writes through the same writer)
	// cannot index them in between.
	if err := s.Writer.Do(ctx, func(tx *Tx) error {
		var ids []int64
		for _, title := range []string{"queuedgone", "queuedold", "queuedkept"} {
			o := Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: KindBash, Title: title, Input: "x"}
			if _, err := tx.InsertObservation(&o); err != nil {
				return err
			}
			ids = append(ids, o.ID)
		}
		var queued int64
		tx.db.Raw(`SELECT COUNT(*) FROM observations_fts_pending WHERE id IN ?`, ids).Scan(&queued)
		if queued != 3 {
			t.Errorf("%d of 3 new rows queued", queued)
		}
		if err := tx.db.Exec(`DELETE FROM observations WHERE id = ?`, ids[0]).Error; err != nil {
			return err
		}
		return tx.db.Exec(`UPDATE observations SET title = 'queuednew' WHERE id = ?`, ids[1]).Error
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.FlushSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.pendingIndex(ctx); n != 0 {
		t.Fatalf("%d still queued after a flush", n)
	}
	// Indexed: deleted, updated.
	idxGone, idxChanged := add("indexedgone"), add("indexedold")
	if err := s.FlushSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	exec(`DELETE FROM observations WHERE id = ?`, idxGone)
	exec(`UPDATE observations SET title = 'indexednew' WHERE id = ?`, idxChanged)
	for word, want := range map[string]int64{"queuedgone": 0, "queuedold": 0, "queuednew": 1, "queuedkept": 1,
		"indexedgone": 0, "indexedold": 0, "indexednew": 1} {
		if got := count(word); got != want {
			t.Errorf("%s: %d matches, want %d", word, got, want)
		}
	}
	if err := s.db.Exec(`INSERT INTO observations_fts(observations_fts) VALUES ('integrity-check')`).Error; err != nil {
		t.Errorf("the index is not the rows: %v", err)
	}
}

// A search sees every write acknowledged before it, with the background
// indexer nowhere near its next round.
func TestSearchReadsItsWrites(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	sess := testSession(t, s, "ryw")
	for i := range 20 {
		o := Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: KindBash, Title: fmt.Sprintf("freshword %d", i)}
		if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.InsertObservation(&o); return err }); err != nil {
			t.Fatal(err)
		}
		hits, err := s.Search(ctx, SearchQuery{Q: "freshword", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != i+1 {
			t.Fatalf("after %d writes a search found %d", i+1, len(hits))
		}
	}
}

// With no search to ask for it, the background indexer indexes what is
// queued once the writer is quiet.
func TestSearchIndexInBackground(t *testing.T) {
	t.Parallel()
	pgtest.SkipOnPostgres(t, "FTS5's background indexer (PostgreSQL indexes in the commit)")
	s := openTestStore(t)
	ctx := context.Background()
	sess := testSession(t, s, "bg")
	for i := range 50 {
		o := Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: KindBash, Title: fmt.Sprintf("bgword %d", i)}
		if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.QueueObservation(&o, func(*Observation) any { return nil }) }); err != nil {
			t.Fatal(err)
		}
	}
	waitIndexed(t, s, "the last write")
	var indexed int64
	s.db.Raw(`SELECT COUNT(*) FROM observations_fts WHERE observations_fts MATCH 'bgword'`).Scan(&indexed)
	if indexed != 50 {
		t.Fatalf("%d of 50 rows in the index", indexed)
	}
	if q, err := s.queuedRows(); err != nil || q != 0 {
		t.Fatalf("queuedRows = %d (%v) with nothing queued", q, err)
	}
}

// A round of the background indexer that fails is counted, with its error,
// and the indexer goes on: once the index can be written again it catches
// up, and the count stays.
func TestSearchIndexerErrorsCounted(t *testing.T) {
	t.Parallel()
	pgtest.SkipOnPostgres(t, "FTS5's background indexer (PostgreSQL indexes in the commit)")
	s := openTestStore(t)
	ctx := context.Background()
	if st := s.IndexerStats(); st.Errors != 0 || st.LastError != "" {
		t.Fatalf("a new store's indexer has errors: %+v", st)
	}
	// The index's table is gone (renamed away): indexing fails.
	if err := s.db.Exec(`ALTER TABLE observations_fts RENAME TO observations_fts_away`).Error; err != nil {
		t.Fatal(err)
	}
	sess := testSession(t, s, "idx-err")
	o := Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: KindBash, Title: "lostword"}
	if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.QueueObservation(&o, func(*Observation) any { return nil }) }); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); s.IndexerStats().Errors == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the indexer failed for a minute and counted nothing")
		}
	}
	st := s.IndexerStats()
	if !strings.Contains(st.LastError, "observations_fts") || st.LastErrorAt.IsZero() {
		t.Fatalf("indexer stats %+v: the last error does not say what failed", st)
	}
	if err := s.db.Exec(`ALTER TABLE observations_fts_away RENAME TO observations_fts`).Error; err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, s, "the index came back")
	if after := s.IndexerStats(); after.Errors < st.Errors {
		t.Fatalf("the count went down: %+v, then %+v", st, after)
	}
}

// waitIndexed waits (a minute at most) until the background indexer has
// indexed every queued row.
func waitIndexed(t *testing.T, s *Store, since string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		n, err := s.pendingIndex(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rows still queued a minute after %s", n, since)
		}
	}
}
