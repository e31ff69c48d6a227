package models_test

import (
	"github.com/mneme-dev/mneme/internal/testutil"

	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/benchdb"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// openBenchStore opens the synthetic database (1M observations unless
// -short or MNEME_BENCH_ROWS) and reports how it was built.
func openBenchStore(b *testing.B) (*models.Store, *benchdb.DB) {
	b.Helper()
	db := benchdb.Build(b, benchdb.Rows(b))
	if db.Built > 0 {
		b.Logf("built synthetic DB: %d observations, %d prompts, %d summaries in %s", db.Observations, db.Prompts, db.Summaries, db.Built.Round(time.Second))
	}
	s, err := models.Open(filepath.Join(db.Dir, "mneme.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, db
}

// latencies collects per-operation durations and reports percentiles.
type latencies []time.Duration

// report reports p50, p95 and p99 as metrics named prefix+"p50-"+unit
// and so on (no prefix, or one, like "base-").
func (l latencies) report(b *testing.B, unit string, prefix ...string) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	pct := func(p float64) float64 {
		i := int(float64(len(l)-1) * p)
		return float64(l[i].Microseconds()) / 1000
	}
	pre := strings.Join(prefix, "")
	b.ReportMetric(pct(0.50), pre+"p50-"+unit)
	b.ReportMetric(pct(0.95), pre+"p95-"+unit)
	if pre == "" {
		b.ReportMetric(pct(0.99), "p99-"+unit)
	}
}

// searchCases are the query shapes measured, from the synthetic vocabulary
// (BenchWord(rank): low ranks are frequent words).
func searchCases(db *benchdb.DB) []struct {
	name string
	qs   []models.SearchQuery
} {
	w := benchdb.Word
	mk := func(n int, f func(i int) models.SearchQuery) []models.SearchQuery {
		out := make([]models.SearchQuery, n)
		for i := range out {
			out[i] = f(i)
			out[i].Limit = 20
		}
		return out
	}
	return []struct {
		name string
		qs   []models.SearchQuery
	}{
		{"rare-word", mk(50, func(i int) models.SearchQuery { return models.SearchQuery{Q: w(3000 + i*37)} })},
		{"medium-word", mk(50, func(i int) models.SearchQuery { return models.SearchQuery{Q: w(300 + i*7)} })},
		{"common-word", mk(20, func(i int) models.SearchQuery { return models.SearchQuery{Q: w(20 + i)} })},
		{"two-words-AND", mk(50, func(i int) models.SearchQuery { return models.SearchQuery{Q: w(200+i) + " " + w(400+i*3)} })},
		{"OR", mk(50, func(i int) models.SearchQuery { return models.SearchQuery{Q: w(1000+i) + " OR " + w(2000+i)} })},
		{"phrase", mk(50, func(i int) models.SearchQuery { return models.SearchQuery{Q: `"` + w(50+i) + " " + w(60+i) + `"`} })},
		{"prefix", mk(50, func(i int) models.SearchQuery {
			word := w(500 + i*5) // 3 to 6 letters: all but the last of a short word, like migrat*
			return models.SearchQuery{Q: word[:min(6, len(word)-1)] + "*"}
		})},
		{"project-filter", mk(50, func(i int) models.SearchQuery {
			return models.SearchQuery{Q: w(300 + i*7), Project: db.Projects[i%len(db.Projects)]}
		})},
		{"type-observation+tool", mk(50, func(i int) models.SearchQuery {
			return models.SearchQuery{Q: w(300 + i*7), Type: models.SearchObservation, Tool: "Bash"}
		})},
		{"last-7-days", mk(50, func(i int) models.SearchQuery {
			return models.SearchQuery{Q: w(300 + i*7), From: time.Now().AddDate(0, 0, -7)}
		})},
	}
}

// BenchmarkSearch measures Store.Search over the synthetic database, per
// query shape and over all shapes mixed, reporting p50/p95/p99 in ms.
//
// Each sub-benchmark also times, between searches and outside the timer, a
// baseline: the cheapest FTS5 lookup there is, a raw
// "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? LIMIT 20"
// of a rare word, through database/sql on the same database (base-p50-ms,
// base-p95-ms). On a shared machine it tells how much of a slow run was the
// machine rather than the search.
func BenchmarkSearch(b *testing.B) {
	s, db := openBenchStore(b)
	baseline := rareWordBaseline(b, s, `SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? LIMIT 20`)
	benchSearch(b, s, db, baseline, nil)
}

// BenchmarkSearchRanking is BenchmarkSearch with NeutralRanking (bm25
// alone, as before SearchRanking) and DefaultRanking on the same store, so
// the cost of weighing hits is read from one run.
func BenchmarkSearchRanking(b *testing.B) {
	s, db := openBenchStore(b)
	baseline := rareWordBaseline(b, s, `SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? LIMIT 20`)
	for _, rk := range []struct {
		name string
		r    models.SearchRanking
	}{{"neutral", models.NeutralRanking}, {"default", models.DefaultRanking}} {
		b.Run("ranking="+rk.name, func(b *testing.B) {
			s.Ranking = &rk.r
			benchSearch(b, s, db, baseline, nil)
		})
	}
}

// rareWordBaseline prepares query (one rare word as its parameter) and
// returns what times one run of it, the i-th rare word, through
// database/sql on the store's database.
func rareWordBaseline(b *testing.B, s *models.Store, query string) func(int) time.Duration {
	sqlDB := modelstest.SQLDB(b, s)
	base, err := sqlDB.Prepare(query)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { base.Close() })
	return func(i int) time.Duration {
		t0 := time.Now()
		rows, err := base.Query(benchdb.Word(3000 + (i%50)*37))
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
		return time.Since(t0)
	}
}

// searchMix interleaves the shapes of cases, so any b.N samples all of
// them.
func searchMix(cases []struct {
	name string
	qs   []models.SearchQuery
}) []models.SearchQuery {
	var mix []models.SearchQuery
	for i := 0; i < 50; i++ {
		for _, c := range cases {
			if i < len(c.qs) {
				mix = append(mix, c.qs[i])
			}
		}
	}
	return mix
}

// benchSearch runs the query shapes of searchCases on s. server, when
// not nil, reads the CPU time of the database server (PostgreSQL), whose
// work is outside this process: its share of each search is reported as
// server-cpu-ms/op, less distorted than wall time on a shared machine.
func benchSearch(b *testing.B, s *models.Store, db *benchdb.DB, baseline func(int) time.Duration, server func() time.Duration) {
	ctx := context.Background()
	cases := searchCases(db)
	mix := searchMix(cases)
	cases = append(cases, struct {
		name string
		qs   []models.SearchQuery
	}{"mix", mix})
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s/rows=%d", c.name, db.Observations), func(b *testing.B) {
			lat := make(latencies, 0, b.N)
			baseLat := make(latencies, 0, b.N)
			var baseCPU time.Duration
			hits, timeouts := 0, 0
			var serverCPU time.Duration
			cpu0 := testutil.CPUTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				bc := testutil.CPUTime()
				baseLat = append(baseLat, baseline(i))
				baseCPU += testutil.CPUTime() - bc
				b.StartTimer()
				q := c.qs[i%len(c.qs)]
				var sc time.Duration
				if server != nil {
					b.StopTimer()
					sc = server()
					b.StartTimer()
				}
				t0 := time.Now()
				res, err := s.Search(ctx, q)
				lat = append(lat, time.Since(t0))
				if server != nil {
					b.StopTimer()
					serverCPU += server() - sc
					b.StartTimer()
				}
				var qe *models.QueryError
				if errors.As(err, &qe) && strings.Contains(qe.Msg, "took longer") {
					timeouts++ // counted: the search was cut at SearchTimeout
				} else if err != nil {
					b.Fatalf("%+v: %v", q, err)
				}
				hits += len(res)
			}
			b.StopTimer()
			cpu := testutil.CPUTime() - cpu0 - baseCPU
			lat.report(b, "ms")
			baseLat.report(b, "ms", "base-")
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
			b.ReportMetric(float64(timeouts)/float64(b.N), "timeouts/op")
			// CPU time per search: less distorted than wall time when the
			// machine is shared.
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			if server != nil {
				b.ReportMetric(float64(serverCPU.Microseconds())/1000/float64(b.N), "server-cpu-ms/op")
			}
		})
	}
}

