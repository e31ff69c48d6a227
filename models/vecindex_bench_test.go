package models_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/benchdb"
)

// BenchmarkVectorIndex measures the vector index on each family of
// synthetic embeddings (benchdb.Families), at 100k and 1M observations
// (benchdb.Rows under -short or MNEME_BENCH_ROWS): its load (load-ms), its
// memory (index-MB: as allocated; heap-MB: the Go heap it added, after a
// collection), the latency of SemanticSearch alone (p50/p95, a page of
// 10, unfiltered and one project of 20 alternating), and its recall@10
// against the exact scan of the same vectors (the same store with every
// vector in memory), unfiltered and within a project. Figures in
// docs/performance.md.
func BenchmarkVectorIndex(b *testing.B) {
	for _, fam := range benchdb.Families {
		for _, rows := range hybridSizes(b) {
			b.Run(fmt.Sprintf("%s/rows=%d", fam, rows), func(b *testing.B) { benchVectorIndex(b, fam, rows) })
		}
	}
}

func benchVectorIndex(b *testing.B, fam benchdb.Family, rows int) {
	ctx := context.Background()
	db := benchdb.WithFamily(b, rows, fam)
	if db.Built > 0 {
		b.Logf("added %d %s vectors in %s", db.Observations, fam, db.Built.Round(time.Second))
	}
	path := filepath.Join(db.Dir, "mneme.db")
	const queries = 50
	qs := make([]models.SearchQuery, 2*queries)
	vecs := make([][]float32, queries)
	for i := range queries {
		vecs[i] = fam.Vector(-int64(i) - 1)
		qs[2*i] = models.SearchQuery{Limit: 10}
		qs[2*i+1] = models.SearchQuery{Limit: 10, Project: db.Projects[i%len(db.Projects)]}
	}
	// The exact answers, from a store that keeps every vector in memory.
	ref, err := models.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	models.SetVectorIndexLimits(ref, math.MaxInt, 0)
	exact := make([]map[string]bool, len(qs))
	for i, q := range qs {
		hits, err := ref.SemanticSearch(ctx, q, benchdb.VectorModel, vecs[i/2])
		if err != nil {
			b.Fatal(err)
		}
		exact[i] = map[string]bool{}
		for _, h := range hits[:min(10, len(hits))] {
			exact[i][fmt.Sprintf("%s:%d", h.Type, h.ID)] = true
		}
	}
	ref.Close()
	ref = nil

	s, err := models.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	if _, err := s.WarmVectors(ctx, benchdb.VectorModel, benchdb.VectorDims); err != nil {
		b.Fatal(err)
	}
	load := time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	found := [2]int{}
	for i, q := range qs {
		hits, err := s.SemanticSearch(ctx, q, benchdb.VectorModel, vecs[i/2])
		if err != nil {
			b.Fatal(err)
		}
		for _, h := range hits[:min(10, len(hits))] {
			if exact[i][fmt.Sprintf("%s:%d", h.Type, h.ID)] {
				found[i%2]++
			}
		}
	}
	lat := make(latencies, 0, b.N)
	rescored := models.VectorsRescored(s)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, err := s.SemanticSearch(ctx, qs[i%len(qs)], benchdb.VectorModel, vecs[(i%len(qs))/2]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(models.VectorsRescored(s)-rescored)/float64(b.N), "rescored/op")
	lat.report(b, "ms")
	b.ReportMetric(float64(found[0])/(10*queries), "recall@10")
	b.ReportMetric(float64(found[1])/(10*queries), "recall@10-project")
	b.ReportMetric(float64(load.Milliseconds()), "load-ms")
	b.ReportMetric(float64(models.VectorIndexBytes(s, benchdb.VectorModel))/1e6, "index-MB")
	b.ReportMetric(float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc))/1e6, "heap-MB")
}
