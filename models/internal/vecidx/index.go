package vecidx

import (
	"cmp"
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// ChunkEntries is how many entries a chunk of an Index holds: the unit a
// scan hands to a core, and the most memory an index holds unused.
const ChunkEntries = 1 << 10

// Index is the codes of a list of vectors, entry i the i-th added, and
// their exact values (Records). Entries are only added; one can be marked
// dead (its row gone, or embedded again), and a scan skips it.
//
// Grown is how an index changes while it is read: the index it returns
// shares the chunks, and adds past the entries the older one reads, so a
// reader of either needs no lock. Add and Grown are the caller's to
// serialise (models holds a mutex).
type Index struct {
	q      *Quantizer
	chunks []*chunk
	n      int
	rec    Records
}

// chunk holds ChunkEntries entries' codes and corrections, and which are
// dead (read and written atomically: a search marks the entries it finds
// gone while others scan).
type chunk struct {
	codes []byte // entry k at codes[k*codeBytes:]
	f, cx []uint8
	dead  [ChunkEntries / 64]atomic.Uint64
}

// New is an empty index of q's vectors whose exact values are kept in rec.
func New(q *Quantizer, rec Records) *Index { return &Index{q: q, rec: rec} }

// Quantizer is the index's quantizer.
func (x *Index) Quantizer() *Quantizer { return x.q }

// Len is the number of entries, dead ones included.
func (x *Index) Len() int { return x.n }

// Records is where the exact vectors are kept.
func (x *Index) Records() Records { return x.rec }

// Grown is x to which entries can be added without the readers of x
// seeing them.
func (x *Index) Grown() *Index {
	nx := *x
	nx.chunks = slices.Clip(x.chunks) // an append copies: x's list is x's
	nx.rec = x.rec.Grown()
	return &nx
}

// MoveRecords makes rec, which holds a copy of the records of x's
// entries, x's records (a small index's, in memory, grown large).
func (x *Index) MoveRecords(rec Records) { x.rec = rec }

// Add appends the vector v, whose stored form (RecordBytes: the scale as
// a little-endian float32, then one int8 a dimension) is rec, and
// returns its entry. scratch holds 2 × dims values.
func (x *Index) Add(v []float32, rec []byte, scratch []float32) (int, error) {
	if err := x.rec.Append(rec); err != nil {
		return 0, err
	}
	cb := x.q.CodeBytes()
	k := x.n % ChunkEntries
	if k == 0 {
		x.chunks = append(x.chunks, &chunk{
			codes: make([]byte, ChunkEntries*cb),
			f:     make([]uint8, ChunkEntries),
			cx:    make([]uint8, ChunkEntries),
		})
	}
	c := x.chunks[len(x.chunks)-1]
	c.f[k], c.cx[k] = x.q.Encode(v, c.codes[k*cb:(k+1)*cb], scratch)
	x.n++
	return x.n - 1, nil
}

// MarkDead marks entry i dead: no scan returns it again.
func (x *Index) MarkDead(i int) {
	c := x.chunks[i/ChunkEntries]
	k := i % ChunkEntries
	c.dead[k/64].Or(1 << (k % 64))
}

// Dead reports whether entry i is dead.
func (x *Index) Dead(i int) bool {
	c := x.chunks[i/ChunkEntries]
	k := i % ChunkEntries
	return c.dead[k/64].Load()>>(k%64)&1 == 1
}

// Bytes is the memory the index holds: its chunks (codes, corrections,
// dead marks), whole, and its records' memory.
func (x *Index) Bytes() int {
	per := ChunkEntries*(x.q.CodeBytes()+2) + ChunkEntries/8
	return len(x.chunks)*per + x.rec.Bytes()
}

// Candidate is an entry and a score: the scan's estimate, or the exact
// similarity once rescored.
type Candidate struct {
	Entry int32
	Score float32
}

// better orders candidates totally: by score, ties by the earlier entry,
// so the best k of a set are one set however it is scanned.
func better(a, b Candidate) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Entry < b.Entry
}

// Candidates scans the entries kept by keep (nil: all), dead ones left
// out, and returns the best want by the estimate of their similarity to
// the prepared query, best first. When more than wide entries are kept,
// only the wide nearest by Hamming distance (ties at the bound included)
// are estimated: a first pass over the codes at a quarter of the cost.
// The chunks are shared among the cores.
func (x *Index) Candidates(p *Query, want, wide int, keep func(i int) bool) []Candidate {
	if want <= 0 || x.n == 0 {
		return nil
	}
	cb := x.q.CodeBytes()
	// Pass 1: each kept entry's Hamming distance, and how many are at
	// each.
	dist := make([]uint16, x.n)
	hists := make([][]int, runtime.GOMAXPROCS(0))
	x.each(func(w int, c *chunk, base, end int) {
		if hists[w] == nil {
			hists[w] = make([]int, 8*cb+1)
		}
		h := hists[w]
		for k := range end {
			i := base + k
			if c.dead[k/64].Load()>>(k%64)&1 == 1 || (keep != nil && !keep(i)) {
				dist[i] = math.MaxUint16
				continue
			}
			d := p.Hamming(c.codes[k*cb : (k+1)*cb])
			dist[i] = uint16(d)
			h[d]++
		}
	})
	bound, kept := 0, 0
	for b := range 8*cb + 1 {
		for _, h := range hists {
			if h != nil {
				kept += h[b]
			}
		}
		bound = b
		if kept >= wide {
			break
		}
	}
	// Pass 2: the estimates of those within the bound.
	return x.scan(want, func(i int) bool { return dist[i] <= uint16(bound) }, func(c *chunk, k, _ int) float32 {
		return p.Estimate(p.Dot(c.codes[k*cb:(k+1)*cb]), c.f[k], c.cx[k])
	})
}

