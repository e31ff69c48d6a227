package vecidx

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
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
	coded  bool // entries have codes (Candidates); else only Exact scans
}

// chunk holds ChunkEntries entries' codes and corrections, and which are
// dead (read and written atomically: a search marks the entries it finds
// gone while others scan).
type chunk struct {
	codes []byte // entry k at codes[k*codeBytes:]
	f, cx []uint8
	dead  [ChunkEntries / 64]atomic.Uint64
}

// New is an empty index of q's vectors whose exact values are kept in
// rec; coded: with their codes (Candidates), or not until Code is called
// (a small index in memory is scanned exactly).
func New(q *Quantizer, rec Records, coded bool) *Index {
	return &Index{q: q, rec: rec, coded: coded}
}

// Code gives every entry its code, read back from records in memory, and
// every entry added from now on. scratch holds 3 × dims values.
func (x *Index) Code(scratch []float32) {
	if x.coded {
		return
	}
	m := x.rec.(*MemRecords)
	cb, v := x.q.CodeBytes(), scratch[:x.q.dims]
	chunks := make([]*chunk, len(x.chunks))
	for ci, old := range x.chunks {
		// A copy: the readers of the uncoded index read the old chunks.
		c := &chunk{codes: make([]byte, ChunkEntries*cb), f: make([]uint8, ChunkEntries), cx: make([]uint8, ChunkEntries)}
		for w := range c.dead {
			c.dead[w].Store(old.dead[w].Load())
		}
		for k := range min(ChunkEntries, x.n-ci*ChunkEntries) {
			decode(m.record(ci*ChunkEntries+k), v)
			c.f[k], c.cx[k] = x.q.Encode(v, c.codes[k*cb:(k+1)*cb], scratch[x.q.dims:])
		}
		chunks[ci] = c
	}
	x.chunks, x.coded = chunks, true
}

// decode writes the values of the stored vector rec into v.
func decode(rec []byte, v []float32) {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(rec))
	for i := range v {
		v[i] = float32(int8(rec[4+i])) * scale
	}
}

// Coded reports whether the entries have codes (Code).
func (x *Index) Coded() bool { return x.coded }

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
		c := &chunk{}
		if x.coded {
			c.codes, c.f, c.cx = make([]byte, ChunkEntries*cb), make([]uint8, ChunkEntries), make([]uint8, ChunkEntries)
		}
		x.chunks = append(x.chunks, c)
	}
	if x.coded {
		c := x.chunks[len(x.chunks)-1]
		c.f[k], c.cx[k] = x.q.Encode(v, c.codes[k*cb:(k+1)*cb], scratch)
	}
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
	per := ChunkEntries / 8
	if x.coded {
		per += ChunkEntries * (x.q.CodeBytes() + 2)
	}
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

// An Accept says whether a candidate whose record (RecordBytes and what
// the user appended) was read is kept: the exact check of what a Filter
// could only tell roughly. Nil accepts all.
type Accept func(entry int, rec []byte) bool

// A Filter says which entries a scan keeps: it sets in kept the bits of
// the entries base…base+n−1 it keeps (bit k of kept[k/64]: entry base+k;
// kept is zero when it is called). Dead entries are left out whatever it
// says. A nil Filter keeps every entry.
type Filter func(base, n int, kept []uint64)

// Candidates returns the best want entries that f keeps (dead ones left
// out) by the estimate of their similarity to the prepared query, best
// first. When f keeps more than wide entries, only the wide nearest by
// Hamming distance (ties at the bound included) are estimated: a first
// pass over the codes at a quarter of the cost. The chunks are shared
// among the cores.
func (x *Index) Candidates(p *Query, want, wide int, f Filter) []Candidate {
	if want <= 0 || x.n == 0 {
		return nil
	}
	if !x.coded {
		panic("vecidx: Candidates of an index without codes")
	}
	if len(x.chunks) < 4*sampleChunks {
		return x.candidatesTwoPass(p, want, wide, f)
	}
	// A sample of the chunks tells the distance within which about wide
	// entries lie, with a margin; then one pass estimates those within
	// it while their code is in the cache (a second pass would fetch
	// each again from memory).
	cb := x.q.CodeBytes()
	hist := make([]int, 8*cb+1)
	step := len(x.chunks) / sampleChunks
	sampled := 0
	for ci := 0; ci < len(x.chunks); ci += step {
		base := ci * ChunkEntries
		n := min(ChunkEntries, x.n-base)
		c := x.chunks[ci]
		var m [ChunkEntries / 64]uint64
		x.mask(f, c, base, n, m[:])
		eachBit(m[:], func(k int) { hist[p.Hamming(c.codes[k*cb:(k+1)*cb])]++ })
		sampled++
	}
	scale := float64(len(x.chunks)) / float64(sampled)
	bound, cum := len(hist)-1, 0
	for b, h := range hist {
		if cum += h; float64(cum)*scale >= sampleMargin*float64(wide) {
			bound = b
			break
		}
	}
	workers := runtime.GOMAXPROCS(0)
	found := make([][]Candidate, workers)
	x.each(func(w int, c *chunk, base, n int) {
		var m [ChunkEntries / 64]uint64
		x.mask(f, c, base, n, m[:])
		out := found[w]
		eachBit(m[:], func(k int) {
			code := c.codes[k*cb : (k+1)*cb]
			if p.Hamming(code) <= bound {
				out = append(out, Candidate{int32(base + k), p.Estimate(p.Dot(code), c.f[k], c.cx[k])})
			}
		})
		found[w] = out
	})
	all := slices.Concat(found...)
	if p.Estimated = len(all); p.Estimated < wide && bound < len(hist)-1 {
		return x.candidatesTwoPass(p, want, wide, f) // the sample misjudged
	}
	top := selectBest(all, want)
	sortBest(top)
	return top
}

