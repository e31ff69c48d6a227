package models

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/models/internal/rank"
)

// The embeddings' storage: one vector per searchable row (observations,
// prompts, summaries, memories) in the embeddings table, as little-endian float32,
// tagged with the model that made it; a search is an exact cosine scan of
// the vectors within the filters, on both backends.

// EmbedItem is a row to embed: what it is, its stored (redacted) text as
// it is embedded, and what a search filters it by.
type EmbedItem struct {
	Type      string
	ID        int64
	Text      string
	SessionID int64
	Project   string
	Tool      string
	CreatedAt time.Time
}

// Limits of the text embedded per row: a title and the head of a tool
// call, a prompt, a summary's fields.
const (
	embedInputChars  = 500
	embedOutputChars = 1500
	embedTextChars   = 2000
)

// embedSources are the tables embedded, and how their text is read.
// Memories are embedded whatever their state (a memory search filters
// by state); a memory stated outside a session has session 0.
var embedSources = []struct {
	typ, table, cols string
	tool             string // the tool_name column copied, or ''
	// marked tables are looked for rows to embed above a mark
	// (embedding_pending.go). Memories are not: a memory the user edits
	// loses its vector and is embedded again at the next look, and a
	// project holds thousands of them, not millions.
	marked bool
}{
	{SearchObservation, "observations", "c.title, " + sqlPrefix("c.input", embedInputChars) + ", " + sqlPrefix("c.output", embedOutputChars), "c.tool_name", true},
	{SearchPrompt, "prompts", sqlPrefix("c.text", embedTextChars) + ", '', ''", "''", true},
	{SearchSummary, "summaries", "c.request, c.investigated || ' ' || c.learned, c.completed || ' ' || c.next_steps", "''", true},
	{SearchMemory, "memories", "c.text, '', ''", "''", false},
}

// embedTable is the table of the rows of an embedded type ("" for none).
func embedTable(typ string) string {
	for _, e := range embedSources {
		if e.typ == typ {
			return e.table
		}
	}
	return ""
}

