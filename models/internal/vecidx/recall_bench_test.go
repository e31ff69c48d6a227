package vecidx_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/benchdb"
	"github.com/mneme-dev/mneme/models/internal/vecidx"
)

// BenchmarkRecall measures the engine alone, in memory, on each family of
// synthetic vectors (benchdb.Families) at VECIDX_RECALL_ROWS (default
// 100,000) vectors: for several candidate counts and widths of the
// Hamming pass, recall@10 against the exact scan over 50 queries, how
// many entries the scan estimated and how many the rescoring read
// (stopping early, as models does). It is how the defaults of models'
// vector index were chosen (docs/performance.md).
func BenchmarkRecall(b *testing.B) {
	rows := 100_000
	if v := os.Getenv("VECIDX_RECALL_ROWS"); v != "" {
		rows, _ = strconv.Atoi(v)
	}
	const dims, queries, k = benchdb.VectorDims, 50, 10
	for _, fam := range benchdb.Families {
		recs := make([][]byte, rows)
		var wg sync.WaitGroup
		p := runtime.GOMAXPROCS(0)
		for w := range p {
			wg.Go(func() {
				for i := rows * w / p; i < rows*(w+1)/p; i++ {
					recs[i] = models.EncodeVector(fam.Vector(int64(i + 1)))
				}
			})
		}
		wg.Wait()
		sample := make([][]float32, 4096)
		for i := range sample {
			sample[i] = decoded(recs[i], dims)
		}
		x := vecidx.New(vecidx.NewQuantizer(dims, sample, 1), vecidx.NewMemRecords(vecidx.RecordBytes(dims)), true)
		scratch := make([]float32, 3*dims)
		t0 := time.Now()
		for _, r := range recs {
			if _, err := x.Add(decoded(r, dims), r, scratch); err != nil {
				b.Fatal(err)
			}
		}
		coded := time.Since(t0)
		qs := make([][]float32, queries)
		exact := make([]map[int32]bool, queries)
		for i := range qs {
			qs[i] = fam.Vector(-int64(i) - 1)
			exact[i] = map[int32]bool{}
			for _, c := range x.Exact(qs[i], k, nil, nil) {
				exact[i][c.Entry] = true
			}
		}
		for _, c := range []struct{ cands, wide int }{{1024, 16}, {2048, 8}, {2048, 16}, {3072, 8}, {4096, 4}, {4096, 8}, {4096, 16}} {
			b.Run(fmt.Sprintf("%s/rows=%d/cands=%d/wide=%d", fam, rows, c.cands, c.wide), func(b *testing.B) {
				found, estimated, read := 0, 0, 0
				t0 := time.Now()
				for i := range b.N {
					q := qs[i%queries]
					p := x.Quantizer().Prepare(q)
					cands := x.Candidates(p, c.cands, c.wide*c.cands, nil)
					best, err := x.Rescore(q, cands, k+1, nil)
					if err != nil {
						b.Fatal(err)
					}
					estimated, read = estimated+p.Estimated, read+len(best)
					for _, e := range best[:min(k, len(best))] {
						if exact[i%queries][e.Entry] {
							found++
						}
					}
				}
				b.ReportMetric(float64(found)/float64(k*b.N), "recall@10")
				b.ReportMetric(float64(estimated)/float64(b.N), "estimated/op")
				b.ReportMetric(float64(read)/float64(b.N), "rescored/op")
				b.ReportMetric(float64(time.Since(t0).Microseconds())/1000/float64(b.N), "ms/op")
				b.ReportMetric(float64(coded.Milliseconds()), "code-ms")
			})
		}
	}
}

func decoded(rec []byte, dims int) []float32 {
	v := make([]float32, dims)
	scale := float32frombits(rec)
	for i := range v {
		v[i] = float32(int8(rec[4+i])) * scale
	}
	return v
}

func float32frombits(rec []byte) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(rec))
}
