package vecidx

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
)

// gaussian is a vector of dims standard normal values.
func gaussian(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// record is v as stored (int8 and a scale, as models.EncodeVector).
func record(v []float32) []byte {
	var m float32
	for _, x := range v {
		m = max(m, x, -x)
	}
	b := make([]byte, RecordBytes(len(v)))
	scale := m / 127
	binary.LittleEndian.PutUint32(b, math.Float32bits(scale))
	for i, x := range v {
		if scale > 0 {
			b[4+i] = byte(int8(math.Round(float64(x / scale))))
		}
	}
	return b
}

func dot(a, b []float32) (d float64) {
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

// TestRotationIsOrthogonal: the rotation keeps lengths and angles, for a
// size of a power of two, 384 (blocks of 128) and an odd one (blocks of
// 4).
func TestRotationIsOrthogonal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dims := range []int{64, 384, 100} {
		rt := newRotation(dims, 7)
		tmp := make([]float32, dims)
		for range 20 {
			a, b := gaussian(r, dims), gaussian(r, dims)
			ab, aa := dot(a, b), dot(a, a)
			rt.apply(a, tmp)
			rt.apply(b, tmp)
			if got := dot(a, b); math.Abs(got-ab) > 1e-3*math.Sqrt(aa*dot(b, b)) {
				t.Fatalf("dims %d: ⟨a, b⟩ %v rotated %v", dims, ab, got)
			}
			if got := dot(a, a); math.Abs(got-aa) > 1e-3*aa {
				t.Fatalf("dims %d: ‖a‖² %v rotated %v", dims, aa, got)
			}
		}
	}
}

// clustered is n unit vectors around k random centres, and what draws
// another (a query).
func clustered(r *rand.Rand, n, k, dims int) ([][]float32, func() []float32) {
	centres := make([][]float32, k)
	for i := range centres {
		centres[i] = gaussian(r, dims)
	}
	member := func() []float32 {
		c := centres[r.IntN(k)]
		v := gaussian(r, dims)
		for i := range v {
			v[i] = c[i] + 0.8*v[i]
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	out := make([][]float32, n)
	for i := range out {
		out[i] = member()
	}
	return out, member
}

// build is an index of vecs with their records in rec.
func build(t *testing.T, vecs [][]float32, rec Records) *Index {
	t.Helper()
	x := New(NewQuantizer(len(vecs[0]), vecs[:min(len(vecs), 500)], 1), rec, true)
	scratch := make([]float32, 2*len(vecs[0]))
	for _, v := range vecs {
		if _, err := x.Add(v, record(v), scratch); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	return x
}

// TestCandidatesFindTheNearest: on clustered vectors the best candidates
// by estimate, among the 4,000 nearest by Hamming distance, hold the
// exact scan's best ten (recall@10 of 200 candidates out of 20,000 ≥
// 0.9), rescored to the exact scan's similarities.
func TestCandidatesFindTheNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	found, total := 0, 0
	vecs, query := clustered(r, 20000, 200, 64)
	x := build(t, vecs, NewMemRecords(RecordBytes(64)))
	for range 20 {
		q := query()
		exact := x.Exact(q, 10, nil, nil)
		cands := x.Candidates(x.Quantizer().Prepare(q), 200, 4000, nil)
		best, err := x.Rescore(q, cands, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exact {
			total++
			if i := slices.IndexFunc(best, func(c Candidate) bool { return c.Entry == e.Entry }); i >= 0 {
				found++
				if best[i].Score != e.Score {
					t.Fatalf("entry %d rescored %v, exact %v", e.Entry, best[i].Score, e.Score)
				}
			}
		}
	}
	if recall := float64(found) / float64(total); recall < 0.9 {
		t.Errorf("recall@10 of 200 candidates: %.3f", recall)
	}
}

// TestScanInPartsIsTheSequentialScan: a scan shared among cores returns
// the very candidates one core's does, ties included (many entries share
// a vector), with and without a filter, dead entries left out; exactly
// and by estimate.
func TestScanInPartsIsTheSequentialScan(t *testing.T) {
	for _, n := range []int{5*ChunkEntries + 123, 4*sampleChunks*ChunkEntries + 77} {
		testScanInParts(t, n)
	}
}

// testScanInParts is TestScanInPartsIsTheSequentialScan over n entries:
// few enough for Candidates' two passes, or enough for its sample.
func testScanInParts(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(7, 9))
	const dims = 16
	shared := make([][]float32, 50) // few distinct vectors: ties everywhere
	for i := range shared {
		shared[i] = gaussian(r, dims)
	}
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = shared[r.IntN(len(shared))]
	}
	x := build(t, vecs, NewMemRecords(RecordBytes(dims)))
	for i := 0; i < x.Len(); i += 97 {
		x.MarkDead(i)
	}
	q := gaussian(r, dims)
	p := x.Quantizer().Prepare(q)
	for _, keep := range []func(int) bool{nil, func(i int) bool { return i%3 == 1 }} {
		var f Filter
		if keep != nil {
			f = func(base, n int, kept []uint64) {
				for k := range n {
					if keep(base + k) {
						kept[k/64] |= 1 << (k % 64)
					}
				}
			}
		}
		for _, want := range []int{1, 21, 500} {
			var parts, one [2][]Candidate
			for _, procs := range []int{4, 1} {
				prev := runtime.GOMAXPROCS(procs)
				got := [2][]Candidate{x.Exact(q, want, f, nil), x.Candidates(p, want, 2000, f)}
				runtime.GOMAXPROCS(prev)
				if procs == 4 {
					parts = got
				} else {
					one = got
				}
			}
			for k := range 2 {
				if len(parts[k]) != want || !slices.Equal(parts[k], one[k]) {
					t.Fatalf("want %d (scan %d): in parts %d candidates, on one core %d", want, k, len(parts[k]), len(one[k]))
				}
				for _, c := range parts[k] {
					if x.Dead(int(c.Entry)) || (keep != nil && !keep(int(c.Entry))) {
						t.Fatalf("entry %d returned: dead or filtered out", c.Entry)
					}
				}
			}
		}
	}
}

// TestFileRecords: records in a file score as in memory; the file is not
// in its directory once made (but on Windows) and holds them encrypted;
// it is closed by its last holder, and nothing is left.
func TestFileRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const dims = 24
	vecs := make([][]float32, 3*ChunkEntries/2)
	for i := range vecs {
		vecs[i] = gaussian(r, dims)
	}
	dir := t.TempDir()
	f, err := CreateFileRecords(dir, RecordBytes(dims))
	if err != nil {
		t.Fatal(err)
	}
	if names, _ := os.ReadDir(dir); runtime.GOOS != "windows" && len(names) != 0 {
		t.Errorf("the records file is in its directory: %v", names)
	}
	inFile := build(t, vecs, f)
	inMem := build(t, vecs, NewMemRecords(RecordBytes(dims)))
	q := gaussian(r, dims)
	cands := inMem.Exact(q, 700, nil, nil) // more than the one-goroutine read
	got, err := inFile.Rescore(q, cands, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, cands) {
		t.Fatal("the records in the file score otherwise than in memory")
	}
	raw := make([]byte, RecordBytes(dims))
	if _, err := f.f.ReadAt(raw, 0); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(raw, record(vecs[0])) {
		t.Error("the file holds the records in the clear")
	}
	f.Acquire() // a search reading it
	f.Release() // the index lets go: the search still reads
	if got, _ := inFile.Rescore(q, cands[1:2], 0, nil); got[0].Score != cands[1].Score {
		t.Error("the file was closed while a reader held it")
	}
	f.Release()
	if f.Err() != nil {
		t.Fatal(f.Err())
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("left in the directory: %v", names)
	}
}

// TestSelectBest: quickselect keeps the very set a sort would, ties
// included.
func TestSelectBest(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 2, 10, 1000} {
		for _, k := range []int{0, 1, 5, 999, 2000} {
			c := make([]Candidate, n)
			for i := range c {
				c[i] = Candidate{Entry: int32(i), Score: float32(r.IntN(20))} // ties
			}
			r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
			want := slices.Clone(c)
			sortBest(want)
			want = want[:min(k, n)]
			got := slices.Clone(selectBest(c, k))
			sortBest(got)
			if !slices.Equal(got, want) {
				t.Fatalf("n %d k %d: %v, want %v", n, k, got, want)
			}
		}
	}
}
