package models

import (
	"container/heap"
	"context"
	"encoding/binary"
	"math"
	"sync"
	"time"
)

// The in-memory vector index: SemanticSearch does not read the embeddings
// table per search (on SQLite the driver's per-row cost, not the dot
// products, made an unfiltered 100k scan take 0.33 s). Each model's vectors
// are loaded once into a compact snapshot — per row its type, id, session,
// project and tool (interned), creation time, scale and int8 values packed
// in one slice: 36 bytes + one per dimension, 42 MB per 100k rows at 384
// dimensions — scanned in memory within the filters; the best few are then
// resolved to their rows through the store, which drops rows deleted since.
// Loading reads the whole table once (1.7 s for 100k rows on SQLite on a
// loaded 2-core machine), which is why reloads are rate-limited and run
// in the background.
//
// Staleness, and why it is safe: the snapshot is reloaded in the
// background (the search that notices answers with the snapshot it has)
//   - after this process stored vectors (VectorsChanged, called by the
//     indexer once its batch committed), at most once per vecRefreshMin;
//   - on PostgreSQL, where another replica may write vectors, when older
//     than vecMaxAgePostgres (a staleness timer, not commit events);
//   - on SQLite, when older than vecMaxAgeSQLite (a backstop).
//
// A row forgotten or deleted by retention is never returned, whatever the
// snapshot holds: hits are resolved against the rows' own tables, a row
// gone there is dropped, marked dead in the snapshot and the scan is run
// again, so the page stays full.
const (
	vecRefreshMin      = 5 * time.Second
	vecMaxAgePostgres  = 30 * time.Second
	vecMaxAgeSQLite    = 5 * time.Minute
	vecRowOverhead     = 36 // bytes per row besides its dimensions
	vecResolveAttempts = 4
)

// vecTypes are the item types an index entry names by index.
var vecTypes = []string{SearchObservation, SearchPrompt, SearchSummary, SearchMemory}

func vecTypeIndex(typ string) int8 {
	for i, t := range vecTypes {
		if t == typ {
			return int8(i)
		}
	}
	return -1
}

// vecSnapshot is one model's vectors as loaded, read-only once built
// (but for dead).
type vecSnapshot struct {
	dims     int
	typ      []int8
	id       []int64
	session  []int64
	project  []int32 // into strs
	tool     []int32 // into strs
	created  []int64 // unix nanoseconds
	scale    []float32
	vals     []int8 // row i at vals[i*dims:(i+1)*dims]
	strs     []string
	strIndex map[string]int32
	loadedAt time.Time
	gen      uint64
	dead     map[int]bool // entries resolved to no row, under vecIndex.mu
}

func (v *vecSnapshot) intern(s string) int32 {
	if i, ok := v.strIndex[s]; ok {
		return i
	}
	i := int32(len(v.strs))
	v.strs = append(v.strs, s)
	v.strIndex[s] = i
	return i
}

// bytes is the snapshot's memory, as stated in the README.
func (v *vecSnapshot) bytes() int {
	return len(v.id) * (vecRowOverhead + v.dims)
}

// vecIndex holds the snapshots of a store, by model and dimensions.
type vecIndex struct {
	mu         sync.Mutex
	gen        uint64 // bumped by VectorsChanged
	snaps      map[vecKey]*vecSnapshot
	loading    map[vecKey]bool
	background sync.WaitGroup
}

type vecKey struct {
	model string
	dims  int
}

// VectorsChanged tells the in-memory vector index that vectors were
// stored: the next semantic search reloads them in the background.
func (s *Store) VectorsChanged() {
	s.vecs.mu.Lock()
	s.vecs.gen++
	s.vecs.mu.Unlock()
}

// VectorIndexBytes is the memory of the loaded snapshots of model's
// vectors (0 when none is loaded).
func (s *Store) VectorIndexBytes(model string) int {
	s.vecs.mu.Lock()
	defer s.vecs.mu.Unlock()
	n := 0
	for k, v := range s.vecs.snaps {
		if k.model == model {
			n += v.bytes()
		}
	}
	return n
}

