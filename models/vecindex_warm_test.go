package models

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestVectorIndexWarmsAndGrows: WarmVectors loads the index before any
// search (the size read from the stored vectors); a search that arrives
// while a load runs does not wait (ErrVectorsLoading); vectors committed
// after the load are found by the very next search (VectorsAdded), once
// each, also when they were added while a load ran; a row embedded again
// is found once, by its new vector.
func TestVectorIndexWarmsAndGrows(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name      string
		exactRows int
	}{{"exact", 0}, {"codes", 1}} {
		t.Run(mode.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, f *searchFixture) {
				f.s.vecs.exactRows = mode.exactRows
				testVectorIndexWarmsAndGrows(t, f)
			})
		})
	}
}

func testVectorIndexWarmsAndGrows(t *testing.T, f *searchFixture) {
	{
		ctx := context.Background()
		s := f.s
		rows := embedAll(t, s, "m1")
		if n, err := s.WarmVectors(ctx, "m1", 0); err != nil || n != rows {
			t.Fatalf("warm: %d %v, want %d", n, err, rows)
		}
		if s.vectorIndexBytes("m1") == 0 {
			t.Fatal("nothing loaded by the warm-up")
		}
		if n, err := s.WarmVectors(ctx, "m1", 64); err != nil || n != 0 {
			t.Errorf("a second warm-up: %d %v, want nothing loaded again", n, err)
		}

		// add stores an observation, embeds it and tells the index.
		add := func(title string) EmbedItem {
			t.Helper()
			o := &Observation{SessionID: f.sessA, Project: "alpha", ToolName: "Bash", Kind: KindBash, Title: title,
				Input: `{}`, Output: "x", Files: []string{}, Success: true, Importance: 0.5, CreatedAt: f.baseTime.AddDate(0, 0, 6)}
			if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.InsertObservation(o); return err }); err != nil {
				t.Fatal(err)
			}
			return embedNew(t, s, "m1")[0]
		}
		first := func(text string) SearchHit {
			t.Helper()
			hits, err := s.SemanticSearch(ctx, SearchQuery{Limit: 5}, "m1", unitVector(text))
			if err != nil || len(hits) == 0 {
				t.Fatalf("search %q: %v %v", text, hits, err)
			}
			seen := map[int64]bool{}
			for _, h := range hits {
				if h.Type == SearchObservation && seen[h.ID] {
					t.Errorf("search %q: observation %d twice", text, h.ID)
				}
				seen[h.ID] = h.Type == SearchObservation
			}
			return hits[0]
		}
		it := add("kubernetes pod eviction storm")
		if h := first("kubernetes pod eviction storm"); h.ID != it.ID {
			t.Errorf("the row embedded after the load is not found at once: %+v", h)
		}

		// Embedded again (its text rewritten): found once, by the new text.
		if err := s.Writer.Do(ctx, func(tx *Tx) error {
			return tx.db.Exec("UPDATE observations SET title = ? WHERE id = ?", "terraform state lock timeout", it.ID).Error
		}); err != nil {
			t.Fatal(err)
		}
		embedNew(t, s, "m1")
		if h := first("terraform state lock timeout"); h.ID != it.ID || h.Title != "terraform state lock timeout" {
			t.Errorf("the row embedded again: %+v", h)
		}
		live := 0
		s.vecs.mu.Lock()
		v := s.vecs.snaps[vecKey{"m1", 64}]
		for i := range v.ix.Len() {
			if typ, id := v.entry(i); id == it.ID && vecTypes[typ] == SearchObservation && !v.ix.Dead(i) {
				live++
			}
		}
		s.vecs.mu.Unlock()
		if live != 1 {
			t.Errorf("the row embedded again has %d live entries in the index, want 1 (the old one dead)", live)
		}

		// A load under way: a search does not wait for it; what is added
		// meanwhile is in the snapshot it installs, once.
		k := vecKey{"m1", 64}
		s.vecs.mu.Lock()
		if f := s.vecs.snaps[k].file(); f != nil {
			f.Release()
		}
		delete(s.vecs.snaps, k)
		s.vecs.startLoadLocked(k)
		gen := s.vecs.gen
		s.vecs.mu.Unlock()
		start := time.Now()
		if _, err := s.SemanticSearch(ctx, SearchQuery{Limit: 5}, "m1", unitVector("x")); !errors.Is(err, ErrVectorsLoading) {
			t.Errorf("search while loading: %v, want ErrVectorsLoading", err)
		}
		t.Logf("a search while loading answered in %s", time.Since(start))
		late := add("grafana dashboard panel missing")
		nv, err := s.loadVectors(ctx, "m1", 64, gen) // reads the late row too
		if err != nil {
			t.Fatal(err)
		}
		s.vecs.mu.Lock()
		_, err = s.installLocked(k, nv)
		s.vecs.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if h := first("grafana dashboard panel missing"); h.ID != late.ID {
			t.Errorf("the row added while loading: %+v", h)
		}
	}
}