// selectBest moves the best k of c (by the total order of better) to its
// front, in no order, and returns them: quickselect, O(len(c)).
func selectBest(c []Candidate, k int) []Candidate {
	if k >= len(c) {
		return c
	}
	lo, hi := 0, len(c)-1
	for lo < hi {
		// The median of three as the pivot, moved to hi.
		mid := lo + (hi-lo)/2
		if better(c[mid], c[lo]) {
			c[mid], c[lo] = c[lo], c[mid]
		}
		if better(c[hi], c[lo]) {
			c[hi], c[lo] = c[lo], c[hi]
		}
		if better(c[mid], c[hi]) {
			c[mid], c[hi] = c[hi], c[mid]
		}
		pivot, store := c[hi], lo
		for i := lo; i < hi; i++ {
			if better(c[i], pivot) {
				c[i], c[store] = c[store], c[i]
				store++
			}
		}
		c[store], c[hi] = c[hi], c[store]
		switch {
		case store == k:
			return c[:k]
		case store < k:
			lo = store + 1
		default:
			hi = store - 1
		}
	}
	return c[:k]
}

// sampleChunks is how many chunks Candidates samples; sampleMargin how
// many times wide entries its bound aims at.
const (
	sampleChunks = 64
	sampleMargin = 1.5
)