// each calls f with each chunk (its first entry and how many entries of
// it the index holds) on the cores, w naming the core (below GOMAXPROCS).
func (x *Index) each(f func(w int, c *chunk, base, end int)) {
	n, chunks := x.n, len(x.chunks)
	workers := min(runtime.GOMAXPROCS(0), chunks)
	var next atomic.Int32
	work := func(w int) {
		for {
			ci := int(next.Add(1)) - 1
			if ci >= chunks {
				return
			}
			base := ci * ChunkEntries
			f(w, x.chunks[ci], base, min(ChunkEntries, n-base))
		}
	}
	if workers <= 1 {
		work(0)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { work(w) })
	}
	wg.Wait()
}

// Exact is Candidates by the exact similarity to q (DotRecord), of
// records held in memory: the exact scan. It panics on records on disk.
func (x *Index) Exact(q []float32, want int, keep func(i int) bool) []Candidate {
	m := x.rec.(*MemRecords)
	return x.scan(want, keep, func(_ *chunk, _, i int) float32 { return DotRecord(q, m.record(i)) })
}

// scan is Candidates' second pass and Exact: score scores entry k of
// chunk c, entry i of the index.
func (x *Index) scan(want int, keep func(i int) bool, score func(c *chunk, k, i int) float32) []Candidate {
	if want <= 0 || x.n == 0 {
		return nil
	}
	heaps := make([]candHeap, runtime.GOMAXPROCS(0))
	x.each(func(w int, c *chunk, base, end int) {
		h := &heaps[w]
		h.want = want
		for k := range end {
			if c.dead[k/64].Load()>>(k%64)&1 == 1 {
				continue
			}
			i := base + k
			if keep != nil && !keep(i) {
				continue
			}
			h.offer(Candidate{int32(i), score(c, k, i)})
		}
	})
	var all []Candidate
	for _, h := range heaps {
		all = append(all, h.c...)
	}
	sortBest(all)
	return all[:min(len(all), want)]
}

// sortBest sorts candidates best first.
func sortBest(c []Candidate) {
	slices.SortFunc(c, func(a, b Candidate) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(a.Entry, b.Entry)
	})
}

// candHeap keeps the best want candidates offered, the worst on top.
type candHeap struct {
	c    []Candidate
	want int
}

func (h *candHeap) offer(c Candidate) {
	if len(h.c) < h.want {
		h.c = append(h.c, c)
		h.up(len(h.c) - 1)
		return
	}
	if !better(c, h.c[0]) {
		return
	}
	h.c[0] = c
	h.down(0)
}

func (h *candHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h.c[p], h.c[i]) { // the parent is the worse: in place
			break
		}
		h.c[p], h.c[i] = h.c[i], h.c[p]
		i = p
	}
}

func (h *candHeap) down(i int) {
	n := len(h.c)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l // the worse child
		if r := l + 1; r < n && better(h.c[l], h.c[r]) {
			w = r
		}
		if !better(h.c[i], h.c[w]) {
			return
		}
		h.c[i], h.c[w] = h.c[w], h.c[i]
		i = w
	}
}

// Rescore replaces the estimates of cands by their exact similarity to q
// (Records.Dot), read from the records, best first.
func (x *Index) Rescore(q []float32, cands []Candidate) ([]Candidate, error) {
	out := slices.Clone(cands)
	slices.SortFunc(out, func(a, b Candidate) int { return cmp.Compare(a.Entry, b.Entry) })
	if err := x.rec.Score(q, out); err != nil {
		return nil, err
	}
	sortBest(out)
	return out, nil
}

// RecordBytes is the size of a stored vector of dims values: its scale
// and one int8 a dimension.
func RecordBytes(dims int) int { return 4 + dims }

// DotRecord is the dot product of q and the stored vector rec: its int8
// values times its scale, unrolled by four (the exact similarity every
// path computes the same way, to the last bit).
func DotRecord(q []float32, rec []byte) float32 {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(rec))
	b := rec[4 : 4+len(q)]
	var d0, d1, d2, d3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		d0 += q[i] * float32(int8(b[i]))
		d1 += q[i+1] * float32(int8(b[i+1]))
		d2 += q[i+2] * float32(int8(b[i+2]))
		d3 += q[i+3] * float32(int8(b[i+3]))
	}
	for ; i < len(q); i++ {
		d0 += q[i] * float32(int8(b[i]))
	}
	return (d0 + d1 + d2 + d3) * scale
}