// embedNew embeds the pending rows of s for model as the indexer does:
// stored, then added to the index.
func embedNew(t *testing.T, s *Store, model string) []EmbedItem {
	t.Helper()
	ctx := context.Background()
	items, err := s.PendingEmbeddings(ctx, model, 100)
	if err != nil || len(items) == 0 {
		t.Fatalf("pending: %v %v", items, err)
	}
	vecs := make([][]float32, len(items))
	for i, it := range items {
		vecs[i] = unitVector(it.Text)
	}
	if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.SaveEmbeddings(model, items, vecs) }); err != nil {
		t.Fatal(err)
	}
	s.VectorsAdded(model, items, vecs)
	return items
}

// TestScrubReloadsVectorIndex: after a forget, the scrub loads the index
// again from the table, without the forgotten row's vector, and the old
// file (and its key) is let go of once no search reads it; a search
// meanwhile answers from the snapshot it holds.
func TestScrubReloadsVectorIndex(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, f *searchFixture) {
		ctx := context.Background()
		s := f.s
		s.vecs.exactRows = 1 // codes and a file
		embedAll(t, s, "m1")
		if _, err := s.WarmVectors(ctx, "m1", 0); err != nil {
			t.Fatal(err)
		}
		k := vecKey{"m1", 64}
		s.vecs.mu.Lock()
		old := s.vecs.snaps[k]
		s.vecs.mu.Unlock()
		oldFile := old.file()
		if oldFile == nil {
			t.Fatal("no file")
		}
		// A search holding the old snapshot while the scrub runs.
		_, release, err := s.vectorSnapshot(ctx, "m1", 64)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Writer.Do(ctx, func(tx *Tx) error {
			_, err := tx.ForgetObservation(f.obs["ws"], nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Scrub(ctx, false); err != nil {
			t.Fatal(err)
		}
		s.vecs.mu.Lock()
		nv := s.vecs.snaps[k]
		s.vecs.mu.Unlock()
		if nv == old || nv.file() == oldFile {
			t.Fatal("the scrub did not load the index again")
		}
		for i := range nv.ix.Len() {
			if typ, id := nv.entry(i); vecTypes[typ] == SearchObservation && id == f.obs["ws"] {
				t.Errorf("the forgotten observation is in the index loaded after the scrub")
			}
		}
		if oldFile.Held() != 1 {
			t.Errorf("the old file is held %d times while a search reads it, want 1", oldFile.Held())
		}
		release()
		if oldFile.Held() != 0 || oldFile.Err() != nil {
			t.Errorf("the old file is held %d times once the search is done (%v), want closed", oldFile.Held(), oldFile.Err())
		}
	})
}

// TestVectorIndexWithoutAFile: where no file can be written beside the
// database, the vectors go to one in the temporary directory; where none
// can be written there either, they stay in memory, scanned exactly; the
// answers are the SQL scan's either way.
func TestVectorIndexWithoutAFile(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *searchFixture) {
		ctx := context.Background()
		s := f.s
		embedAll(t, s, "m1")
		s.vecs.exactRows = 1
		path := s.path
		defer func() { s.path = path }()
		s.path = filepath.Join(t.TempDir(), "gone", "mneme.db") // no such directory
		for _, c := range []struct {
			name, tmp string
			file      bool
		}{{"temp", t.TempDir(), true}, {"memory", filepath.Join(t.TempDir(), "gone"), false}} {
			t.Run(c.name, func(t *testing.T) {
				t.Setenv("TMPDIR", c.tmp)
				s.vecs.mu.Lock()
				for k, v := range s.vecs.snaps {
					if f := v.file(); f != nil {
						f.Release()
					}
					delete(s.vecs.snaps, k)
				}
				s.vecs.mu.Unlock()
				vec := unitVector("flaky websocket reconnect timeout")
				got, err := s.SemanticSearch(ctx, SearchQuery{Limit: 5}, "m1", vec)
				if err != nil {
					t.Fatal(err)
				}
				want, err := s.semanticScanSQL(ctx, SearchQuery{Limit: 5}, "m1", vec)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(f.keys(got), f.keys(want)) {
					t.Errorf("index %v, SQL scan %v", f.keys(got), f.keys(want))
				}
				s.vecs.mu.Lock()
				v := s.vecs.snaps[vecKey{"m1", 64}]
				s.vecs.mu.Unlock()
				if (v.file() != nil) != c.file || v.exact() == c.file {
					t.Errorf("file %v, exact %v; want a file: %v", v.file() != nil, v.exact(), c.file)
				}
			})
		}
	})
}