// waitVectorLoads waits for the background reloads started so far.
func (s *Store) waitVectorLoads() { s.vecs.background.Wait() }

// vectorSnapshot returns the snapshot of model's vectors of dims values,
// loading it the first time and starting a background reload when it is
// stale.
func (s *Store) vectorSnapshot(ctx context.Context, model string, dims int) (*vecSnapshot, error) {
	ix, k := &s.vecs, vecKey{model, dims}
	ix.mu.Lock()
	v, gen := ix.snaps[k], ix.gen
	if v != nil {
		maxAge := vecMaxAgeSQLite
		if s.Postgres() {
			maxAge = vecMaxAgePostgres
		}
		age := time.Since(v.loadedAt)
		if !ix.loading[k] && age >= vecRefreshMin && (v.gen != gen || age >= maxAge) {
			if ix.loading == nil {
				ix.loading = map[vecKey]bool{}
			}
			ix.loading[k] = true
			ix.background.Add(1)
			go func() {
				defer ix.background.Done()
				nv, err := s.loadVectors(context.WithoutCancel(ctx), model, dims, gen)
				ix.mu.Lock()
				defer ix.mu.Unlock()
				delete(ix.loading, k)
				if err == nil {
					ix.snaps[k] = nv
				}
			}()
		}
		ix.mu.Unlock()
		return v, nil
	}
	ix.mu.Unlock()
	nv, err := s.loadVectors(ctx, model, dims, gen)
	if err != nil {
		return nil, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.snaps == nil {
		ix.snaps = map[vecKey]*vecSnapshot{}
	}
	if cur := ix.snaps[k]; cur != nil && cur.loadedAt.After(nv.loadedAt) {
		return cur, nil
	}
	ix.snaps[k] = nv
	return nv, nil
}

// markDead records that entry i of v was resolved to no row.
func (s *Store) markDead(v *vecSnapshot, i int) {
	s.vecs.mu.Lock()
	defer s.vecs.mu.Unlock()
	if v.dead == nil {
		v.dead = map[int]bool{}
	}
	v.dead[i] = true
}

// isDead reports whether entry i of v was resolved to no row.
func (s *Store) isDead(v *vecSnapshot, i int) bool {
	s.vecs.mu.Lock()
	defer s.vecs.mu.Unlock()
	return v.dead[i]
}

// loadVectors reads every vector of model of dims values into a snapshot
// (vectors of another size are left out).
func (s *Store) loadVectors(ctx context.Context, model string, dims int, gen uint64) (*vecSnapshot, error) {
	v := &vecSnapshot{dims: dims, strIndex: map[string]int32{}, loadedAt: time.Now(), gen: gen}
	// On SQLite one pass over the table beats a lookup per row through
	// the (model, project) index.
	where := "model = ?"
	if !s.Postgres() {
		where = "+model = ?"
	}
	rows, err := s.searchDB(ctx).Raw("SELECT item_type, item_id, session_id, project, tool_name, created_at, vec FROM embeddings WHERE "+where, model).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var typ, project, tool string
		var id, session int64
		var created any
		var b []byte
		if err := rows.Scan(&typ, &id, &session, &project, &tool, &created, &b); err != nil {
			return nil, err
		}
		t := vecTypeIndex(typ)
		if t < 0 {
			continue
		}
		scale, vals := decodeQuantised(b, dims)
		if vals == nil {
			continue
		}
		v.typ = append(v.typ, t)
		v.id = append(v.id, id)
		v.session = append(v.session, session)
		v.project = append(v.project, v.intern(project))
		v.tool = append(v.tool, v.intern(tool))
		v.created = append(v.created, parseStoredTime(created).UnixNano())
		v.scale = append(v.scale, scale)
		v.vals = append(v.vals, vals...)
	}
	return v, rows.Err()
}

