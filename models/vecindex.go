package models

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mneme-dev/mneme/models/internal/vecidx"
)

// The vector index: SemanticSearch does not read the embeddings table per
// search (on SQLite the driver's per-row cost made an unfiltered 100k scan
// take 0.33 s). Each model's vectors are loaded once into a snapshot: per
// row its type, id, project, tool and day, packed in 9 bytes (vecMeta),
// and a record of its vector as stored (int8 values and a scale) with its
// time and session (vecRecordBytes).
//
//   - A small snapshot (up to vecExactRows rows) keeps the records in
//     memory and a search is an exact scan within the filters, as it
//     always was.
//   - A large one keeps a 1-bit code of each vector (vecidx: 48 bytes and
//     two one-byte corrections at 384 dimensions; 60 bytes a row with the
//     metadata, 60 MB at a million rows) and the records in a file beside
//     the database (vecidx.FileRecords: removed from the directory as
//     soon as it is made, encrypted with a key only memory holds). A
//     search scans the codes within the filters (a Hamming pass, then the
//     estimates of the nearest vecWide × vecRescore) for its best
//     vecRescore candidates, reads those records back, checks their time
//     and session exactly and ranks them by the exact similarity: the
//     same similarities as the exact scan's, for a few thousand rows. It
//     stops reading once the candidates left cannot reach the page. Where
//     the filters leave fewer rows than that (a small project, OnlyIDs),
//     every row they leave is rescored: the exact answer.
//
// The best few are then resolved to their rows through the store, which
// drops rows deleted since. Loading reads the whole table once (8 to 30 s
// for a million rows on SQLite on the loaded 2-core machine: the driver
// on one goroutine, the codes on another), which is why reloads are
// rate-limited and run in the background.
//
// The worker warms the index in the background when the embeddings
// starts and after a model change (WarmVectors), so the first search does
// not pay the load; a search that arrives while it loads does not wait
// (ErrVectorsLoading: hybrid search and the hint answer with text).
//
// Staleness, and why it is safe: vectors this process stores are added
// to the loaded snapshot as they commit (VectorsAdded, called by the
// indexer), so a search sees them at once; the older entry of a row
// embedded again is marked dead. The snapshot is also reloaded in the
// background (the search that notices answers with the snapshot it has)
//   - after vectorsChanged (vectors changed some other way), at most once
//     per vecRefreshMin;
//   - on PostgreSQL, where another replica may write vectors, when older
//     than vecMaxAgePostgres (a staleness timer, not commit events);
//   - on SQLite, when older than vecMaxAgeSQLite (a backstop);
//   - when it is empty, at most once per vecRefreshMin;
//
// and never more often than every vecLoadRatio times its last load took,
// so that reloading a large index costs at most a twentieth of a core.
//
// A row forgotten or deleted by retention is never returned, whatever the
// snapshot holds: hits are resolved against the rows' own tables, a row
// gone there is dropped, marked dead in the snapshot and the scan is run
// again, so the page stays full. The file holds the vectors encrypted
// with a key only memory holds (vecidx.FileRecords); after a forget the
// scrub (Store.Scrub) loads the index again and lets the old file and its
// key go.
const (
	vecRefreshMin      = 5 * time.Second
	vecMaxAgePostgres  = 30 * time.Second
	vecMaxAgeSQLite    = 5 * time.Minute
	vecLoadRatio       = 20
	vecResolveAttempts = 4
	// vecExactRows is the most rows a snapshot keeps in memory and scans
	// exactly: 13 MB of vectors at 384 dimensions, scanned in a few
	// milliseconds; above it the codes and the file.
	vecExactRows = 32 << 10
	// vecRescore is how many candidates a search over the codes rescores
	// exactly: enough for a recall@10 of 0.95 against the exact scan on
	// clustered and text-like vectors at a million rows (see
	// docs/performance.md); for a deep page, vecRescorePer a result.
	vecRescore    = 3072
	vecRescorePer = 4
	// vecWide: a search estimates the vecWide × vecRescore entries
	// nearest by Hamming distance (vecidx.Index.Candidates).
	vecWide = 8
	// vecSampleRows are the first rows of a load, whose mean centres the
	// codes (vecidx.NewQuantizer).
	vecSampleRows   = 4096
	vecRotationSeed = 0x6d6e656d65 // "mneme": the rotation is the same for every index
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

// Per-entry values that do not fit their field: a filter on them passes
// the entry, and the exact check after resolving it decides
// (SearchQuery.matchesHit).
const (
	vecManyTools    = 1<<6 - 1 // the tool of vecMeta.kind
	vecManyProjects = math.MaxUint16
	vecBigID        = math.MaxUint32 // the id is in vecSnapshot.bigIDs
	vecDayUnknown   = 0              // created before 1970-01-02 or after 2149
)

// vecMeta is the metadata of a chunk of entries, 9 bytes an entry and a
// bit for each type (9.5 KB a chunk). A row's session and its time to the
// nanosecond are in its record (vecRecord), checked as it is rescored.
type vecMeta struct {
	types   [4][vecidx.ChunkEntries / 64]atomic.Uint64 // the entries of each type (written while read)
	kind    [vecidx.ChunkEntries]uint8                 // type index << 6 | tool index
	project [vecidx.ChunkEntries]uint16
	created [vecidx.ChunkEntries]uint16 // days since 1970; vecDayUnknown
	id      [vecidx.ChunkEntries]uint32 // vecBigID: in bigIDs
}

// vecMetaBytes is the size of a vecMeta.
const vecMetaBytes = vecidx.ChunkEntries*9 + vecidx.ChunkEntries/2

// vecTail is what a record holds after the vector (vecidx.RecordBytes):
// the row's creation time (unix nanoseconds) and session, little-endian
// int64s, for the exact check of those filters as a candidate is read.
const vecTail = 16

// vecRecordBytes is the size of a record of a dims-value vector.
func vecRecordBytes(dims int) int { return vecidx.RecordBytes(dims) + vecTail }

// appendTail appends the record's tail to rec.
func appendTail(rec []byte, created time.Time, session int64) []byte {
	rec = binary.LittleEndian.AppendUint64(rec, uint64(created.UnixNano()))
	return binary.LittleEndian.AppendUint64(rec, uint64(session))
}

// recordTail reads a record's tail.
func recordTail(rec []byte, dims int) (created, session int64) {
	t := rec[vecidx.RecordBytes(dims):]
	return int64(binary.LittleEndian.Uint64(t)), int64(binary.LittleEndian.Uint64(t[8:]))
}

// vecNames interns a snapshot's projects or tools; shared by
// the snapshots grown from one, copied when one adds to it.
type vecNames[K comparable] struct {
	index map[K]int
	names []K
}

func (n vecNames[K]) lookup(k K) (int, bool) {
	i, ok := n.index[k]
	return i, ok
}

// vecSnapshot is one model's vectors as loaded, read-only once built but
// for dead entries (vecidx.Index.MarkDead).
type vecSnapshot struct {
	dims     int
	ix       *vecidx.Index
	meta     []*vecMeta
	projects vecNames[string]
	tools    vecNames[string]
	bigIDs   map[int]int64 // entry → id, for ids of 2³² − 1 and over
	maxID    [4]int64      // the largest id of each type
	inMemory bool          // no file could be written: the records stay in memory
	loadedAt time.Time
	loadTook time.Duration
	gen      uint64
	seq      uint64 // the load's, in the order loads started
}

// newSnapshot is an empty snapshot whose codes are fitted to sample,
// keeping its vectors in memory.
func newSnapshot(dims int, gen uint64, sample [][]float32) *vecSnapshot {
	q := vecidx.NewQuantizer(dims, sample, vecRotationSeed)
	return &vecSnapshot{
		dims: dims, ix: vecidx.New(q, vecidx.NewMemRecords(vecRecordBytes(dims)), false),
		projects: vecNames[string]{index: map[string]int{}}, tools: vecNames[string]{index: map[string]int{}},
		bigIDs:   map[int]int64{},
		loadedAt: time.Now(), gen: gen,
	}
}

// exact reports whether the snapshot's vectors are in memory, scanned
// exactly.
func (v *vecSnapshot) exact() bool {
	_, ok := v.ix.Records().(*vecidx.MemRecords)
	return ok
}

// file is the snapshot's vectors' file, or nil.
func (v *vecSnapshot) file() *vecidx.FileRecords {
	f, _ := v.ix.Records().(*vecidx.FileRecords)
	return f
}

// intern is k's index in n, added (n copied first when shared) if there
// is room below limit; limit when there is not.
func intern[K comparable](n *vecNames[K], k K, limit int, shared *bool) int {
	if i, ok := n.index[k]; ok {
		return i
	}
	if len(n.names) >= limit {
		return limit
	}
	if *shared {
		n.index, n.names, *shared = maps.Clone(n.index), slices.Clone(n.names), false
	}
	n.index[k] = len(n.names)
	n.names = append(n.names, k)
	return len(n.names) - 1
}

// vecRow is a row's vector as read or added, before it joins a snapshot.
type vecRow struct {
	typ     int8
	id      int64
	session int64
	project string
	tool    string
	created time.Time
	rec     []byte // the record: scale and int8 values as stored, the tail (vecRecordBytes)
}

// add appends one entry; dir is where the vectors go to a file once
// there are more than exactRows of them. The snapshot's tools, projects
// and big ids are copied before they change when shared says so (grown:
// another snapshot reads them), and shared is cleared.
func (v *vecSnapshot) add(r vecRow, scratch []float32, dir string, exactRows int, shared *[3]bool) error {
	n := v.ix.Len()
	if mem, ok := v.ix.Records().(*vecidx.MemRecords); ok && n >= exactRows && !v.inMemory {
		v.spill(mem, dir, scratch)
	}
	vec := scratch[:v.dims]
	if v.ix.Coded() {
		scale := math.Float32frombits(binary.LittleEndian.Uint32(r.rec))
		for i := range vec {
			vec[i] = float32(int8(r.rec[4+i])) * scale
		}
	}
	i, err := v.ix.Add(vec, r.rec, scratch[v.dims:])
	if err != nil {
		return err
	}
	k := i % vecidx.ChunkEntries
	if k == 0 {
		v.meta = append(v.meta, &vecMeta{})
	}
	m := v.meta[len(v.meta)-1]
	tool := intern(&v.tools, r.tool, vecManyTools, &shared[0])
	project := intern(&v.projects, r.project, vecManyProjects, &shared[1])
	m.kind[k] = uint8(r.typ)<<6 | uint8(tool)
	m.types[r.typ][k/64].Or(1 << (k % 64))
	v.maxID[r.typ] = max(v.maxID[r.typ], r.id)
	m.project[k] = uint16(project)
	if day := r.created.Unix() / 86400; day > 0 && day < math.MaxUint16 {
		m.created[k] = uint16(day)
	}
	if r.id >= 0 && r.id < vecBigID {
		m.id[k] = uint32(r.id)
		return nil
	}
	m.id[k] = vecBigID
	if shared[2] {
		v.bigIDs, shared[2] = maps.Clone(v.bigIDs), false
	}
	v.bigIDs[i] = r.id
	return nil
}

// spill moves the snapshot's vectors from memory to a file, and gives
// them codes: a file beside the database, else in the temporary
// directory (a data directory one cannot write to); where neither can be
// written, the vectors stay in memory and are scanned exactly.
func (v *vecSnapshot) spill(mem *vecidx.MemRecords, dir string, scratch []float32) {
	for _, d := range []string{dir, os.TempDir()} {
		f, err := vecidx.CreateFileRecords(d, vecRecordBytes(v.dims))
		if err != nil {
			continue
		}
		if err := errors.Join(mem.Each(f.Append), f.Flush()); err != nil {
			f.Release()
			continue
		}
		v.ix.Code(scratch)
		v.ix.MoveRecords(f)
		return
	}
	v.inMemory = true
}

// entry returns entry i's type index and id.
func (v *vecSnapshot) entry(i int) (typ int8, id int64) {
	m, k := v.meta[i/vecidx.ChunkEntries], i%vecidx.ChunkEntries
	return int8(m.kind[k] >> 6), v.id(m, k, i)
}

// id is the id of entry i, k of its metadata chunk m.
func (v *vecSnapshot) id(m *vecMeta, k, i int) int64 {
	if m.id[k] == vecBigID {
		return v.bigIDs[i]
	}
	return int64(m.id[k])
}

// grown is v with the vectors of items (vecs[i] is items[i]'s) added, as
// a new snapshot: v's readers go on reading v's entries (adds write past
// them); under vecIndex.mu. An older entry of the same row is marked
// dead.
func (v *vecSnapshot) grown(items []EmbedItem, vecs [][]float32, dir string, exactRows int) (*vecSnapshot, error) {
	nv := *v
	nv.ix = v.ix.Grown()
	nv.meta = slices.Clip(v.meta) // the last chunk is written past v's entries
	shared := [3]bool{true, true, true}
	type key struct {
		typ int8
		id  int64
	}
	// The rows that may have an entry already: embedded again, or added
	// while a load that read them ran. A new row's id is past the
	// largest its type had.
	again := map[key]bool{}
	scratch := make([]float32, 3*v.dims)
	for i, it := range items {
		t := vecTypeIndex(it.Type)
		if t < 0 || len(vecs[i]) != v.dims {
			continue
		}
		if it.ID <= v.maxID[t] {
			again[key{t, it.ID}] = true
		}
		r := vecRow{typ: t, id: it.ID, session: it.SessionID, project: it.Project, tool: it.Tool, created: it.CreatedAt,
			rec: appendTail(EncodeVector(vecs[i]), it.CreatedAt, it.SessionID)}
		if err := nv.add(r, scratch, dir, exactRows, &shared); err != nil {
			return nil, err
		}
	}
	if len(again) > 0 {
		// One pass over the ids, through a filter of their low 16 bits,
		// a lookup on a match: a millisecond at a million rows.
		var low [1 << 10]uint64
		for k := range again {
			id := uint32(min(k.id, vecBigID))
			low[id>>6&1023] |= 1 << (id & 63)
		}
		for ci, m := range v.meta {
			for k := range min(vecidx.ChunkEntries, v.ix.Len()-ci*vecidx.ChunkEntries) {
				if id := m.id[k]; low[id>>6&1023]>>(id&63)&1 == 1 {
					i := ci*vecidx.ChunkEntries + k
					if typ, id := v.entry(i); again[key{typ, id}] {
						nv.ix.MarkDead(i)
					}
				}
			}
		}
	}
	if err := nv.ix.Records().Flush(); err != nil {
		return nil, err
	}
	return &nv, nil
}

// bytes is the snapshot's memory: codes, metadata and, for a small one,
// its vectors, as allocated (whole chunks).
func (v *vecSnapshot) bytes() int {
	return v.ix.Bytes() + len(v.meta)*vecMetaBytes
}

// vecIndex holds the snapshots of a store, by model and dimensions.
type vecIndex struct {
	mu      sync.Mutex
	gen     uint64 // bumped by vectorsChanged
	seq     uint64 // the last load started
	snaps   map[vecKey]*vecSnapshot
	loading map[vecKey]bool
	// added holds, per model, the vectors added while a snapshot of it
	// loads: the load may have read the table before they committed.
	added      map[string][]addedBatch
	background sync.WaitGroup
	closed     bool
	// exactRows and rescore are vecExactRows and vecRescore, but in
	// tests.
	exactRows, rescore int
	// rescored counts the candidates searches read back, for the
	// benchmarks.
	rescored atomic.Int64
	// stale: the files a process that ended without closing them left
	// beside the database (on Windows) were removed.
	stale sync.Once
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

// vecDir is where the vectors' files go: beside the database.
func (s *Store) vecDir() string { return filepath.Dir(s.path) }

// vecExact is the most rows a snapshot keeps in memory.
func (s *Store) vecExact() int {
	if s.vecs.exactRows != 0 {
		return s.vecs.exactRows
	}
	return vecExactRows
}

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
			nv, err := v.grown(items, vecs, s.vecDir(), s.vecExact())
			if err != nil {
				// The file could not grow (a full disk): load again later.
				ix.gen++
				continue
			}
			ix.replaceLocked(k, nv)
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

// replaceLocked makes nv the snapshot of k (under mu), letting go of the
// file of the one it replaces when it is not nv's.
func (ix *vecIndex) replaceLocked(k vecKey, nv *vecSnapshot) {
	old := ix.snaps[k]
	if ix.snaps == nil {
		ix.snaps = map[vecKey]*vecSnapshot{}
	}
	ix.snaps[k] = nv
	if old != nil && old.file() != nil && old.file() != nv.file() {
		old.file().Release()
	}
}

// reloadVectors loads every loaded index again from the table, now, and
// lets go of the old one's file (closed, its key dropped, once the
// searches reading it are done): after a forget or a retention run
// (Scrub), the vectors of the rows deleted leave the files with the rest
// of them.
func (s *Store) reloadVectors(ctx context.Context) error {
	ix := &s.vecs
	ix.mu.Lock()
	var keys []vecKey
	for k := range ix.snaps {
		keys = append(keys, k)
	}
	gen := ix.gen
	ix.mu.Unlock()
	var errs []error
	for _, k := range keys {
		ix.mu.Lock()
		ix.startLoadLocked(k) // or it loads already: this load is the later
		ix.loading[k] = true  // a search meanwhile answers with the snapshot it has
		ix.mu.Unlock()
		_, err := s.loadInstall(ctx, k, gen)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// installLocked makes nv the snapshot of k (under mu), with what was
// added while it loaded; the batches are dropped once no load of the
// model runs. It returns the snapshot installed, or nil when the store
// was closed meanwhile.
func (s *Store) installLocked(k vecKey, nv *vecSnapshot) (*vecSnapshot, error) {
	ix := &s.vecs
	delete(ix.loading, k)
	still := false
	for l := range ix.loading {
		still = still || l.model == k.model
	}
	batches := ix.added[k.model]
	if !still {
		delete(ix.added, k.model)
	}
	for _, b := range batches {
		g, err := nv.grown(b.items, b.vecs, s.vecDir(), s.vecExact())
		if err != nil {
			if f := nv.file(); f != nil {
				f.Release()
			}
			return nil, err
		}
		nv = g
	}
	if ix.closed {
		if f := nv.file(); f != nil {
			f.Release()
		}
		return nil, errors.New("semantic search: the store is closed")
	}
	if old := ix.snaps[k]; old != nil && old.seq > nv.seq {
		// A load that started later (the scrub's) was installed first:
		// this one may hold rows deleted before it.
		if f := nv.file(); f != nil {
			f.Release()
		}
		return old, nil
	}
	ix.replaceLocked(k, nv)
	return nv, nil
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

// closeVectors lets go of the snapshots' files; a load that ends later
// does not install its snapshot.
func (s *Store) closeVectors() {
	s.waitVectorLoads()
	ix := &s.vecs
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.closed = true
	for k, v := range ix.snaps {
		if f := v.file(); f != nil {
			f.Release()
		}
		delete(ix.snaps, k)
	}
}

// WarmVectors loads the snapshot of model's vectors (of dims values; 0:
// the size of those stored) unless it is loaded or loading, so the first
// search does not pay the load. It returns how many vectors it loaded.
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
	return v.ix.Len(), nil
}

// loadInstall loads k's vectors as of gen and installs them, or, when the
// load fails, ends the load marked by startLoadLocked so the next search
// starts another. The caller marked the load and does not hold ix.mu.
func (s *Store) loadInstall(ctx context.Context, k vecKey, gen uint64) (*vecSnapshot, error) {
	ix := &s.vecs
	ix.mu.Lock()
	ix.seq++
	seq := ix.seq
	ix.mu.Unlock()
	nv, err := s.loadVectors(ctx, k.model, k.dims, gen)
	if nv != nil {
		nv.seq = seq
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err != nil {
		delete(ix.loading, k)
		return nil, err
	}
	return s.installLocked(k, nv)
}

type vecKey struct {
	model string
	dims  int
}

// vectorsChanged tells the in-memory vector index that vectors were
// stored: the next semantic search reloads them in the background.
func (s *Store) vectorsChanged() {
	s.vecs.mu.Lock()
	s.vecs.gen++
	s.vecs.mu.Unlock()
}

// vectorIndexBytes is the memory of the loaded snapshots of model's
// vectors (0 when none is loaded): codes, metadata and the vectors of a
// small one, as allocated.
func (s *Store) vectorIndexBytes(model string) int {
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

// vectorIndexLoading reports whether a load of the vector index is under
// way (the worker's warm-up, a search's own load or a background reload);
// tests ask it through modelstest.VectorIndexLoading.
func (s *Store) vectorIndexLoading() bool {
	s.vecs.mu.Lock()
	defer s.vecs.mu.Unlock()
	return len(s.vecs.loading) > 0
}

// waitVectorLoads waits for the background reloads started so far.
func (s *Store) waitVectorLoads() { s.vecs.background.Wait() }

// vectorSnapshot returns the snapshot of model's vectors of dims values,
// loading it the first time and starting a background reload when it is
// stale, and what the caller calls once done with it (its file is kept
// open until then).
func (s *Store) vectorSnapshot(ctx context.Context, model string, dims int) (*vecSnapshot, func(), error) {
	ix, k := &s.vecs, vecKey{model, dims}
	ix.mu.Lock()
	v, gen := ix.snaps[k], ix.gen
	if v != nil {
		maxAge := vecMaxAgeSQLite
		if s.Postgres() {
			maxAge = vecMaxAgePostgres
		}
		if v.ix.Len() == 0 {
			// Empty when loaded (warmed before anything was embedded; on
			// PostgreSQL another replica may embed since): cheap to load
			// again, and likely stale.
			maxAge = vecRefreshMin
		}
		age := time.Since(v.loadedAt)
		if age >= vecRefreshMin && age >= vecLoadRatio*v.loadTook && (v.gen != gen || age >= maxAge) && ix.startLoadLocked(k) {
			ix.background.Add(1)
			go func() {
				defer ix.background.Done()
				s.loadInstall(context.WithoutCancel(ctx), k, gen) // a failed refresh keeps the old snapshot
			}()
		}
		release := hold(v) // under mu: a reload may let go of v's file as soon as mu is free
		ix.mu.Unlock()
		return v, release, nil
	}
	// Not loaded: this search loads it, unless another load (the warm-up)
	// is under way, which it does not wait for.
	if !ix.startLoadLocked(k) {
		ix.mu.Unlock()
		return nil, nil, ErrVectorsLoading
	}
	ix.mu.Unlock()
	if _, err := s.loadInstall(ctx, k, gen); err != nil {
		return nil, nil, err
	}
	// The snapshot installed now: the one this load made may have been
	// replaced, its file let go of, meanwhile.
	ix.mu.Lock()
	defer ix.mu.Unlock()
	v = ix.snaps[k]
	if v == nil {
		return nil, nil, ErrVectorsLoading
	}
	return v, hold(v), nil
}

// hold keeps v's file open until the function it returns is called;
// under vecIndex.mu, while v's file is held by the index.
func hold(v *vecSnapshot) func() {
	f := v.file()
	if f == nil {
		return func() {}
	}
	f.Acquire()
	return f.Release
}

// markDead records that entry i of v was resolved to no row.
func (s *Store) markDead(v *vecSnapshot, i int) { v.ix.MarkDead(i) }

// loadVectors reads every vector of model of dims values into a snapshot
// (vectors of another size are left out). One goroutine reads the rows,
// another adds them (the codes cost about as much as the driver).
func (s *Store) loadVectors(ctx context.Context, model string, dims int, gen uint64) (v *vecSnapshot, err error) {
	start := time.Now()
	s.vecs.stale.Do(func() { vecidx.RemoveStale(s.vecDir()) })
	batches := make(chan []vecRow, 4)
	done := make(chan struct{})
	var readErr error
	go func() {
		defer close(batches)
		readErr = s.readVectors(ctx, model, dims, batches, done)
	}()
	defer func() {
		close(done)
		for range batches { // the reader stops at its next batch
		}
		if err == nil {
			err = readErr
		}
		if err != nil && v != nil && v.file() != nil {
			v.file().Release()
			v = nil
		}
	}()
	// The first rows are held until there are enough of them to fit the
	// codes to.
	var sample []vecRow
	var shared [3]bool
	scratch := make([]float32, 3*dims)
	fitCodes := func() error {
		vecs := make([][]float32, len(sample))
		for i, r := range sample {
			vecs[i] = decodeRecord(r.rec, dims)
		}
		v = newSnapshot(dims, gen, vecs)
		for _, r := range sample {
			if err := v.add(r, scratch, s.vecDir(), s.vecExact(), &shared); err != nil {
				return err
			}
		}
		return nil
	}
	for batch := range batches {
		for _, r := range batch {
			if v != nil {
				if err := v.add(r, scratch, s.vecDir(), s.vecExact(), &shared); err != nil {
					return v, err
				}
				continue
			}
			r.rec = slices.Clone(r.rec) // the batch's buffer is the reader's again
			if sample = append(sample, r); len(sample) == vecSampleRows {
				if err := fitCodes(); err != nil {
					return v, err
				}
			}
		}
	}
	if v == nil {
		if err := fitCodes(); err != nil {
			return v, err
		}
	}
	if err := v.ix.Records().Flush(); err != nil {
		return v, err
	}
	v.loadedAt, v.loadTook = time.Now(), time.Since(start)
	return v, nil
}

// vecBatch is how many rows loadVectors's reader hands over at a time.
const vecBatch = 512

// readVectors reads the vectors of model of dims values into batches,
// until done is closed. A batch's records live in a buffer the reader
// uses again two batches later.
func (s *Store) readVectors(ctx context.Context, model string, dims int, batches chan<- []vecRow, done <-chan struct{}) error {
	// On SQLite one pass over the table beats a lookup per row through
	// the (model, project) index.
	where := "model = ?"
	if !s.Postgres() {
		where = "+model = ?"
	}
	rows, err := s.searchDB(ctx).Raw("SELECT item_type, item_id, session_id, project, tool_name, created_at, vec FROM embeddings WHERE "+where, model).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	size := vecRecordBytes(dims)
	var bufs [6][]byte // more than the channel holds and the adder has
	var batch []vecRow
	nbuf := 0
	send := func() bool {
		select {
		case batches <- batch:
			batch, nbuf = nil, nbuf+1
			return true
		case <-done:
			return false
		}
	}
	var b sql.RawBytes
	for rows.Next() {
		var r vecRow
		var typ string
		var created any
		if err := rows.Scan(&typ, &r.id, &r.session, &r.project, &r.tool, &created, &b); err != nil {
			return err
		}
		if r.typ = vecTypeIndex(typ); r.typ < 0 {
			continue
		}
		buf := &bufs[nbuf%len(bufs)]
		if batch == nil {
			*buf = (*buf)[:0]
		}
		start := len(*buf)
		if *buf = storedRecord(*buf, b, dims); len(*buf) != start+size-vecTail {
			*buf = (*buf)[:start]
			continue // another size
		}
		r.created = parseStoredTime(created)
		*buf = appendTail(*buf, r.created, r.session)
		r.rec = (*buf)[start : start+size : start+size]
		if batch = append(batch, r); len(batch) == vecBatch && !send() {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(batch) > 0 {
		send()
	}
	return nil
}

// storedRecord is a stored vector of dims values as a record of the index
// (vecidx.RecordBytes: scale and int8 values), appended to dst: quantised
// as stored, or float32 (as first stored) quantised now; dst as it was
// for a vector of another size.
func storedRecord(dst, b []byte, dims int) []byte {
	switch len(b) {
	case 4 + dims:
		return append(dst, b...)
	case 4 * dims:
		f := make([]float32, dims)
		for i := range f {
			f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return append(dst, EncodeVector(f)...)
	}
	return dst
}

// decodeRecord is a record's values as float32.
func decodeRecord(rec []byte, dims int) []float32 {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(rec))
	out := make([]float32, dims)
	for i := range out {
		out[i] = float32(int8(rec[4+i])) * scale
	}
	return out
}
