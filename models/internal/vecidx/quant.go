// Package vecidx is the engine of mneme's approximate vector index: each
// vector kept as a 1-bit code (the signs of its difference from the mean
// vector, after a fixed random rotation: 48 bytes at 384 dimensions) and
// two one-byte corrections, scanned against the query through lookup
// tables, so that a million vectors take 50 MB and are scanned in tens of
// milliseconds. The scan's estimates are coarse: its best few thousand
// candidates are rescored exactly from the vectors as stored (Records).
//
// The estimate is RaBitQ's (Gao and Long, SIGMOD 2024): with x's
// difference from the mean o = x − c and its code b (±1 a dimension, as
// sqlite-vec's binary quantisation keeps), ⟨q, o⟩ ≈ ‖o‖²/‖o‖₁ ⟨q, b⟩. The
// query is not quantised to a code of its own (a Hamming distance loses
// twice as much) and is centred too: ⟨q, x⟩ = ⟨q − c, o⟩ + ⟨c, x⟩ + a
// constant of the query, ⟨c, x⟩ kept per vector. Measured against the
// alternatives in docs/performance.md.
//
// It knows vectors and codes only; which row an entry is, its filters and
// where the exact vectors are read from belong to its user (models).
package vecidx

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Quantizer turns vectors of one size into codes, and queries into what a
// scan of codes needs. It is read-only once made, shared by every
// goroutine.
type Quantizer struct {
	dims    int
	mean    []float32 // the centre
	meanRot []float32 // the centre, rotated
	rot     *rotation
	// The ranges the corrections are kept in, as one byte each: the
	// factor ‖o‖²/‖o‖₁ on a log scale, ⟨c, x⟩ linearly.
	fLo, fStep   float32 // log
	cxLo, cxStep float32
	fTab, cxTab  [256]float32 // a byte's value
}

// NewQuantizer is the quantizer of dims-value vectors fitted to sample
// (the first vectors of an index, a few thousand are plenty): centred on
// their mean, rotated by the fixed random rotation of seed, its
// corrections' ranges taken from them. An empty sample centres on the
// origin.
func NewQuantizer(dims int, sample [][]float32, seed uint64) *Quantizer {
	q := &Quantizer{dims: dims, rot: newRotation(dims, seed), mean: make([]float32, dims)}
	for _, x := range sample {
		for i := range q.mean {
			q.mean[i] += x[i] / float32(len(sample))
		}
	}
	q.meanRot = append([]float32(nil), q.mean...)
	q.rot.apply(q.meanRot, make([]float32, dims))
	// The corrections' ranges: the sample's, with a margin; a vector
	// beyond them is clamped (its estimate coarser, its rescoring exact).
	fLo, fHi := float32(math.Inf(1)), float32(math.Inf(-1))
	cxLo, cxHi := fLo, fHi
	code := make([]byte, q.CodeBytes())
	scratch := make([]float32, 2*dims)
	for _, x := range sample {
		f, cx := q.corrections(x, code, scratch)
		if f > 0 {
			fLo, fHi = min(fLo, f), max(fHi, f)
		}
		cxLo, cxHi = min(cxLo, cx), max(cxHi, cx)
	}
	if fLo > fHi { // no sample: unit vectors about the origin
		fLo, fHi = 1/float32(math.Sqrt(float64(dims)))/2, 4/float32(math.Sqrt(float64(dims)))
	}
	if cxLo > cxHi {
		cxLo, cxHi = -1, 1
	}
	fLo, fHi = fLo/1.5, fHi*1.5
	pad := (cxHi - cxLo) / 4
	cxLo, cxHi = cxLo-pad-1e-6, cxHi+pad+1e-6
	q.fLo, q.fStep = float32(math.Log(float64(fLo))), float32(math.Log(float64(fHi/fLo))/255)
	q.cxLo, q.cxStep = cxLo, (cxHi-cxLo)/255
	for b := range 256 {
		q.fTab[b] = float32(math.Exp(float64(q.fLo + float32(b)*q.fStep)))
		q.cxTab[b] = q.cxLo + float32(b)*q.cxStep
	}
	q.fTab[0] = 0 // a vector at the centre: its code says nothing
	return q
}

// Dims is the size of the vectors.
func (q *Quantizer) Dims() int { return q.dims }

// CodeBytes is the size of one code: a bit a dimension, in whole 64-bit
// words.
func (q *Quantizer) CodeBytes() int { return (q.dims + 63) / 64 * 8 }

