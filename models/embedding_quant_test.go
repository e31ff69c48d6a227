package models

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil/racebuild"
)

// TestQuantisedRecall: vectors stored as int8 with a scale find the same
// top 20 as the float32 vectors did, on random 384-dim unit vectors (the
// hard case: their similarities crowd together, real embeddings' do not)
// and on clustered ones (rows close to a few topics, as real memory is).
// It logs recall@20; the README quotes it.
func TestQuantisedRecall(t *testing.T) {
	t.Parallel()
	if racebuild.Enabled {
		// Arithmetic on one goroutine, 19 s under -race for nothing to
		// watch: make test runs it without the race detector (test-norace).
		t.Skip("no concurrency to check: make test runs it without the race detector")
	}
	const dims, rows, queries, k = 384, 5000, 50, 20
	rng := rand.New(rand.NewPCG(7, 9))
	unitOf := func(v []float32) []float32 {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	random := func() []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return unitOf(v)
	}
	centres := make([][]float32, 25)
	for i := range centres {
		centres[i] = random()
	}
	clustered := func() []float32 {
		c, v := centres[rng.IntN(len(centres))], random()
		for i := range v {
			v[i] = c[i] + 0.6*v[i]
		}
		return unitOf(v)
	}
	for _, set := range []struct {
		name string
		gen  func() []float32
		want float64
	}{{"random", random, 0.9}, {"clustered", clustered, 0.95}} {
		vecs, enc, old := make([][]float32, rows), make([][]byte, rows), make([][]byte, rows)
		for i := range vecs {
			vecs[i] = set.gen()
			enc[i], old[i] = EncodeVector(vecs[i]), encodeFloat32(vecs[i])
		}
		if len(enc[0]) != dims+4 {
			t.Fatalf("a quantised vector takes %d bytes", len(enc[0]))
		}
		top := func(q []float32, score func(i int) float64) map[int]bool {
			idx := make([]int, rows)
			sims := make([]float64, rows)
			for i := range idx {
				idx[i], sims[i] = i, score(i)
			}
			sort.Slice(idx, func(a, b int) bool { return sims[idx[a]] > sims[idx[b]] })
			out := map[int]bool{}
			for _, i := range idx[:k] {
				out[i] = true
			}
			return out
		}
		found := 0
		for range queries {
			q := set.gen()
			exact := top(q, func(i int) float64 {
				d, ok := dotEncoded(q, old[i])
				if !ok {
					t.Fatal("a float32 vector was not read")
				}
				return d
			})
			quant := top(q, func(i int) float64 { d, _ := dotEncoded(q, enc[i]); return d })
			for i := range quant {
				if exact[i] {
					found++
				}
			}
		}
		recall := float64(found) / float64(queries*k)
		t.Logf("%s vectors: recall@%d of int8 against float32 = %.3f", set.name, k, recall)
		if recall < set.want {
			t.Errorf("%s: recall@%d %.3f < %.2f", set.name, k, recall, set.want)
		}
	}
}

// encodeFloat32 is v as little-endian float32s, the encoding of the first
// vectors stored (still read: dotEncoded tells them by length).
func encodeFloat32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
