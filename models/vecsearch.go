package models

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/mneme-dev/mneme/models/internal/vecidx"
)

// vecFilter is a SearchQuery's filters in a snapshot's terms (-1: any).
// The scan keeps every entry that matches and, where its metadata is
// rough (a time to the day, vecManyProjects…), a few that do not: a
// candidate's time and session are checked exactly as it is read
// (accept), and the rest after resolving it (matchesHit).
type vecFilter struct {
	project, tool  int
	typ, skip      int8
	fromDay, toDay uint16             // days since 1970, both inclusive
	from, to       int64              // unix nanoseconds, To exclusive
	dated          bool               // from or to is set
	excludeSession int64              // 0: none
	only           map[int64]struct{} // SearchQuery.OnlyIDs; nil: any
	dims           int
}

// filterOf is sq's filters in v's terms; false when nothing can match
// (a project or tool v has never seen, an unknown type).
func (v *vecSnapshot) filterOf(sq SearchQuery) (vecFilter, bool) {
	f := vecFilter{project: -1, tool: -1, typ: -1, skip: -1, toDay: math.MaxUint16, from: math.MinInt64, to: math.MaxInt64,
		excludeSession: sq.ExcludeSessionID, dims: v.dims}
	if sq.Project != "" {
		i, ok := v.projects.lookup(sq.Project)
		if !ok && len(v.projects.names) < vecManyProjects {
			return vecFilter{}, false
		}
		f.project = i
		if !ok {
			f.project = vecManyProjects
		}
	}
	if sq.Tool != "" {
		i, ok := v.tools.lookup(sq.Tool)
		if !ok && len(v.tools.names) < vecManyTools {
			return vecFilter{}, false
		}
		f.tool = i
		if !ok {
			f.tool = vecManyTools
		}
		sq.Type = SearchObservation
	}
	if sq.Type != "" {
		if f.typ = vecTypeIndex(sq.Type); f.typ < 0 {
			return vecFilter{}, false
		}
	} else {
		// Memories are searched on their own (a memory search), never
		// among the rows of all types.
		f.skip = vecTypeIndex(SearchMemory)
	}
	day := func(t time.Time) uint16 {
		return uint16(min(max(t.Unix()/86400, 0), math.MaxUint16))
	}
	if !sq.From.IsZero() {
		f.from, f.fromDay, f.dated = sq.From.UnixNano(), day(sq.From), true
	}
	if !sq.To.IsZero() {
		// created < To: at most the day of To's last nanosecond.
		f.to, f.toDay, f.dated = sq.To.UnixNano(), day(sq.To.Add(-1)), true
	}
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

// mask sets the bits of the entries base…base+n−1 of v that pass f and
// are not in skip (a vecidx.Filter): one loop over the chunk's metadata,
// the filters' tests in it.
func (f *vecFilter) mask(v *vecSnapshot, skip map[int]bool, base, n int, kept []uint64) {
	m := v.meta[base/vecidx.ChunkEntries]
	if f.tool < 0 && f.project < 0 && !f.dated && f.only == nil {
		// By type alone: a word of entries at a time.
		for w := range kept {
			if f.typ >= 0 {
				kept[w] = m.types[f.typ][w].Load()
			} else {
				t := &m.types
				kept[w] = (t[0][w].Load() | t[1][w].Load() | t[2][w].Load() | t[3][w].Load()) &^ t[f.skip][w].Load()
			}
			// Not the entries past n: a snapshot grown from this one
			// adds them to the same chunk meanwhile.
			if end := n - 64*w; end < 64 {
				kept[w] &= 1<<max(end, 0) - 1
			}
		}
		f.unskip(skip, base, n, kept)
		return
	}
	for k := range n {
		kind := m.kind[k]
		if typ := int8(kind >> 6); typ == f.skip || (f.typ >= 0 && typ != f.typ) {
			continue
		}
		if t := int(kind & vecManyTools); f.tool >= 0 && t != f.tool && t != vecManyTools {
			continue
		}
		if p := int(m.project[k]); f.project >= 0 && p != f.project && p != vecManyProjects {
			continue
		}
		if c := m.created[k]; c != vecDayUnknown && (c < f.fromDay || c > f.toDay) {
			continue
		}
		if f.only != nil {
			if _, ok := f.only[v.id(m, k, base+k)]; !ok {
				continue
			}
		}
		kept[k/64] |= 1 << (k % 64)
	}
	f.unskip(skip, base, n, kept)
}

// accept is the exact check of f's time and session on a candidate's
// record, or nil when f has neither.
func (f *vecFilter) accept() vecidx.Accept {
	if !f.dated && f.excludeSession == 0 {
		return nil
	}
	return func(_ int, rec []byte) bool {
		created, session := recordTail(rec, f.dims)
		return created >= f.from && created < f.to && (f.excludeSession == 0 || session != f.excludeSession)
	}
}

// unskip clears the bits of the entries in skip among base…base+n−1.
func (f *vecFilter) unskip(skip map[int]bool, base, n int, kept []uint64) {
	for i := range skip {
		if k := i - base; k >= 0 && k < n {
			kept[k/64] &^= 1 << (k % 64)
		}
	}
}

// matchesHit reports whether a resolved hit passes q's filters exactly:
// what an index entry's compact values could not tell.
func (q SearchQuery) matchesHit(h SearchHit) bool {
	if q.Project != "" && h.Project != q.Project {
		return false
	}
	if q.Tool != "" && (h.Type != SearchObservation || h.ToolName != q.Tool) {
		return false
	}
	if !q.From.IsZero() && h.CreatedAt.Before(q.From) {
		return false
	}
	if !q.To.IsZero() && !h.CreatedAt.Before(q.To) {
		return false
	}
	return q.ExcludeSessionID == 0 || h.SessionID != q.ExcludeSessionID
}

// vecCandidates is how many candidates a search over the codes rescores
// for a page of want.
func (s *Store) vecCandidates(want int) int {
	if s.vecs.rescore != 0 {
		return s.vecs.rescore
	}
	return max(vecRescore, want*vecRescorePer)
}

// best returns the best want entries of v within f (and not in skip) by
// exact similarity to q: an exact scan of a small snapshot, or the
// rescored candidates of a scan of the codes.
func (v *vecSnapshot) best(q []float32, f vecFilter, skip map[int]bool, want, candidates int, rescored *atomic.Int64) ([]vecidx.Candidate, error) {
	keep := func(base, n int, kept []uint64) { f.mask(v, skip, base, n, kept) }
	accept := f.accept()
	if v.exact() {
		return v.ix.Exact(q, want, keep, accept), nil
	}
	cands := v.ix.Candidates(v.ix.Quantizer().Prepare(q), candidates, vecWide*candidates, keep)
	best, err := v.ix.Rescore(q, cands, want, accept)
	if err != nil {
		return nil, err
	}
	rescored.Add(int64(len(best)))
	return best[:min(len(best), want)], nil
}

// semanticSearchIndexed is SemanticSearch through the vector index: the
// best of the snapshot, resolved to their rows; an entry whose row is
// gone is marked dead and one that the filters' exact check drops is
// left out, and the scan runs again, so a forgotten row is never returned
// and the page stays full.
func (s *Store) semanticSearchIndexed(ctx context.Context, q SearchQuery, model string, vec []float32) ([]SearchHit, error) {
	v, release, err := s.vectorSnapshot(ctx, model, len(vec))
	if err != nil {
		return nil, err
	}
	defer release()
	f, ok := v.filterOf(q)
	if !ok {
		return []SearchHit{}, nil
	}
	want := q.Offset + q.Limit + 1
	candidates := s.vecCandidates(want)
	skip := map[int]bool{}
	for attempt := 0; ; attempt++ {
		top, err := v.best(vec, f, skip, want, candidates, &s.vecs.rescored)
		if err != nil {
			return nil, err
		}
		best := make([]scored, len(top))
		for i, c := range top {
			typ, id := v.entry(int(c.Entry))
			best[i] = scored{typ: vecTypes[typ], id: id, sim: float64(c.Score), at: int(c.Entry)}
		}
		sortScored(best)
		best = uniqueScored(best)
		hits, err := s.semanticRows(ctx, best)
		if err != nil {
			return nil, err
		}
		again := false
		for i, h := range hits {
			switch {
			case h.Type == "":
				s.markDead(v, best[i].at)
				again = true
			case !q.matchesHit(h):
				skip[best[i].at] = true
				hits[i] = SearchHit{}
				again = true
			}
		}
		if !again || attempt == vecResolveAttempts-1 {
			hits = loadedHits(hits)
			if q.Offset >= len(hits) {
				return []SearchHit{}, nil
			}
			return hits[q.Offset:], nil
		}
		candidates *= 2
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