// Encode writes the code of x into code (CodeBytes() bytes) and returns
// its corrections, one byte each. scratch holds 2 × dims values.
func (q *Quantizer) Encode(x []float32, code []byte, scratch []float32) (f, cx uint8) {
	fv, cxv := q.corrections(x, code, scratch)
	if fv > 0 {
		u := math.Round(float64((float32(math.Log(float64(fv))) - q.fLo) / q.fStep))
		f = uint8(min(max(u, 1), 255))
	}
	u := math.Round(float64((cxv - q.cxLo) / q.cxStep))
	return f, uint8(min(max(u, 0), 255))
}

// corrections writes x's code and returns its factor ‖o‖²/‖o‖₁ (0 for
// x at the centre) and ⟨c, x⟩. scratch holds 2 × dims values.
func (q *Quantizer) corrections(x []float32, code []byte, scratch []float32) (float32, float32) {
	o, tmp := scratch[:q.dims], scratch[q.dims:2*q.dims]
	copy(o, x)
	var cx float64
	for i, v := range x[:q.dims] {
		cx += float64(v) * float64(q.mean[i])
	}
	q.rot.apply(o, tmp)
	clear(code[:q.CodeBytes()])
	var r2, l1 float64
	for i, v := range o {
		v -= q.meanRot[i]
		r2 += float64(v) * float64(v)
		l1 += math.Abs(float64(v))
		if v > 0 {
			code[i>>3] |= 1 << (i & 7)
		}
	}
	if l1 == 0 {
		return 0, float32(cx)
	}
	return float32(r2 / l1), float32(cx)
}

// Query is a query prepared for scanning codes: its difference from the
// centre, rotated, as one table a byte of code: the table of ⟨q − c, b⟩
// over that byte's 8 dimensions for each of its 256 values, in fixed
// point (int16: 24 KB at 384 dimensions, which stays in the L1 cache). A
// code's Dot is the sum of one entry a byte.
type Query struct {
	lut  [][256]int16
	unit float32 // the value of one unit of an entry
	q    *Quantizer
	sign []uint64 // the code of the query's own signs, for Hamming
	// Estimated is how many entries the last Candidates with this query
	// estimated (those its Hamming pass kept).
	Estimated int
}

// Prepare makes the scan form of the query vector v.
func (q *Quantizer) Prepare(v []float32) *Query {
	nb := q.CodeBytes()
	o := make([]float32, nb*8)
	for i := range q.dims {
		o[i] = v[i] - q.mean[i]
	}
	q.rot.apply(o[:q.dims], make([]float32, q.dims))
	f := make([][256]float32, nb)
	var most float32
	for k := range f {
		e := &f[k]
		for j := range 8 {
			e[0] -= o[8*k+j]
		}
		for b := 1; b < 256; b++ {
			low := bits.TrailingZeros8(uint8(b))
			e[b] = e[b&(b-1)] + 2*o[8*k+low]
		}
		for _, x := range e {
			most = max(most, x, -x)
		}
	}
	p := &Query{lut: make([][256]int16, nb), q: q, sign: make([]uint64, nb/8)}
	for i, x := range o[:q.dims] {
		if x > 0 {
			p.sign[i/64] |= 1 << (i % 64)
		}
	}
	if most == 0 {
		return p
	}
	p.unit = most / math.MaxInt16
	for k := range f {
		for b := range 256 {
			p.lut[k][b] = int16(math.Round(float64(f[k][b] / p.unit)))
		}
	}
	return p
}

// Dot is ⟨q − c, b⟩ for the code's ±1 values b (bit set: +1), in units
// of the query's tables.
func (p *Query) Dot(code []byte) int32 {
	if len(p.lut) == 48 { // 384 dimensions: no bounds checks
		return dot48((*[48][256]int16)(p.lut), (*[48]byte)(code))
	}
	lut := p.lut
	c := code[:len(lut)]
	var a0, a1, a2, a3 int32
	for k := 0; k+8 <= len(c); k += 8 {
		x := binary.LittleEndian.Uint64(c[k:])
		t := lut[k : k+8 : k+8]
		a0 += int32(t[0][uint8(x)]) + int32(t[4][uint8(x>>32)])
		a1 += int32(t[1][uint8(x>>8)]) + int32(t[5][uint8(x>>40)])
		a2 += int32(t[2][uint8(x>>16)]) + int32(t[6][uint8(x>>48)])
		a3 += int32(t[3][uint8(x>>24)]) + int32(t[7][uint8(x>>56)])
	}
	return a0 + a1 + a2 + a3
}

