package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSemanticSearch times the exact cosine scan of SemanticSearch
// over MNEME_SEMANTIC_ROWS (default 100,000) observations with 384-dim
// vectors, unfiltered and within one project of ten, through the
// in-memory index (loaded before the timing: its load is reported as
// load-ms), and reports the bytes a vector takes in the database file and
// in the index.
func BenchmarkSemanticSearch(b *testing.B) {
	s, rows, perRow, vec := semanticBenchStore(b)
	ctx := context.Background()
	q := vec()
	t0 := time.Now()
	if _, err := s.SemanticSearch(ctx, SearchQuery{Limit: 20}, "bench", q); err != nil {
		b.Fatal(err)
	}
	load := float64(time.Since(t0)) / 1e6
	indexPerRow := float64(s.vectorIndexBytes("bench")) / float64(rows)
	for _, c := range []struct {
		name string
		q    SearchQuery
	}{{"all", SearchQuery{Limit: 20}}, {"one-project-of-10", SearchQuery{Project: "p3", Limit: 20}}} {
		b.Run(fmt.Sprintf("%s/rows=%d/dims=%d", c.name, rows, semanticBenchDims), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				hits, err := s.SemanticSearch(ctx, c.q, "bench", q)
				if err != nil || len(hits) != 21 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(perRow, "db-bytes/row")
			b.ReportMetric(indexPerRow, "index-bytes/row")
			b.ReportMetric(load, "load-ms")
		})
	}
}

// BenchmarkHybridSearch times a hybrid search (Store.Search and
// SemanticSearch of the same page, fused by FuseRRF: what embed.Searcher
// does once it has the query's vector) against the full-text search alone,
// over the same MNEME_SEMANTIC_ROWS observations with 384-dim vectors,
// reporting p50 and p95 in ms of each (their ratio is the cost of hybrid).
// Embedding the query is not timed: it is the endpoint's; nor is the
// first load of the in-memory index (see BenchmarkSemanticSearch).
func BenchmarkHybridSearch(b *testing.B) {
	s, rows, _, vec := semanticBenchStore(b)
	ctx := context.Background()
	qvecs := make([][]float32, 20)
	for i := range qvecs {
		qvecs[i] = vec()
	}
	if _, err := s.SemanticSearch(ctx, SearchQuery{Limit: 20}, "bench", qvecs[0]); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"text", "hybrid"} {
		b.Run(fmt.Sprintf("%s/rows=%d/dims=%d", mode, rows, semanticBenchDims), func(b *testing.B) {
			var took []time.Duration
			for i := 0; i < b.N; i++ {
				q := SearchQuery{Q: benchWord(i * 7), Limit: 20}
				t0 := time.Now()
				hits, err := s.Search(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				if mode == "hybrid" {
					sem, err := s.SemanticSearch(ctx, q, "bench", qvecs[i%len(qvecs)])
					if err != nil {
						b.Fatal(err)
					}
					hits = FuseRRF(hits, sem)
				}
				took = append(took, time.Since(t0))
				if len(hits) == 0 {
					b.Fatalf("no hits for %q", q.Q)
				}
			}
			sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
			ms := func(p float64) float64 { return float64(took[int(p*float64(len(took)-1))]) / 1e6 }
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.95), "p95-ms")
		})
	}
}

const semanticBenchDims = 384

// benchWord is one of 500 made-up words; an observation's title holds
// three, so a word matches about 0.6% of them.
func benchWord(i int) string {
	const cons, vow = "bdfgklmnprstvz", "aeiou"
	i %= 500
	return string([]byte{cons[i%14], vow[(i/14)%5], cons[(i/70)%14], vow[i%5], 'x'})
}

