package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/models/internal/searchq"
)

// Ranking: how Search probes, ranks and pages the hits of each full-text
// table, and loads their details.

// searchTable describes how one FTS5 table is searched.
type searchTable struct {
	typ     string
	fts     string // FTS5 table
	content string // content table
	bm25    string // bm25() call with column weights
	// hasTool tells whether the content table has tool_name.
	hasTool bool
	// detail selects the hit's fields from the content table aliased c,
	// in the order scanned by scan.
	detail string
}

var searchTables = []searchTable{
	{
		typ: SearchObservation, fts: "observations_fts", content: "observations",
		// title, input, output, files
		bm25: "bm25(observations_fts, 4.0, 1.0, 1.0, 2.0)", hasTool: true,
		detail: "c.session_id, c.project, c.title, c.tool_name, c.kind, c.success, c.prompt_number, c.created_at",
	},
	{
		typ: SearchPrompt, fts: "prompts_fts", content: "prompts",
		bm25:   "bm25(prompts_fts)",
		detail: "c.session_id, c.project, 'Prompt #' || c.number, '', '', 1, c.number, c.created_at",
	},
	{
		typ: SearchSummary, fts: "summaries_fts", content: "summaries",
		// request, investigated, learned, completed, next_steps, last_assistant_message
		bm25:   "bm25(summaries_fts, 3.0, 1.0, 2.0, 2.0, 1.0, 0.5)",
		detail: "c.session_id, c.project, CASE WHEN c.request != '' THEN c.request ELSE c.kind || ' summary' END, '', c.kind, 1, c.prompt_number, c.created_at",
	},
}

// ranked is a hit before its details are loaded.
type ranked struct {
	table  *searchTable
	id     int64
	rank   float64
	ranked bool
	at     int64 // created_at in Unix ns, for the newest-first merge
	// feat is what rerank weighs, when the ranking query read it
	// (PostgreSQL); nil has rerank load it.
	feat *boostFeatures
}

// probed is a table to search and whether it has too many matches, or
// too common terms, to rank.
type probed struct {
	t     *searchTable
	large bool
}

// checkPage fills in the default Limit and checks the page and the type,
// the same on both backends.
func (q *SearchQuery) checkPage() error {
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.Offset < 0 || q.Offset+q.Limit > MaxSearchWindow {
		return fmt.Errorf("%w: offset+limit must be at most %d", ErrInvalid, MaxSearchWindow)
	}
	if q.Type != "" && q.Type != SearchPrompt && q.Type != SearchObservation && q.Type != SearchSummary {
		return fmt.Errorf("%w: type must be prompt, observation or summary", ErrInvalid)
	}
	return nil
}