// TestVectorIndexGrowsWhileSearched: searches run while the indexer adds
// vectors past a chunk's end, in both modes (the race detector watches
// the chunks the snapshots share); every search answers, and at the end
// the last row added is found.
func TestVectorIndexGrowsWhileSearched(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name      string
		exactRows int
	}{{"exact", 0}, {"codes", 1}} {
		// Subtests of their own names: a second "sqlite" would be
		// "sqlite#01", and a '#' in a SQLite path ends it.
		t.Run(mode.name, func(t *testing.T) { testVectorIndexGrowsWhileSearched(t, mode.exactRows) })
	}
}

func testVectorIndexGrowsWhileSearched(t *testing.T, exactRows int) {
	forEachBackend(t, func(t *testing.T, f *searchFixture) {
		ctx := context.Background()
		s := f.s
		s.vecs.exactRows = exactRows
		embedAll(t, s, "m1")
		if _, err := s.WarmVectors(ctx, "m1", 0); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						errs <- nil
						return
					default:
					}
					q := SearchQuery{Limit: 5}
					if i%2 == 1 {
						q = SearchQuery{Limit: 5, Project: "alpha", Type: SearchObservation}
					}
					if _, err := s.SemanticSearch(ctx, q, "m1", unitVector(fmt.Sprint("query ", i))); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		var last EmbedItem
		for b := range 11 { // 1,100 rows: past the first chunk
			err := s.Writer.Do(ctx, func(tx *Tx) error {
				for i := range 100 {
					tool := fmt.Sprintf("grow-%d-%d", b, i)
					o := &Observation{SessionID: f.sessA, Project: "alpha", ToolUseID: &tool, ToolName: "Bash", Kind: KindBash,
						Title: fmt.Sprintf("growing row %d %d", b, i), Input: `{}`, Output: "x", Files: []string{}, Success: true,
						Importance: 0.5, CreatedAt: f.baseTime.AddDate(0, 0, 7)}
					if _, err := tx.InsertObservation(o); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			items := embedNew(t, s, "m1")
			last = items[len(items)-1]
		}
		close(stop)
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		hits, err := s.SemanticSearch(ctx, SearchQuery{Limit: 1}, "m1", unitVector(last.Text))
		if err != nil || len(hits) == 0 || hits[0].ID != last.ID {
			t.Fatalf("the last row added (%d) is not found first: %+v %v", last.ID, hits, err)
		}
	})
}
