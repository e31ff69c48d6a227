package models

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSemanticSearch times the exact cosine scan of SemanticSearch
// over MNEME_SEMANTIC_ROWS (default 100,000) observations with 384-dim
// vectors, unfiltered and within one project of ten, and reports the
// bytes a vector takes in the database file.
func BenchmarkSemanticSearch(b *testing.B) {
	rows := 100_000
	if v := os.Getenv("MNEME_SEMANTIC_ROWS"); v != "" {
		rows, _ = strconv.Atoi(v)
	}
	const dims = 384
	s := openTestStore(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, dims)
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
					Title: "t", Files: []string{}, Success: true, Importance: 0.5, CreatedAt: at.Add(time.Duration(i) * time.Second)}
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
	perRow := float64(dbBytes(b, s)-sizeBefore) / float64(rows)
	q := vec()
	for _, c := range []struct {
		name string
		q    SearchQuery
	}{{"all", SearchQuery{Limit: 20}}, {"one-project-of-10", SearchQuery{Project: "p3", Limit: 20}}} {
		b.Run(fmt.Sprintf("%s/rows=%d/dims=%d", c.name, rows, dims), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				hits, err := s.SemanticSearch(ctx, c.q, "bench", q)
				if err != nil || len(hits) != 21 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(perRow, "db-bytes/row")
		})
	}
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