// dot48 is Dot of a 48-byte code.
func dot48(lut *[48][256]int16, c *[48]byte) int32 {
	var a0, a1, a2, a3 int32
	for k := 0; k < 48; k += 8 {
		x := binary.LittleEndian.Uint64(c[k : k+8])
		a0 += int32(lut[k][uint8(x)]) + int32(lut[k+4][uint8(x>>32)])
		a1 += int32(lut[k+1][uint8(x>>8)]) + int32(lut[k+5][uint8(x>>40)])
		a2 += int32(lut[k+2][uint8(x>>16)]) + int32(lut[k+6][uint8(x>>48)])
		a3 += int32(lut[k+3][uint8(x>>24)]) + int32(lut[k+7][uint8(x>>56)])
	}
	return a0 + a1 + a2 + a3
}

// Hamming is the number of dimensions whose sign in code differs from
// the query's: a cheaper, coarser measure than Dot, to narrow a scan.
func (p *Query) Hamming(code []byte) int {
	if len(p.sign) == 6 {
		return hamming48((*[6]uint64)(p.sign), (*[48]byte)(code))
	}
	d := 0
	for w, s := range p.sign {
		d += bits.OnesCount64(binary.LittleEndian.Uint64(code[8*w:]) ^ s)
	}
	return d
}

// hamming48 is Hamming of a 48-byte code.
func hamming48(s *[6]uint64, c *[48]byte) int {
	return bits.OnesCount64(binary.LittleEndian.Uint64(c[0:8])^s[0]) +
		bits.OnesCount64(binary.LittleEndian.Uint64(c[8:16])^s[1]) +
		bits.OnesCount64(binary.LittleEndian.Uint64(c[16:24])^s[2]) +
		bits.OnesCount64(binary.LittleEndian.Uint64(c[24:32])^s[3]) +
		bits.OnesCount64(binary.LittleEndian.Uint64(c[32:40])^s[4]) +
		bits.OnesCount64(binary.LittleEndian.Uint64(c[40:48])^s[5])
}

// Estimate is the estimate of ⟨query, x⟩, less a constant of the query,
// of the vector x whose code's Dot is d and whose corrections are f and
// cx: larger is nearer.
func (p *Query) Estimate(d int32, f, cx uint8) float32 {
	return float32(d)*p.unit*p.q.fTab[f] + p.q.cxTab[cx]
}

// rotation is a fixed random orthogonal transform that is cheap to apply
// (O(dims log dims)): rounds of random signs, a Walsh–Hadamard transform
// on each block of the largest power of two dividing dims (128 at 384),
// and a random permutation, so that every output mixes every input.
type rotation struct {
	dims, block int
	signs       [][]float32
	perms       [][]int32
	norm        float32
}

const rotationRounds = 3

func newRotation(dims int, seed uint64) *rotation {
	r := rand.New(rand.NewPCG(seed, 0x0f0f))
	rt := &rotation{dims: dims, block: dims & -dims}
	rt.norm = float32(1 / math.Sqrt(float64(rt.block)))
	for range rotationRounds {
		// The signs carry each round's normalisation.
		s := make([]float32, dims)
		for i := range s {
			s[i] = rt.norm
			if r.IntN(2) == 0 {
				s[i] = -rt.norm
			}
		}
		p := make([]int32, dims)
		for i, j := range r.Perm(dims) {
			p[i] = int32(j)
		}
		rt.signs, rt.perms = append(rt.signs, s), append(rt.perms, p)
	}
	return rt
}

// apply rotates v in place; tmp holds dims values.
func (rt *rotation) apply(v, tmp []float32) {
	v, tmp = v[:rt.dims], tmp[:rt.dims]
	for k := range rt.signs {
		signs := rt.signs[k][:len(v)]
		for i := range v {
			v[i] *= signs[i]
		}
		for b := 0; b < rt.dims; b += rt.block {
			fwht(v[b : b+rt.block])
		}
		for i, j := range rt.perms[k][:len(tmp)] {
			tmp[i] = v[j]
		}
		copy(v, tmp)
	}
}

// fwht is the unnormalised Walsh–Hadamard transform of v (its length a
// power of two), in place.
func fwht(v []float32) {
	for h := 1; h < len(v); h <<= 1 {
		for i := 0; i+2*h <= len(v); i += 2 * h {
			a, b := v[i:i+h], v[i+h:i+2*h]
			b = b[:len(a)]
			for j := range a {
				a[j], b[j] = a[j]+b[j], a[j]-b[j]
			}
		}
	}
}
