package models

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"slices"
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
// The worker warms the index in the background when semantic recall
// starts and after a model change (WarmVectors), so the first search does
// not pay the load; a search that arrives while it loads does not wait
// (ErrVectorsLoading: hybrid search and the hint answer with text).
//
// Staleness, and why it is safe: vectors this process stores are added
// to the loaded snapshot as they commit (VectorsAdded, called by the
// indexer), so a search sees them at once; the older entry of a row
// embedded again is marked dead. The snapshot is also reloaded in the
// background (the search that notices answers with the snapshot it has)
//   - after VectorsChanged (vectors changed some other way), at most once
//     per vecRefreshMin;
//   - on PostgreSQL, where another replica may write vectors, when older
//     than vecMaxAgePostgres (a staleness timer, not commit events);
//   - on SQLite, when older than vecMaxAgeSQLite (a backstop);
//   - when it is empty, at most once per vecRefreshMin.
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
	// dead are the entries resolved to no row, or replaced by a newer
	// vector of their row; made with the snapshot, read and written
	// under vecIndex.mu, shared with the snapshots grown from it.
	dead map[int]bool
}

func newSnapshot(dims int, gen uint64) *vecSnapshot {
	return &vecSnapshot{dims: dims, strIndex: map[string]int32{}, loadedAt: time.Now(), gen: gen, dead: map[int]bool{}}
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

// add appends one entry.
func (v *vecSnapshot) add(typ int8, id, session int64, project, tool string, created int64, scale float32, vals []int8) {
	v.typ = append(v.typ, typ)
	v.id = append(v.id, id)
	v.session = append(v.session, session)
	v.project = append(v.project, v.intern(project))
	v.tool = append(v.tool, v.intern(tool))
	v.created = append(v.created, created)
	v.scale = append(v.scale, scale)
	v.vals = append(v.vals, vals...)
}

// grown is v with the vectors of items (vecs[i] is items[i]'s) added, as
// a new snapshot: v's readers go on reading v's entries (appends write
// past them), the strings' index is copied; under vecIndex.mu. An older
// entry of the same row is marked dead.
func (v *vecSnapshot) grown(items []EmbedItem, vecs [][]float32) *vecSnapshot {
	nv := *v
	nv.strIndex = make(map[string]int32, len(v.strIndex))
	for k, i := range v.strIndex {
		nv.strIndex[k] = i
	}
	type key struct {
		typ int8
		id  int64
	}
	again := map[key]bool{}
	for i, it := range items {
		t := vecTypeIndex(it.Type)
		if t < 0 || len(vecs[i]) != v.dims {
			continue
		}
		again[key{t, it.ID}] = true
		scale, vals := decodeQuantised(EncodeVector(vecs[i]), v.dims)
		nv.add(t, it.ID, it.SessionID, it.Project, it.Tool, it.CreatedAt.UnixNano(), scale, vals)
	}
	for i := range v.id { // one pass: a map lookup per entry
		if again[key{v.typ[i], v.id[i]}] {
			v.dead[i] = true
		}
	}
	return &nv
}

// bytes is the snapshot's memory, as stated in the README.
func (v *vecSnapshot) bytes() int {
	return len(v.id) * (vecRowOverhead + v.dims)
}

// vecIndex holds the snapshots of a store, by model and dimensions.
type vecIndex struct {
	mu      sync.Mutex
	gen     uint64 // bumped by VectorsChanged
	snaps   map[vecKey]*vecSnapshot
	loading map[vecKey]bool
	// added holds, per model, the vectors added while a snapshot of it
	// loads: the load may have read the table before they committed.
	added      map[string][]addedBatch
	background sync.WaitGroup
}

// addedBatch is one VectorsAdded call.
type addedBatch struct {
	items []EmbedItem
	vecs  [][]float32
}

// ErrVectorsLoading is the error of a semantic search that arrives while
// the vector index of its model is still loading: it does not wait (a
// hybrid search answers with text).
var ErrVectorsLoading = errors.New("semantic search: the vector index is still loading")

// VectorsAdded adds vectors this process just committed (the indexer's
// batch) to the loaded snapshots of model, so the next search sees them.
func (s *Store) VectorsAdded(model string, items []EmbedItem, vecs [][]float32) {
	if len(items) != len(vecs) {
		return
	}
	ix := &s.vecs
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for k, v := range ix.snaps {
		if k.model == model {
			ix.snaps[k] = v.grown(items, vecs)
		}
	}
	for k := range ix.loading {
		if k.model == model {
			if ix.added == nil {
				ix.added = map[string][]addedBatch{}
			}
			ix.added[model] = append(ix.added[model], addedBatch{items, vecs})
			break
		}
	}
}

// installLocked makes nv the snapshot of k (under mu), with what was
// added while it loaded; the batches are dropped once no load of the
// model runs.
func (ix *vecIndex) installLocked(k vecKey, nv *vecSnapshot) *vecSnapshot {
	for _, b := range ix.added[k.model] {
		nv = nv.grown(b.items, b.vecs)
	}
	if ix.snaps == nil {
		ix.snaps = map[vecKey]*vecSnapshot{}
	}
	ix.snaps[k] = nv
	delete(ix.loading, k)
	still := false
	for l := range ix.loading {
		still = still || l.model == k.model
	}
	if !still {
		delete(ix.added, k.model)
	}
	return nv
}

// startLoadLocked marks k loading (under mu); false when it already is.
func (ix *vecIndex) startLoadLocked(k vecKey) bool {
	if ix.loading[k] {
		return false
	}
	if ix.loading == nil {
		ix.loading = map[vecKey]bool{}
	}
	ix.loading[k] = true
	return true
}

// WarmVectors loads the snapshot of model's vectors (of dims values; 0:
// the size of those stored) unless it is loaded or loading, so the first
// search does not pay it. It returns how many vectors it loaded.
func (s *Store) WarmVectors(ctx context.Context, model string, dims int) (int, error) {
	if dims <= 0 {
		var b []byte
		err := s.searchDB(ctx).Raw("SELECT vec FROM embeddings WHERE model = ? LIMIT 1", model).Row().Scan(&b)
		if errors.Is(err, sql.ErrNoRows) || len(b) <= 4 {
			return 0, nil // nothing stored yet: the first search loads an empty table
		}
		if err != nil {
			return 0, err
		}
		dims = len(b) - 4
	}
	ix, k := &s.vecs, vecKey{model, dims}
	ix.mu.Lock()
	if ix.snaps[k] != nil || !ix.startLoadLocked(k) {
		ix.mu.Unlock()
		return 0, nil
	}
	gen := ix.gen
	ix.mu.Unlock()
	v, err := s.loadInstall(ctx, k, gen)
	if err != nil {
		return 0, err
	}
	return len(v.id), nil
}

// loadInstall loads k's vectors as of gen and installs them, or, when the
// load fails, ends the load marked by startLoadLocked so the next search
// starts another. The caller marked the load and does not hold ix.mu.
func (s *Store) loadInstall(ctx context.Context, k vecKey, gen uint64) (*vecSnapshot, error) {
	nv, err := s.loadVectors(ctx, k.model, k.dims, gen)
	ix := &s.vecs
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err != nil {
		delete(ix.loading, k)
		return nil, err
	}
	return ix.installLocked(k, nv), nil
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

// VectorIndexLoading reports whether a load of the vector index is under
// way (the worker's warm-up, a search's own load or a background reload).
func (s *Store) VectorIndexLoading() bool {
	s.vecs.mu.Lock()
	defer s.vecs.mu.Unlock()
	return len(s.vecs.loading) > 0
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
		if len(v.id) == 0 {
			// Empty when loaded (warmed before anything was embedded; on
			// PostgreSQL another replica may embed since): cheap to load
			// again, and likely stale.
			maxAge = vecRefreshMin
		}
		age := time.Since(v.loadedAt)
		if age >= vecRefreshMin && (v.gen != gen || age >= maxAge) && ix.startLoadLocked(k) {
			ix.background.Add(1)
			go func() {
				defer ix.background.Done()
				s.loadInstall(context.WithoutCancel(ctx), k, gen) // a failed refresh keeps the old snapshot
			}()
		}
		ix.mu.Unlock()
		return v, nil
	}
	// Not loaded: this search loads it, unless another load (the warm-up)
	// is under way, which it does not wait for.
	if !ix.startLoadLocked(k) {
		ix.mu.Unlock()
		return nil, ErrVectorsLoading
	}
	ix.mu.Unlock()
	return s.loadInstall(ctx, k, gen)
}

// markDead records that entry i of v was resolved to no row.
func (s *Store) markDead(v *vecSnapshot, i int) {
	s.vecs.mu.Lock()
	defer s.vecs.mu.Unlock()
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
	v := newSnapshot(dims, gen)
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
		v.add(t, id, session, project, tool, parseStoredTime(created).UnixNano(), scale, vals)
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

// scanPart is the fewest entries a goroutine of scanSnapshot scans: below
// it, starting one costs more than it saves.
const scanPart = 1 << 15

// scanSnapshot returns the best want entries of v by dot product with q
// within q's filters (by worse: one set, however scanned), in no set
// order, skipping dead ones. A large snapshot is scanned in parts, one a
// core, each keeping its own best, merged after.
func (s *Store) scanSnapshot(v *vecSnapshot, sq SearchQuery, q []float32, want int) []scored {
	f, ok := v.filterOf(sq)
	if !ok {
		return nil
	}
	n := len(v.id)
	parts := min(runtime.GOMAXPROCS(0), n/scanPart)
	if parts <= 1 {
		return s.scanRange(v, f, q, want, 0, n)
	}
	best := make([][]scored, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { best[p] = s.scanRange(v, f, q, want, n*p/parts, n*(p+1)/parts) })
	}
	wg.Wait()
	all := slices.Concat(best...)
	if len(all) > want {
		sortScored(all)
		all = all[:want]
	}
	return all
}

// vecFilter is a SearchQuery's filters in a snapshot's terms (-1: any).
type vecFilter struct {
	project, tool int32
	typ, skip     int8
	from, to      int64
	session       int64              // excluded; 0: none
	only          map[int64]struct{} // SearchQuery.OnlyIDs; nil: any
}

// filterOf is sq's filters in v's terms; false when nothing can match
// (a project or tool v has never seen, an unknown type).
func (v *vecSnapshot) filterOf(sq SearchQuery) (vecFilter, bool) {
	project, tool, typ := int32(-1), int32(-1), int8(-1)
	if sq.Project != "" {
		i, ok := v.strIndex[sq.Project]
		if !ok {
			return vecFilter{}, false
		}
		project = i
	}
	if sq.Tool != "" {
		i, ok := v.strIndex[sq.Tool]
		if !ok {
			return vecFilter{}, false
		}
		tool, sq.Type = i, SearchObservation
	}
	if sq.Type != "" {
		if typ = vecTypeIndex(sq.Type); typ < 0 {
			return vecFilter{}, false
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
	f := vecFilter{project: project, tool: tool, typ: typ, skip: skip, from: from, to: to, session: sq.ExcludeSessionID}
	if sq.OnlyIDs != nil {
		if len(sq.OnlyIDs) == 0 {
			return vecFilter{}, false
		}
		f.only = make(map[int64]struct{}, len(sq.OnlyIDs))
		for _, id := range sq.OnlyIDs {
			f.only[id] = struct{}{}
		}
	}
	return f, true
}

// scanRange is scanSnapshot over the entries lo…hi-1: their best want,
// as a heap.
func (s *Store) scanRange(v *vecSnapshot, f vecFilter, q []float32, want, lo, hi int) []scored {
	h := &minHeap{}
	dims := v.dims
	for i := lo; i < hi; i++ {
		if (f.project >= 0 && v.project[i] != f.project) || (f.tool >= 0 && v.tool[i] != f.tool) || (f.typ >= 0 && v.typ[i] != f.typ) || v.typ[i] == f.skip ||
			v.created[i] < f.from || v.created[i] >= f.to || (f.session != 0 && v.session[i] == f.session) {
			continue
		}
		if f.only != nil {
			if _, ok := f.only[v.id[i]]; !ok {
				continue
			}
		}
		sim := float64(dotInt8(q, v.vals[i*dims:(i+1)*dims]) * v.scale[i])
		if h.Len() >= want && sim < (*h)[0].sim {
			continue // cheaper than building c: not even a tie
		}
		c := scored{typ: vecTypes[v.typ[i]], id: v.id[i], sim: sim, at: i}
		if h.Len() >= want && !worse((*h)[0], c) {
			continue
		}
		if s.isDead(v, i) {
			continue
		}
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
		best = uniqueScored(best)
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

// uniqueScored drops the later of two candidates of one row (its vector
// read by a load and added as it committed), keeping the order.
func uniqueScored(best []scored) []scored {
	type key struct {
		typ string
		id  int64
	}
	seen := make(map[key]bool, len(best))
	kept := best[:0]
	for _, c := range best {
		if k := (key{c.typ, c.id}); !seen[k] {
			seen[k] = true
			kept = append(kept, c)
		}
	}
	return kept
}