func (s *Store) search(ctx context.Context, q SearchQuery, match string) ([]SearchHit, error) {
	if err := q.checkPage(); err != nil {
		return nil, err
	}
	want := q.Offset + q.Limit + 1
	terms, single := searchq.Terms(match)
	// Once a table is large, no search is ranked, and the others need no
	// probe: FTS5 accepts or refuses a query the same way on every table,
	// but for its column filters (col:), which only some tables have.
	colFilter := strings.Contains(match, ":")
	var tables []probed
	var qerr *QueryError
	anyLarge := false
	for i := range searchTables {
		t := &searchTables[i]
		if q.Type != "" && q.Type != t.typ || q.Tool != "" && !t.hasTool {
			continue
		}
		if anyLarge && !colFilter {
			tables = append(tables, probed{t, true})
			continue
		}
		large, err := s.probeTable(ctx, t, match, terms, single)
		var qe *QueryError
		if errors.As(err, &qe) {
			if qerr == nil {
				qerr = qe
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		tables = append(tables, probed{t, large})
		anyLarge = anyLarge || large
	}
	var all []ranked
	rank := true
pages:
	for {
		if len(tables) == 0 && qerr != nil {
			qerr.Query = q.Q
			return nil, qerr
		}
		rank = true
		for _, p := range tables {
			rank = rank && !p.large
		}
		all = all[:0]
		n := want
		if rank {
			n = s.rerankDepth(want)
		}
		for i, p := range tables {
			hits, err := s.rankTable(ctx, p.t, match, q, n, rank)
			var qe *QueryError
			if errors.As(err, &qe) {
				// Only a table marked large without running the query
				// itself gets here: drop it, and list the others again,
				// ranked if they now all may be.
				if qerr == nil {
					qerr = qe
				}
				tables = append(tables[:i:i], tables[i+1:]...)
				continue pages
			}
			if err != nil {
				return nil, err
			}
			all = append(all, hits...)
		}
		break
	}
	if rank {
		if err := s.rerank(ctx, all); err != nil {
			return nil, err
		}
	} else {
		sort.SliceStable(all, func(i, j int) bool { return all[i].at > all[j].at })
	}
	if q.Offset >= len(all) {
		return []SearchHit{}, nil
	}
	all = all[q.Offset:]
	if len(all) > q.Limit+1 {
		all = all[:q.Limit+1]
	}
	return s.loadHits(ctx, match, all)
}

// probeTable tells whether t's hits for match are too costly to rank:
// more than RankTermRows rows hold one of its terms (terms, an OR of them;
// skipped when the query is single, a term or an OR of terms, whose
// matches are those rows), or more than RankLimit rows match. Each count
// stops at its limit, so a probe costs at most that many steps of the
// index, whatever the size of the table. A query FTS5 refuses on t comes
// back as *QueryError, unless the terms probe already found t large.
func (s *Store) probeTable(ctx context.Context, t *searchTable, match, terms string, single bool) (large bool, err error) {
	count := "SELECT count(*) FROM (SELECT 1 FROM " + t.fts + " WHERE " + t.fts + " MATCH ? LIMIT ?)"
	db := s.db.WithContext(ctx)
	lim := s.searchOptions()
	if !single {
		// An error here is left for the query itself to report: the
		// terms query drops column filters and operators, so it may run
		// where the query cannot, and the other way round.
		if n, err := scanCount(db.Raw(count, terms, lim.RankTermRows)); err == nil && n >= lim.RankTermRows {
			return true, nil
		}
	}
	n, err := scanCount(db.Raw(count, match, lim.RankLimit+1))
	if err != nil {
		return false, ftsError(err, match)
	}
	return n > lim.RankLimit, nil
}

// scanCount reads the one integer a query returns. It goes through Rows:
// GORM's prepared-statement Row() hides a failed prepare (an interrupted
// context) in a sql.Row that panics when scanned.
func scanCount(q *gorm.DB) (int, error) {
	rows, err := q.Rows()
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}

// rankTable returns n matches of one table: the best by bm25 when rank is
// set, else the newest.
func (s *Store) rankTable(ctx context.Context, t *searchTable, match string, q SearchQuery, n int, rank bool) ([]ranked, error) {
	var where []string
	args := []any{match}
	if q.Project != "" {
		where = append(where, "c.project = ?")
		args = append(args, q.Project)
	}
	if q.Tool != "" {
		where = append(where, "c.tool_name = ?")
		args = append(args, q.Tool)
	}
	if !q.From.IsZero() {
		where = append(where, "c.created_at >= ?")
		args = append(args, timeBound(q.From))
	}
	if !q.To.IsZero() {
		where = append(where, "c.created_at < ?")
		args = append(args, timeBound(q.To))
	}
	if q.ExcludeSessionID != 0 {
		where = append(where, "c.session_id != ?")
		args = append(args, q.ExcludeSessionID)
	}
	// The content table is joined only when needed: for a filter (then
	// CROSS JOIN keeps the FTS index as the outer loop, one primary-key
	// lookup per match, rather than letting the planner scan by project),
	// or for created_at in newest-first mode, where rowid order needs no
	// sort and only the rows returned are looked up. Ranking unfiltered
	// never touches the content table: on a large database those lookups
	// are random reads and cost more than bm25 itself.
	score, order, at := t.bm25, "r", "''"
	if !rank {
		score, order, at = "0", t.fts+".rowid DESC", "c.created_at"
	}
	sql := "SELECT " + t.fts + ".rowid, " + score + " AS r, " + at + " FROM " + t.fts
	if len(where) > 0 || !rank {
		sql += " CROSS JOIN " + t.content + " c ON c.id = " + t.fts + ".rowid"
	}
	sql += " WHERE " + t.fts + " MATCH ?"
	for _, w := range where {
		sql += " AND " + w
	}
	sql += " ORDER BY " + order + " LIMIT ?"
	args = append(args, n)
	rows, err := s.db.WithContext(ctx).Raw(sql, args...).Rows()
	if err != nil {
		return nil, ftsError(err, q.Q)
	}
	defer rows.Close()
	var out []ranked
	for rows.Next() {
		r := ranked{table: t, ranked: rank}
		var at any
		if err := rows.Scan(&r.id, &r.rank, &at); err != nil {
			return nil, err
		}
		if !rank {
			r.at = parseStoredTime(at).UnixNano()
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, ftsError(err, q.Q)
	}
	return out, nil
}

// loadHits loads details and snippets for the page, keeping its order:
// per table, the details of its rows in one query by primary key, and their
// snippets in one MATCH over the page's rowid range (snippet() needs the
// row found by the same MATCH). The range is what FTS5 walks; the list
// (+rowid IN …, kept out of the index plan) picks the page's rows in it,
// so snippet() runs for those only. One MATCH per page rather than one per
// row matters for prefix* terms, which FTS5 expands afresh for every
// MATCH, rowid = ? or not.
func (s *Store) loadHits(ctx context.Context, match string, page []ranked) ([]SearchHit, error) {
	out := make([]SearchHit, len(page))
	byTable := map[*searchTable][]int{}
	for i, r := range page {
		byTable[r.table] = append(byTable[r.table], i)
	}
	db := s.db.WithContext(ctx)
	for t, idx := range byTable {
		ids := make([]int64, len(idx))
		pos := map[int64]int{}
		for k, i := range idx {
			ids[k] = page[i].id
			pos[page[i].id] = i
		}
		rows, err := db.Raw("SELECT c.id, "+t.detail+" FROM "+t.content+" c WHERE c.id IN ?", ids).Rows()
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var h SearchHit
			var created any
			if err := rows.Scan(&h.ID, &h.SessionID, &h.Project, &h.Title, &h.ToolName, &h.Kind, &h.Success, &h.PromptNumber, &created); err != nil {
				rows.Close()
				return nil, err
			}
			i := pos[h.ID]
			h.Type, h.Ranked = t.typ, page[i].ranked
			if h.Ranked {
				h.Rank, h.Score = page[i].rank, -page[i].rank
			}
			h.CreatedAt = parseStoredTime(created)
			out[i] = h
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
		lo, hi := slices.Min(ids), slices.Max(ids)
		list := make([]byte, 0, len(ids)*8)
		list = append(list, '[')
		for k, id := range ids {
			if k > 0 {
				list = append(list, ',')
			}
			list = strconv.AppendInt(list, id, 10)
		}
		list = append(list, ']')
		rows, err = db.Raw("SELECT rowid, snippet("+t.fts+", -1, char(2), char(3), '…', 24) FROM "+t.fts+
			" WHERE "+t.fts+" MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (SELECT value FROM json_each(?))",
			match, lo, hi, string(list)).Rows()
		if err != nil {
			return nil, ftsError(err, match)
		}
		for rows.Next() {
			var id int64
			var sn string
			if err := rows.Scan(&id, &sn); err != nil {
				rows.Close()
				return nil, err
			}
			if i, ok := pos[id]; ok {
				out[i].Snippet = sn
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, ftsError(err, match)
		}
	}
	return loadedHits(out), nil
}

// loadedHits drops the zero hits a page's details left: a row deleted
// between the ranking and the loading of its details.
func loadedHits(out []SearchHit) []SearchHit {
	kept := out[:0]
	for _, h := range out {
		if h.Type != "" {
			kept = append(kept, h)
		}
	}
	return kept
}