// semanticBenchStore fills a store with MNEME_SEMANTIC_ROWS (default
// 100,000) observations of ten projects, each with a title of three
// benchWords and a random unit vector of model "bench", and returns it,
// the rows, the database bytes a row added, and the vector generator.
func semanticBenchStore(b *testing.B) (*Store, int, float64, func() []float32) {
	rows := 100_000
	if v := os.Getenv("MNEME_SEMANTIC_ROWS"); v != "" {
		rows, _ = strconv.Atoi(v)
	}
	s := openTestStore(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, semanticBenchDims)
		var n float64
		for i := range v {
			v[i] = float32(rng.NormFloat64())
			n += float64(v[i]) * float64(v[i])
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var sess SessionRef
	if err := s.Writer.Do(ctx, func(tx *Tx) error {
		var err error
		sess, err = tx.EnsureSession(&Session{ClaudeSessionID: "bench", Project: "p0", StartedAt: at})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	sizeBefore := dbBytes(b, s)
	for done := 0; done < rows; done += 1000 {
		err := s.Writer.Do(ctx, func(tx *Tx) error {
			items := make([]EmbedItem, 0, 1000)
			vecs := make([][]float32, 0, 1000)
			for i := done; i < min(done+1000, rows); i++ {
				o := &Observation{SessionID: sess.ID, Project: fmt.Sprintf("p%d", i%10), ToolName: "Bash", Kind: KindBash,
					Title: benchWord(i) + " " + benchWord(i*31+7) + " " + benchWord(i*17+3), Files: []string{}, Success: true, Importance: 0.5,
					CreatedAt: at.Add(time.Duration(i) * time.Second)}
				if _, err := tx.InsertObservation(o); err != nil {
					return err
				}
				items, vecs = append(items, EmbedItem{Type: SearchObservation, ID: o.ID}), append(vecs, vec())
			}
			return tx.SaveEmbeddings("bench", items, vecs)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := s.FlushSearchIndex(ctx); err != nil {
		b.Fatal(err)
	}
	return s, rows, float64(dbBytes(b, s)-sizeBefore) / float64(rows), vec
}

// dbBytes is the size of the store's database (SQLite: the file and its
// WAL; PostgreSQL: pg_database_size).
func dbBytes(b *testing.B, s *Store) int64 {
	if s.Postgres() {
		var n int64
		s.searchDB(context.Background()).Raw("SELECT pg_database_size(current_database())").Row().Scan(&n)
		return n
	}
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if st, err := os.Stat(s.path + suffix); err == nil {
			n += st.Size()
		}
	}
	return n
}

// BenchmarkFirstSemanticSearch times the first semantic search after the
// worker starts over MNEME_SEMANTIC_ROWS (default 100,000) vectors of 384
// dims: cold (it loads the index itself, as before the warm-up), warmed
// (the worker's background WarmVectors ran first), and while the warm-up
// is still loading (it does not wait: ErrVectorsLoading, hybrid answers
// with text). Each reports first-ms, the mean of b.N first searches.
func BenchmarkFirstSemanticSearch(b *testing.B) {
	s, rows, _, vec := semanticBenchStore(b)
	ctx := context.Background()
	q := vec()
	drop := func() {
		s.vecs.mu.Lock()
		s.vecs.snaps = nil
		s.vecs.mu.Unlock()
	}
	for _, c := range []string{"cold", "warmed", "while-warming"} {
		b.Run(fmt.Sprintf("%s/rows=%d/dims=%d", c, rows, semanticBenchDims), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				drop()
				var warm chan struct{}
				switch c {
				case "warmed":
					if _, err := s.WarmVectors(ctx, "bench", 0); err != nil {
						b.Fatal(err)
					}
				case "while-warming":
					warm = make(chan struct{})
					go func() { defer close(warm); s.WarmVectors(ctx, "bench", 0) }()
					for {
						s.vecs.mu.Lock()
						loading := len(s.vecs.loading) > 0
						s.vecs.mu.Unlock()
						if loading {
							break
						}
						select {
						case <-warm:
							b.Fatal("the warm-up ended before the search could start")
						case <-time.After(time.Millisecond):
						}
					}
				}
				t0 := time.Now()
				hits, err := s.SemanticSearch(ctx, SearchQuery{Limit: 20}, "bench", q)
				total += time.Since(t0)
				if c == "while-warming" {
					if !errors.Is(err, ErrVectorsLoading) {
						b.Fatalf("while warming: %v", err)
					}
					<-warm
				} else if err != nil || len(hits) != 21 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(float64(total)/float64(b.N)/1e6, "first-ms")
		})
	}
}