// PendingEmbeddings lists up to limit rows that have no vector of model
// (never embedded, embedded by another model, or rewritten since),
// observations first, each table in id order. It looks only above each
// table's mark (embedding_pending.go), so a poll that finds nothing costs
// a few index lookups, not a scan of the database.
func (s *Store) PendingEmbeddings(ctx context.Context, model string, limit int) ([]EmbedItem, error) {
	if err := s.verifyPendingMarks(ctx, model); err != nil {
		return nil, err
	}
	var out []EmbedItem
	db := s.searchDB(ctx)
	for _, src := range embedSources {
		if len(out) >= limit {
			break
		}
		var from, newest int64
		if src.marked {
			from = s.pendingFrom(model, src.table)
			if err := db.Raw("SELECT COALESCE(max(id), 0) FROM " + src.table).Scan(&newest).Error; err != nil {
				return nil, err
			}
		}
		rows, err := db.Raw("SELECT c.id, COALESCE(c.session_id, 0), c.project, "+src.tool+", c.created_at, "+src.cols+" FROM "+src.table+" c WHERE c.id > ? AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.item_type = ? AND e.item_id = c.id AND e.model = ?) ORDER BY c.id LIMIT ?",
			from, src.typ, model, limit-len(out)).Rows()
		if err != nil {
			return nil, err
		}
		var first int64
		for rows.Next() {
			it := EmbedItem{Type: src.typ}
			var a, b, c string
			var created any
			if err := rows.Scan(&it.ID, &it.SessionID, &it.Project, &it.Tool, &created, &a, &b, &c); err != nil {
				rows.Close()
				return nil, err
			}
			if first == 0 {
				first = it.ID
			}
			it.Text, it.CreatedAt = joinText(a, b, c), parseStoredTime(created)
			out = append(out, it)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
		if src.marked {
			s.movePendingMark(model, src.table, from, first, newest)
		}
	}
	s.pendingLooked(model, len(out) > 0)
	return out, nil
}

// joinText joins the non-blank parts of a row's text by newlines.
func joinText(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n")
}

// EmbeddingProgress counts the searchable rows and those with a vector of
// model.
func (s *Store) EmbeddingProgress(ctx context.Context, model string) (done, total int64, err error) {
	db := s.searchDB(ctx)
	for _, src := range embedSources {
		var n int64
		if err := db.Raw("SELECT count(*) FROM " + src.table).Scan(&n).Error; err != nil {
			return 0, 0, err
		}
		total += n
	}
	err = db.Raw("SELECT count(*) FROM embeddings WHERE model = ?", model).Scan(&done).Error
	return done, total, err
}

// SaveEmbeddings stores the vectors of items (vecs[i] is items[i]'s) for
// model, replacing any older one; a row deleted meanwhile gets none.
func (tx *Tx) SaveEmbeddings(model string, items []EmbedItem, vecs [][]float32) error {
	if len(items) != len(vecs) {
		return fmt.Errorf("%w: %d vectors for %d rows", ErrInvalid, len(vecs), len(items))
	}
	for i, it := range items {
		var src = -1
		for k := range embedSources {
			if embedSources[k].typ == it.Type {
				src = k
			}
		}
		if src < 0 {
			return fmt.Errorf("%w: cannot embed a %q", ErrInvalid, it.Type)
		}
		e := embedSources[src]
		err := tx.db.Exec("INSERT INTO embeddings (item_type, item_id, session_id, project, tool_name, created_at, model, vec) SELECT ?, c.id, COALESCE(c.session_id, 0), c.project, "+e.tool+", c.created_at, ?, ? FROM "+e.table+" c WHERE c.id = ? "+
			"ON CONFLICT (item_type, item_id) DO UPDATE SET model = excluded.model, vec = excluded.vec", e.typ, model, EncodeVector(vecs[i]), it.ID).Error
		if err != nil {
			return err
		}
	}
	return nil
}

// EncodeVector is v as stored: quantised to one signed byte per value,
// after the scale (a little-endian float32, the largest magnitude / 127)
// that maps them back. A 384-dim vector takes 388 bytes instead of 1,536,
// which is what a scan reads; recall of the top hits holds (see
// TestQuantisedRecall).
func EncodeVector(v []float32) []byte {
	var m float32
	for _, x := range v {
		m = max(m, x, -x)
	}
	b := make([]byte, 4+len(v))
	scale := m / 127
	binary.LittleEndian.PutUint32(b, math.Float32bits(scale))
	if scale == 0 {
		return b
	}
	for i, x := range v {
		b[4+i] = byte(int8(math.Round(float64(x / scale))))
	}
	return b
}

// dotEncoded is the dot product of q and a stored vector (quantised, or
// float32 as first stored), or ok false when their lengths differ (a
// vector of another model's size).
func dotEncoded(q []float32, b []byte) (float64, bool) {
	switch len(b) {
	case 4 + len(q):
		scale := math.Float32frombits(binary.LittleEndian.Uint32(b))
		b = b[4:]
		var d float32
		for i, x := range q {
			d += x * float32(int8(b[i]))
		}
		return float64(d * scale), true
	case 4 * len(q):
		var d float32
		for i, x := range q {
			d += x * math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return float64(d), true
	}
	return 0, false
}

// scored is a semantic candidate.
type scored struct {
	typ string
	id  int64
	sim float64
	at  int // the entry of an in-memory snapshot
}

// worse orders candidates totally: by similarity, ties by id, then type
// (the newer row of a pair of equals is the better). With a total order
// the best k of a set are one set, however it is scanned (in parts, in
// parallel: scanSnapshot).
func worse(a, b scored) bool {
	if a.sim != b.sim {
		return a.sim < b.sim
	}
	if a.id != b.id {
		return a.id < b.id
	}
	return a.typ < b.typ
}

// minHeap keeps the best k by similarity (the worst on top).
type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// SemanticSearch returns the rows whose vectors of model lie closest to
// vec (a unit vector, as embed.Client returns), by exact cosine
// similarity, within q's filters (project, type, tool, dates, excluded
// session); q.Q is not read. Memories are found only with q.Type
// SearchMemory (as Search, the rows of all types are the others). Hits carry the similarity as Score (and
// -Score as Rank), Ranked true, and the head of their text as Snippet
// (no match to mark). The page is q.Offset…q.Offset+q.Limit plus one more
// hit when there is one, as Search.
func (s *Store) SemanticSearch(ctx context.Context, q SearchQuery, model string, vec []float32) ([]SearchHit, error) {
	if err := q.checkSemanticPage(); err != nil {
		return nil, err
	}
	if len(vec) == 0 {
		return []SearchHit{}, nil
	}
	return s.semanticSearchIndexed(ctx, q, model, vec)
}

// checkSemanticPage is checkPage, with memories a type too.
func (q *SearchQuery) checkSemanticPage() error {
	if q.Type != SearchMemory {
		return q.checkPage()
	}
	p := *q
	p.Type = ""
	err := p.checkPage()
	q.Limit = p.Limit
	return err
}

// semanticScanSQL is SemanticSearch by a scan of the embeddings table, as
// before the in-memory index (the reference its tests compare with).
func (s *Store) semanticScanSQL(ctx context.Context, q SearchQuery, model string, vec []float32) ([]SearchHit, error) {
	if err := q.checkSemanticPage(); err != nil {
		return nil, err
	}
	want := q.Offset + q.Limit + 1
	where, args := []string{"model = ?"}, []any{model}
	if q.Project != "" {
		where, args = append(where, "project = ?"), append(args, q.Project)
	}
	if q.Tool != "" {
		q.Type = SearchObservation
		where, args = append(where, "tool_name = ?"), append(args, q.Tool)
	}
	if q.Type != "" {
		where, args = append(where, "item_type = ?"), append(args, q.Type)
	} else {
		where, args = append(where, "item_type != ?"), append(args, SearchMemory)
	}
	if !q.From.IsZero() {
		where, args = append(where, "created_at >= ?"), append(args, s.timeArg(q.From))
	}
	if !q.To.IsZero() {
		where, args = append(where, "created_at < ?"), append(args, s.timeArg(q.To))
	}
	if q.ExcludeSessionID != 0 {
		where, args = append(where, "session_id != ?"), append(args, q.ExcludeSessionID)
	}
	if q.OnlyIDs != nil {
		if len(q.OnlyIDs) == 0 {
			return []SearchHit{}, nil
		}
		where, args = append(where, "item_id IN ?"), append(args, q.OnlyIDs)
	}
	if !s.Postgres() && len(where) == 1 {
		// Every vector of the model: one pass over the table beats a
		// lookup per row through the (model, project) index.
		where[0] = "+model = ?"
	}
	// On SQLite the scan reads the rowid alone besides the vector (each
	// column costs the driver a call per row); the few best are resolved
	// to their rows after.
	cols, byRowid := "item_type, item_id, vec", !s.Postgres()
	if byRowid {
		cols = "rowid, vec"
	}
	rows, err := s.searchDB(ctx).Raw("SELECT "+cols+" FROM embeddings WHERE "+strings.Join(where, " AND "), args...).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	h := &minHeap{}
	var b sql.RawBytes // the driver's bytes, not a copy per row
	for rows.Next() {
		var c scored
		if byRowid {
			err = rows.Scan(&c.id, &b)
		} else {
			err = rows.Scan(&c.typ, &c.id, &b)
		}
		if err != nil {
			return nil, err
		}
		sim, ok := dotEncoded(vec, b)
		if !ok {
			continue
		}
		c.sim = sim
		if h.Len() < want {
			heap.Push(h, c)
		} else if worse((*h)[0], c) {
			(*h)[0] = c
			heap.Fix(h, 0)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	best := []scored(*h)
	if byRowid {
		if err := s.resolveRowids(ctx, best); err != nil {
			return nil, err
		}
		kept := best[:0]
		for _, c := range best {
			if c.typ != "" { // not deleted since the scan
				kept = append(kept, c)
			}
		}
		best = kept
	}
	sortScored(best)
	if q.Offset >= len(best) {
		return []SearchHit{}, nil
	}
	return s.semanticHits(ctx, best[q.Offset:])
}

// sortScored orders candidates best first (ties: the newer id first).
func sortScored(best []scored) {
	sort.Slice(best, func(i, j int) bool { return worse(best[j], best[i]) })
}

// resolveRowids replaces the embeddings rowids in cands' ids by their
// rows' type and id (SQLite).
func (s *Store) resolveRowids(ctx context.Context, cands []scored) error {
	if len(cands) == 0 {
		return nil
	}
	at := make(map[int64]int, len(cands))
	ids := make([]int64, len(cands))
	for i, c := range cands {
		at[c.id], ids[i] = i, c.id
	}
	rows, err := s.searchDB(ctx).Raw("SELECT rowid, item_type, item_id FROM embeddings WHERE rowid IN ?", ids).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var rowid, id int64
		var typ string
		if err := rows.Scan(&rowid, &typ, &id); err != nil {
			return err
		}
		i := at[rowid]
		cands[i].typ, cands[i].id = typ, id
	}
	return rows.Err()
}

// timeArg is a time as the backend compares created_at.
func (s *Store) timeArg(t time.Time) any {
	if s.Postgres() {
		return t.UTC()
	}
	return timeBound(t)
}

// semanticDetail selects a semantic hit's fields from c (as
// searchTable.detail) and the head of its text as its snippet.
var semanticDetail = map[string]string{
	SearchObservation: "c.title, c.tool_name, c.kind, c.success, c.prompt_number, c.created_at, substr(c.output, 1, 200)",
	SearchPrompt:      "'Prompt #' || c.number, '', '', c.id > 0, c.number, c.created_at, substr(c.text, 1, 200)",
	SearchSummary:     "CASE WHEN c.request != '' THEN c.request ELSE c.kind || ' summary' END, '', c.kind, c.id > 0, c.prompt_number, c.created_at, substr(c.learned, 1, 200)",
	SearchMemory:      "substr(c.text, 1, 160), '', c.kind, c.id > 0, c.prompt_number, c.created_at, substr(c.text, 1, 200)",
}

// semanticHits loads the details of the candidates, keeping their order.
func (s *Store) semanticHits(ctx context.Context, cands []scored) ([]SearchHit, error) {
	out, err := s.semanticRows(ctx, cands)
	if err != nil {
		return nil, err
	}
	return loadedHits(out), nil
}

// semanticRows is semanticHits with a zero hit (Type "") in place of
// each candidate whose row is gone.
func (s *Store) semanticRows(ctx context.Context, cands []scored) ([]SearchHit, error) {
	out := make([]SearchHit, len(cands))
	byType := map[string]map[int64]int{}
	for i, c := range cands {
		if byType[c.typ] == nil {
			byType[c.typ] = map[int64]int{}
		}
		byType[c.typ][c.id] = i
	}
	db := s.searchDB(ctx)
	for typ, pos := range byType {
		ids := make([]int64, 0, len(pos))
		for id := range pos {
			ids = append(ids, id)
		}
		// c.id > 0 is a success that is always true, as a boolean on
		// both backends.
		rows, err := db.Raw("SELECT c.id, COALESCE(c.session_id, 0), c.project, "+semanticDetail[typ]+" FROM "+embedTable(typ)+" c WHERE c.id IN ?", ids).Rows()
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var h SearchHit
			var created any
			if err := rows.Scan(&h.ID, &h.SessionID, &h.Project, &h.Title, &h.ToolName, &h.Kind, &h.Success, &h.PromptNumber, &created, &h.Snippet); err != nil {
				rows.Close()
				return nil, err
			}
			i := pos[h.ID]
			h.Type, h.CreatedAt, h.Ranked = typ, parseStoredTime(created), true
			h.Score, h.Rank = cands[i].sim, -cands[i].sim
			out[i] = h
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FuseRRF merges ranked lists of hits (full-text, semantic) by reciprocal
// rank fusion (rank.Fuse): each hit scores the sum of 1/(60+rank) over the
// lists it is in, best first (ties: the earlier list's order). A hit keeps
// the fields of the first list that has it (a full-text hit its marked
// snippet); its Score becomes the fused score and Rank its negation.
func FuseRRF(lists ...[]SearchHit) []SearchHit {
	keys := make([][]rank.Key, len(lists))
	for l, hits := range lists {
		keys[l] = make([]rank.Key, len(hits))
		for i, h := range hits {
			keys[l][i] = rank.Key{Type: h.Type, ID: h.ID}
		}
	}
	fused := rank.Fuse(keys...)
	out := make([]SearchHit, len(fused))
	for i, f := range fused {
		out[i] = lists[f.List][f.Index]
		out[i].Score, out[i].Rank, out[i].Ranked = f.Score, -f.Score, true
	}
	return out
}