// BenchmarkSearchHybrid measures hybrid search — Store.Search and
// SemanticSearch of the same page at once, fused by FuseRRF, what
// embed.Searcher does once it has the query's vector (and one after the
// other, hybrid-sequential) — against the full-text search alone in the
// same run, over the mixed query shapes of BenchmarkSearch,
// at 100k and 1M observations (only benchdb.Rows under -short or
// MNEME_BENCH_ROWS), each observation with a 384-dim vector
// (benchdb.WithVectors). Embedding the query is the endpoint's and is not
// timed, nor is the first load of the vector index (load-ms), whose
// memory is reported as index-MB.
func BenchmarkSearchHybrid(b *testing.B) {
	for _, rows := range hybridSizes(b) {
		db := benchdb.WithVectors(b, rows)
		if db.Built > 0 {
			b.Logf("added %d vectors in %s", db.Observations, db.Built.Round(time.Second))
		}
		s, err := models.Open(filepath.Join(db.Dir, "mneme.db"))
		if err != nil {
			b.Fatal(err)
		}
		benchHybrid(b, s, db)
		s.Close()
	}
}

// BenchmarkSearchHybridPostgres is BenchmarkSearchHybrid on PostgreSQL,
// over BenchmarkSearchPostgres's copy of the same rows with the same
// vectors (benchdb.AddVectorsPostgres): without pgvector, the same
// in-memory scan as on SQLite.
func BenchmarkSearchHybridPostgres(b *testing.B) {
	for _, rows := range hybridSizes(b) {
		pg := benchdb.BuildPostgres(b, rows)
		benchdb.AddVectorsPostgres(b, pg)
		s, err := models.OpenURL(pg.URL, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		benchHybrid(b, s, pg.DB)
		s.Close()
	}
}

// hybridSizes are the database sizes of the hybrid benchmarks.
func hybridSizes(b *testing.B) []int {
	if testing.Short() || os.Getenv("MNEME_BENCH_ROWS") != "" {
		return []int{benchdb.Rows(b)}
	}
	return []int{100_000, 1_000_000}
}

// benchHybrid runs the text and hybrid legs over s.
func benchHybrid(b *testing.B, s *models.Store, db *benchdb.DB) {
	ctx := context.Background()
	mix := searchMix(searchCases(db))
	t0 := time.Now()
	if _, err := s.SemanticSearch(ctx, models.SearchQuery{Limit: 20}, benchdb.VectorModel, benchdb.Vector(-1)); err != nil {
		b.Fatal(err)
	}
	load := time.Since(t0)
	indexMB := float64(models.VectorIndexBytes(s, benchdb.VectorModel)) / 1e6
	// hybrid runs the two lists at once, as embed.Searcher does (the
	// full text while the query is embedded and searched by meaning);
	// hybrid-sequential one after the other, as it did before.
	for _, mode := range []string{"text", "hybrid", "hybrid-sequential"} {
		b.Run(fmt.Sprintf("%s/rows=%d", mode, db.Observations), func(b *testing.B) {
			lat := make(latencies, 0, b.N)
			hits := 0
			for i := 0; i < b.N; i++ {
				// The page embed.Searcher asks both lists for.
				q := mix[i%len(mix)]
				q.Limit++
				vec := benchdb.Vector(-int64(i%20) - 2)
				t0 := time.Now()
				var res, sem []models.SearchHit
				var err, serr error
				switch mode {
				case "text":
					res, err = s.Search(ctx, q)
				case "hybrid":
					done := make(chan struct{})
					go func() {
						defer close(done)
						res, err = s.Search(ctx, q)
					}()
					sem, serr = s.SemanticSearch(ctx, q, benchdb.VectorModel, vec)
					<-done
				default:
					if res, err = s.Search(ctx, q); err == nil {
						sem, serr = s.SemanticSearch(ctx, q, benchdb.VectorModel, vec)
					}
				}
				if err != nil || serr != nil {
					b.Fatalf("%+v: %v %v", q, err, serr)
				}
				if mode != "text" {
					res = models.FuseRRF(res, sem)
				}
				lat = append(lat, time.Since(t0))
				hits += len(res)
			}
			lat.report(b, "ms")
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
			if mode == "hybrid" {
				b.ReportMetric(float64(load.Milliseconds()), "load-ms")
				b.ReportMetric(indexMB, "index-MB")
			}
		})
	}
}

// BenchmarkStats measures the /stats aggregates over the synthetic
// database: the default 14-day window and a 90-day one, all projects and
// one.
func BenchmarkStats(b *testing.B) {
	s, db := openBenchStore(b)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		q    models.StatsQuery
	}{
		{"14d", models.StatsQuery{}},
		{"90d", models.StatsQuery{Days: 90}},
		{"14d-project", models.StatsQuery{Project: db.Projects[3]}},
		{"365d", models.StatsQuery{Days: 365}},
	} {
		b.Run(fmt.Sprintf("%s/rows=%d", c.name, db.Observations), func(b *testing.B) {
			lat := make(latencies, 0, b.N)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := s.Stats(ctx, c.q); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			lat.report(b, "ms")
		})
	}
	b.Run(fmt.Sprintf("projects/rows=%d", db.Observations), func(b *testing.B) {
		lat := make(latencies, 0, b.N)
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := s.Projects(ctx); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		lat.report(b, "ms")
	})
}
