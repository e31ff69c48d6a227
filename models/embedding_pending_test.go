package models

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestPendingEmbeddingsLooksAboveMarks: once every row of a table has a
// vector, a look for rows to embed starts near the newest row instead of
// scanning the table; new rows are found at the next look; a row left
// without a vector below the mark (its vector dropped, as a rewrite
// does) is found once the idle indexer's count shows it, and the look
// after that finds nothing again.
func TestPendingEmbeddingsLooksAboveMarks(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	sess := testSession(t, s, "marks")
	add := func(from, n int) {
		t.Helper()
		err := s.Writer.Do(ctx, func(tx *Tx) error {
			for i := from; i < from+n; i++ {
				o := Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: "command",
					Title: fmt.Sprintf("call %d", i), Input: `{"command":"true"}`, Output: "ok", CreatedAt: time.Now().UTC()}
				if err := tx.QueueObservation(&o, func(o *Observation) any { return map[string]any{"id": o.ID} }); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	const model, rows = "m1", 2500
	add(0, rows)
	// Embed everything, in batches as the indexer does.
	for n := 0; ; {
		items, err := s.PendingEmbeddings(ctx, model, 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) == 0 {
			break
		}
		n += len(items)
		if n > rows+10 {
			t.Fatalf("embedded %d rows of %d: a row came back", n, rows+1)
		}
		vecs := make([][]float32, len(items))
		for i, it := range items {
			vecs[i] = unitVector(it.Text)
		}
		if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.SaveEmbeddings(model, items, vecs) }); err != nil {
			t.Fatal(err)
		}
	}
	var newest int64
	if err := s.db.Raw("SELECT max(id) FROM observations").Row().Scan(&newest); err != nil {
		t.Fatal(err)
	}
	if got, want := s.pendingFrom(model, "observations"), newest-s.pendingWindow(); got != want {
		t.Fatalf("mark %d after embedding every row, want %d (the newest id less the window)", got, want)
	}

	// A new row is found at the next look.
	add(rows, 1)
	items, err := s.PendingEmbeddings(ctx, model, 10)
	if err != nil || len(items) != 1 || items[0].Text == "" {
		t.Fatalf("after a new row: %+v %v, want it alone", items, err)
	}
	if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.SaveEmbeddings(model, items, [][]float32{unitVector(items[0].Text)}) }); err != nil {
		t.Fatal(err)
	}

	// A row far below the mark loses its vector (as a rewrite of its
	// text does): the looks above the mark do not see it...
	var low int64
	if err := s.db.Raw("SELECT min(id) FROM observations").Row().Scan(&low); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Exec("DELETE FROM embeddings WHERE item_type = ? AND item_id = ?", SearchObservation, low).Error; err != nil {
		t.Fatal(err)
	}
	if items, err := s.PendingEmbeddings(ctx, model, 10); err != nil || len(items) != 0 {
		t.Fatalf("right after the vector was dropped: %+v %v (the count is not due yet)", items, err)
	}
	// ...until the idle indexer's count is due: it has fewer vectors
	// than rows, and the next look starts from the first row.
	s.pending.mu.Lock()
	s.pending.of(model).verified = time.Now().Add(-pendingVerifyEvery)
	s.pending.mu.Unlock()
	items, err = s.PendingEmbeddings(ctx, model, 10)
	if err != nil || len(items) != 1 || items[0].ID != low {
		t.Fatalf("after the count: %+v %v, want row %d", items, err, low)
	}
	if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.SaveEmbeddings(model, items, [][]float32{unitVector(items[0].Text)}) }); err != nil {
		t.Fatal(err)
	}
	if items, err := s.PendingEmbeddings(ctx, model, 10); err != nil || len(items) != 0 {
		t.Fatalf("once embedded again: %+v %v, want nothing", items, err)
	}
	if got := s.pendingFrom(model, "observations"); got != newest+1-s.pendingWindow() {
		t.Fatalf("mark %d after the rescan, want %d", got, newest+1-s.pendingWindow())
	}
	// Another model has marks of its own: everything is pending for it.
	if items, err := s.PendingEmbeddings(ctx, "m2", 5000); err != nil || len(items) != rows+1 {
		t.Fatalf("a new model: %d pending, %v; want %d", len(items), err, rows+1)
	}
}