// candidatesTwoPass is Candidates in two passes: each kept entry's
// Hamming distance and how many are at each, then the estimates of the
// wide nearest (ties at the bound included).
func (x *Index) candidatesTwoPass(p *Query, want, wide int, f Filter) []Candidate {
	cb := x.q.CodeBytes()
	// Pass 1: each kept entry's Hamming distance, 254 for 254 and over,
	// notKept for the others, and how many are at each.
	dist := getDist(x.n)
	defer putDist(dist)
	workers := runtime.GOMAXPROCS(0)
	hists := make([][]int, workers)
	x.each(func(w int, c *chunk, base, n int) {
		if hists[w] == nil {
			hists[w] = make([]int, 8*cb+1)
		}
		var m [ChunkEntries / 64]uint64
		x.mask(f, c, base, n, m[:])
		h, d := hists[w], dist[base:base+n]
		for k := range d {
			if m[k/64]>>(k%64)&1 == 0 {
				d[k] = notKept
				continue
			}
			v := p.Hamming(c.codes[k*cb : (k+1)*cb])
			d[k] = uint8(min(v, 254))
			h[v]++
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
	p.Estimated = kept
	// Pass 2: the estimates of those within the bound.
	heaps := make([]candHeap, workers)
	x.each(func(w int, c *chunk, base, n int) {
		h := &heaps[w]
		h.want = want
		for k, v := range dist[base : base+n] {
			if v != notKept && int(v) <= bound {
				h.offer(Candidate{int32(base + k), p.Estimate(p.Dot(c.codes[k*cb:(k+1)*cb]), c.f[k], c.cx[k])})
			}
		}
	})
	return best(heaps, want)
}

// mask sets in m the bits of the entries of chunk c (the index's base…
// base+n−1) that f keeps and are not dead.
func (x *Index) mask(f Filter, c *chunk, base, n int, m []uint64) {
	if f != nil {
		f(base, n, m)
	} else {
		for k := 0; k < n; k += 64 {
			m[k/64] = ^uint64(0) >> max(0, 64-(n-k))
		}
	}
	for w := range m {
		m[w] &^= c.dead[w].Load()
	}
}

// best is the best want of the heaps' candidates, best first.
func best(heaps []candHeap, want int) []Candidate {
	var all []Candidate
	for _, h := range heaps {
		all = append(all, h.c...)
	}
	sortBest(all)
	return all[:min(len(all), want)]
}

// eachBit calls f with the position of each bit set in m, in order.
func eachBit(m []uint64, f func(k int)) {
	for w, bitsw := range m {
		for bitsw != 0 {
			f(w*64 + bits.TrailingZeros64(bitsw))
			bitsw &= bitsw - 1
		}
	}
}

// notKept is the distance Candidates notes for an entry it does not
// keep; the others' are at most 254 (all the same past it).
const notKept = 255

var distPool sync.Pool // *[]uint8

func getDist(n int) []uint8 {
	if d, ok := distPool.Get().(*[]uint8); ok && cap(*d) >= n {
		return (*d)[:n]
	}
	return make([]uint8, n, n+n/8)
}

func putDist(d []uint8) { distPool.Put(&d) }

// each calls f with each chunk (its first entry and how many entries of
// it the index holds) on the cores, w naming the core (below GOMAXPROCS).
func (x *Index) each(f func(w int, c *chunk, base, n int)) {
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
// records held in memory that accept accepts: the exact scan. It panics
// on records on disk.
func (x *Index) Exact(q []float32, want int, f Filter, accept Accept) []Candidate {
	if want <= 0 || x.n == 0 {
		return nil
	}
	rec := x.rec.(*MemRecords)
	heaps := make([]candHeap, runtime.GOMAXPROCS(0))
	x.each(func(w int, c *chunk, base, n int) {
		h := &heaps[w]
		h.want = want
		var m [ChunkEntries / 64]uint64
		x.mask(f, c, base, n, m[:])
		eachBit(m[:], func(k int) {
			r := rec.record(base + k)
			if accept == nil || accept(base+k, r) {
				h.offer(Candidate{int32(base + k), DotRecord(q, r)})
			}
		})
	})
	return best(heaps, want)
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

// Rescore reads the records of cands (best first by estimate, as
// Candidates returns them) and returns those accept accepts with their
// exact similarity to q (DotRecord), best first. With want > 0 it reads
// them a batch at a time and stops once the rest cannot reach the best
// want: when the best estimate left, plus what the estimates read so far
// fell short of the exact similarities on average, plus stopSigmas
// standard deviations of that, is below the want-th similarity found.
// What it did not read is not returned.
func (x *Index) Rescore(q []float32, cands []Candidate, want int, accept Accept) ([]Candidate, error) {
	out := slices.Clone(cands)
	if want <= 0 {
		if err := x.rec.Score(q, sortedByEntry(out), accept); err != nil {
			return nil, err
		}
		out = slices.DeleteFunc(out, func(c Candidate) bool { return c.Entry < 0 })
		sortBest(out)
		return out, nil
	}
	var n, sum, sum2 float64
	top := candHeap{want: want} // the best want exact similarities so far
	byEntry := make([]int, 0, rescoreBatch)
	read := make([]Candidate, 0, rescoreBatch)
	done := 0
	for done < len(out) {
		next := min(len(out), done+rescoreBatch)
		if done == 0 {
			next = min(len(out), max(rescoreBatch, 2*want))
		}
		// Read the batch in entry order; keep its estimates to learn
		// their error.
		byEntry = byEntry[:0]
		for i := done; i < next; i++ {
			byEntry = append(byEntry, i)
		}
		slices.SortFunc(byEntry, func(a, b int) int { return cmp.Compare(out[a].Entry, out[b].Entry) })
		read = read[:0]
		for _, i := range byEntry {
			read = append(read, out[i])
		}
		if err := x.rec.Score(q, read, accept); err != nil {
			return nil, err
		}
		for j, i := range byEntry {
			if read[j].Entry < 0 {
				out[i].Entry = -1
				continue
			}
			r := float64(read[j].Score - out[i].Score)
			n, sum, sum2 = n+1, sum+r, sum2+r*r
			out[i].Score = read[j].Score
			top.offer(out[i])
		}
		done = next
		if done == len(out) || len(top.c) < want {
			continue
		}
		mean := sum / n
		sd := math.Sqrt(max(0, sum2/n-mean*mean))
		if float64(out[done].Score)+mean+stopSigmas*sd < float64(top.c[0].Score) {
			break
		}
	}
	out = slices.DeleteFunc(out[:done], func(c Candidate) bool { return c.Entry < 0 })
	sortBest(out)
	return out, nil
}

// rescoreBatch is how many candidates Rescore reads at a time; the first
// batch is at least twice what is wanted.
const rescoreBatch = 256

// stopSigmas is how many standard deviations of the estimates' error
// Rescore allows a candidate it does not read.
const stopSigmas = 5

// sortedByEntry sorts c by entry, in place, and returns it.
func sortedByEntry(c []Candidate) []Candidate {
	slices.SortFunc(c, func(a, b Candidate) int { return cmp.Compare(a.Entry, b.Entry) })
	return c
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
