package models

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/internal/vecidx"
)

// TestVectorIndex: the index answers as the SQL scan does within every
// filter, kept exactly in memory (a small index) and as codes with the
// vectors in a file (every row a candidate at this size: the exact answer
// too); a row forgotten after the index was loaded is never returned and
// the page stays full; vectors stored after it was loaded are found once
// the indexer says so (vectorsChanged); its memory is what it allocated.
func TestVectorIndex(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name      string
		exactRows int
	}{{"exact", 0}, {"codes", 1}} {
		t.Run(mode.name, func(t *testing.T) {
			// Each waits vecRefreshMin (5 s) for its store's reload: side
			// by side, not one after the other.
			t.Parallel()
			forEachBackend(t, func(t *testing.T, f *searchFixture) {
				f.s.vecs.exactRows = mode.exactRows
				testVectorIndex(t, f)
			})
		})
	}
}

func testVectorIndex(t *testing.T, f *searchFixture) {
	ctx := context.Background()
	s := f.s
	rows := embedAll(t, s, "m1")
	keys := func(hits []SearchHit, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f.keys(hits)
	}
	for _, c := range []struct {
		q    SearchQuery
		text string
	}{
		{SearchQuery{Limit: 20}, "flaky websocket reconnect timeout"},
		{SearchQuery{Limit: 3, Offset: 2}, "schema migrations"},
		{SearchQuery{Limit: 5, Project: "alpha"}, "websocket reconnect"},
		{SearchQuery{Limit: 5, Project: "nowhere"}, "websocket reconnect"},
		{SearchQuery{Limit: 5, Type: SearchPrompt}, "schema"},
		{SearchQuery{Limit: 5, Tool: "Grep"}, "schema"},
		{SearchQuery{Limit: 5, ExcludeSessionID: f.sessB}, "websocket"},
		{SearchQuery{Limit: 9, From: f.baseTime.AddDate(0, 0, 1), To: f.baseTime.AddDate(0, 0, 4)}, "test"},
		{SearchQuery{Limit: 5, Type: SearchObservation, OnlyIDs: []int64{1, 3, 5, 7}}, "websocket"},
		{SearchQuery{Limit: 5, Type: SearchObservation, OnlyIDs: []int64{}}, "websocket"},
	} {
		vec := unitVector(c.text)
		want := keys(s.semanticScanSQL(ctx, c.q, "m1", vec))
		got := keys(s.SemanticSearch(ctx, c.q, "m1", vec))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v %q: index %v, SQL scan %v", c.q, c.text, got, want)
		}
		if len(c.q.OnlyIDs) > 0 && (len(got) == 0 || len(got) > len(c.q.OnlyIDs)) {
			t.Errorf("OnlyIDs %v: %v", c.q.OnlyIDs, got)
		}
	}
	// One chunk of 1,024 entries: the metadata (9 bytes and a bit for
	// each type), the dead marks, and the records (68 bytes at 64
	// dimensions, and 16 of time and session) or codes (8 bytes) and two
	// corrections.
	want := vecidx.ChunkEntries*(8+2+9) + vecidx.ChunkEntries/2
	if s.vecs.exactRows == 0 {
		want = vecidx.ChunkEntries*(84+9) + vecidx.ChunkEntries/2
	}
	if n := s.vectorIndexBytes("m1"); rows > vecidx.ChunkEntries || n != want+vecidx.ChunkEntries/8 {
		t.Errorf("index memory %d bytes for %d rows, want %d", n, rows, want+vecidx.ChunkEntries/8)
	}

	// Forgotten after the index was loaded: never returned, the page
	// still full of the rows that remain.
	q := SearchQuery{Limit: 3}
	before := keys(s.SemanticSearch(ctx, q, "m1", unitVector("flaky websocket reconnect timeout")))
	top := before[0]
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		if top == "p:beta" {
			_, err := tx.ForgetPrompt(f.prompts["beta"], nil)
			return err
		}
		_, err := tx.ForgetObservation(f.obs["ws"], nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the second time, the entry is known dead
		after := keys(s.SemanticSearch(ctx, q, "m1", unitVector("flaky websocket reconnect timeout")))
		// A page of 3 and one more, as Search.
		if len(after) != 4 || !reflect.DeepEqual(after[:3], before[1:]) || after[3] == top {
			t.Errorf("after forgetting %s: %v, want %v first and one more", top, after, before[1:])
		}
	}

	// A row embedded after the index was loaded is found once the
	// background reload has run.
	var id int64
	err = s.Writer.Do(ctx, func(tx *Tx) error {
		o := &Observation{SessionID: f.sessA, Project: "alpha", ToolName: "Bash", Kind: KindBash, Title: "kubernetes pod eviction storm",
			Input: `{}`, Output: "evicted", Files: []string{}, Success: true, Importance: 0.5, CreatedAt: f.baseTime.AddDate(0, 0, 6)}
		if _, err := tx.InsertObservation(o); err != nil {
			return err
		}
		id = o.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	embedAll(t, s, "m1")
	s.vectorsChanged()
	deadline := time.Now().Add(30 * time.Second)
	for {
		hits, err := s.SemanticSearch(ctx, SearchQuery{Limit: 1}, "m1", unitVector("kubernetes pod eviction storm"))
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) > 0 && hits[0].Type == SearchObservation && hits[0].ID == id {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new row is not found after the reload: %+v", hits)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.waitVectorLoads()
}

// A search holds its snapshot's file while a reload lets go of it: never
// "file already closed". The search used to take its hold just after
// letting go of the index's lock, so a reload installed in between closed
// the file it then read (make test saw it once, in TestVectorIndex). That
// window is too narrow for this test to hit on demand (200 reloads beside
// searches passed on the old code too): it guards the path, the fix is
// in the order in vectorSnapshot.
func TestVectorSearchDuringReload(t *testing.T) {
	t.Parallel()
	f := seedSearch(t)
	s := f.s
	s.vecs.exactRows = 1 // codes, the vectors in a file
	embedAll(t, s, "m1")
	ctx := context.Background()
	vec := unitVector("flaky websocket reconnect timeout")
	if _, err := s.SemanticSearch(ctx, SearchQuery{Limit: 3}, "m1", vec); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			if err := s.reloadVectors(ctx); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for searching := true; searching; {
		select {
		case <-done:
			searching = false
		default:
		}
		if _, err := s.SemanticSearch(ctx, SearchQuery{Limit: 3}, "m1", vec); err != nil && !errors.Is(err, ErrVectorsLoading) {
			t.Fatalf("a search during reloads: %v", err)
		}
	}
	s.waitVectorLoads()
}