// decodeQuantised reads a stored vector of dims values as its scale and
// int8 values: quantised as stored, or float32 (as first stored)
// quantised now; nil for a vector of another size.
func decodeQuantised(b []byte, dims int) (float32, []int8) {
	switch len(b) {
	case 4 + dims:
	case 4 * dims:
		f := make([]float32, dims)
		for i := range f {
			f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		b = EncodeVector(f)
	default:
		return 0, nil
	}
	vals := make([]int8, dims)
	for i := range vals {
		vals[i] = int8(b[4+i])
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), vals
}

// scan returns the best want entries of v by dot product with q within
// q's filters, best last in no set order (a heap), skipping dead ones.
func (s *Store) scanSnapshot(v *vecSnapshot, sq SearchQuery, q []float32, want int) []scored {
	project, tool, typ := int32(-1), int32(-1), int8(-1)
	if sq.Project != "" {
		i, ok := v.strIndex[sq.Project]
		if !ok {
			return nil
		}
		project = i
	}
	if sq.Tool != "" {
		i, ok := v.strIndex[sq.Tool]
		if !ok {
			return nil
		}
		tool, sq.Type = i, SearchObservation
	}
	if sq.Type != "" {
		if typ = vecTypeIndex(sq.Type); typ < 0 {
			return nil
		}
	}
	// Memories are searched on their own (a memory search), never
	// among the rows of all types.
	skip := int8(-1)
	if typ < 0 {
		skip = vecTypeIndex(SearchMemory)
	}
	from, to := int64(math.MinInt64), int64(math.MaxInt64)
	if !sq.From.IsZero() {
		from = sq.From.UnixNano()
	}
	if !sq.To.IsZero() {
		to = sq.To.UnixNano()
	}
	h := &minHeap{}
	dims := v.dims
	for i := range v.id {
		if (project >= 0 && v.project[i] != project) || (tool >= 0 && v.tool[i] != tool) || (typ >= 0 && v.typ[i] != typ) || v.typ[i] == skip ||
			v.created[i] < from || v.created[i] >= to || (sq.ExcludeSessionID != 0 && v.session[i] == sq.ExcludeSessionID) {
			continue
		}
		sim := float64(dotInt8(q, v.vals[i*dims:(i+1)*dims]) * v.scale[i])
		if h.Len() >= want && sim <= (*h)[0].sim {
			continue
		}
		if v.dead != nil && s.isDead(v, i) {
			continue
		}
		c := scored{typ: vecTypes[v.typ[i]], id: v.id[i], sim: sim, at: i}
		if h.Len() < want {
			heap.Push(h, c)
		} else {
			(*h)[0] = c
			heap.Fix(h, 0)
		}
	}
	return *h
}

// dotInt8 is the dot product of q and the int8 values b (len(b) ==
// len(q)), unrolled by four.
func dotInt8(q []float32, b []int8) float32 {
	b = b[:len(q)]
	var d0, d1, d2, d3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		d0 += q[i] * float32(b[i])
		d1 += q[i+1] * float32(b[i+1])
		d2 += q[i+2] * float32(b[i+2])
		d3 += q[i+3] * float32(b[i+3])
	}
	for ; i < len(q); i++ {
		d0 += q[i] * float32(b[i])
	}
	return d0 + d1 + d2 + d3
}

// semanticSearchIndexed is SemanticSearch through the in-memory index:
// the best of the snapshot, resolved to their rows; an entry whose row is
// gone is marked dead and the scan runs again, so a forgotten row is
// never returned and the page stays full.
func (s *Store) semanticSearchIndexed(ctx context.Context, q SearchQuery, model string, vec []float32) ([]SearchHit, error) {
	v, err := s.vectorSnapshot(ctx, model, len(vec))
	if err != nil {
		return nil, err
	}
	want := q.Offset + q.Limit + 1
	for attempt := 0; ; attempt++ {
		best := s.scanSnapshot(v, q, vec, want)
		sortScored(best)
		hits, err := s.semanticRows(ctx, best)
		if err != nil {
			return nil, err
		}
		gone := 0
		for i, h := range hits {
			if h.Type == "" {
				s.markDead(v, best[i].at)
				gone++
			}
		}
		if gone == 0 || attempt == vecResolveAttempts-1 {
			hits = loadedHits(hits)
			if q.Offset >= len(hits) {
				return []SearchHit{}, nil
			}
			return hits[q.Offset:], nil
		}
	}
}
