package models

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mneme-dev/mneme/models/internal/searchq"
)

// Search on PostgreSQL: each content table has a stored tsvector column
// fts with a GIN index (migrations_postgres.go), always current, so there
// is no index to flush. A query is parsed once (searchq.Parse) and
// written out per table (Node.Render with its pgColumnWeights), then
// answered in two round trips whatever the number of tables (on a busy
// server a round trip costs more than a GIN lookup): the probe and the
// ranking in one statement (probeRankPG: each table's matches read once,
// counted up to RankLimit unless the planner's statistics already say a
// word of the query is in far more rows (mneme_common), and its best
// Offset+Limit+1 by ts_rank or newest first as on SQLite, with what the
// reranking weighs), and the page's details and ts_headline snippets
// (one UNION ALL).
//
// Rank and Score: a hit's Rank is -ts_rank (lower is better, like bm25)
// and its Score ts_rank. ts_rank has no IDF and lies in 0..1: a word
// found once in a title scores 0.61, once in an output 0.15. Nothing
// outside this package thresholds Search's Score; the related-memory
// lookup, which does, reads RelatedObservations (pgRelatedScale).

// pgColumnWeights maps, per search type, the columns a query may filter on
// to the tsvector weights their text has in migrations_postgres.go. ""
// is every weight: a prompt has one column. Two columns that share a
// weight (learned and completed) cannot be told apart: learned:x also
// finds x in completed.
var pgColumnWeights = map[string]map[string]string{
	SearchObservation: {"title": "A", "files": "B", "input": "C", "output": "D"},
	SearchPrompt:      {"text": ""},
	SearchMemory:      {"text": ""},
	SearchSummary: {"request": "A", "learned": "B", "completed": "B",
		"investigated": "C", "next_steps": "C", "last_assistant_message": "D"},
}

// pgTable is how one content table is searched on PostgreSQL.
type pgTable struct {
	typ     string
	content string
	hasTool bool
	// weights is ts_rank's {D,C,B,A}: SQLite's bm25 column weights
	// divided by 4, the weight of an observation's title, so ranks of the
	// three tables merge on one scale.
	weights string
	// detail selects the hit's fields from c, as searchTable.detail.
	detail string
	// text is the raw text the snippet is cut from: the searched columns,
	// each cut at pgSnippetChars.
	text string
}

// pgSnippetChars bounds each column ts_headline reads: it parses all it is
// given, and a 1 MB tool output would cost more than the search.
const pgSnippetChars = 20000

var pgTables = []pgTable{
	{
		typ: SearchObservation, content: "observations", hasTool: true,
		// title 4, files 2, input 1, output 1
		weights: "{0.25,0.25,0.5,1.0}",
		detail:  "c.session_id, c.project, c.title, c.tool_name, c.kind, c.success, c.prompt_number, c.created_at",
		text:    pgSnippetText("c.title", "c.output", "c.input", "c.files"),
	},
	{
		typ: SearchPrompt, content: "prompts",
		// text 1
		weights: "{0.25,0.25,0.25,0.25}",
		detail:  "c.session_id, c.project, 'Prompt #' || c.number, '', '', true, c.number, c.created_at",
		text:    pgSnippetText("c.text"),
	},
	{
		typ: SearchSummary, content: "summaries",
		// request 3, learned and completed 2, investigated and next_steps
		// 1, last_assistant_message 0.5
		weights: "{0.125,0.25,0.5,0.75}",
		detail:  "c.session_id, c.project, CASE WHEN c.request != '' THEN c.request ELSE c.kind || ' summary' END, '', c.kind, true, c.prompt_number, c.created_at",
		text:    pgSnippetText("c.request", "c.learned", "c.completed", "c.investigated", "c.next_steps", "c.last_assistant_message"),
	},
}

// pgSnippetText joins columns, each cut at pgSnippetChars, by " … ",
// and puts a \x01 on both sides of every run of punctuation: the parser
// of ts_headline then cuts foo_test.go or models/migrations.go into the
// words mneme_words indexed (rather than one file-name token, which no
// query lexeme would match), and the \x01s are removed from the snippet.
func pgSnippetText(cols ...string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = "left(" + c + ", " + fmt.Sprint(pgSnippetChars) + ")"
	}
	return `regexp_replace(` + strings.Join(parts, " || ' … ' || ") + `, '([^[:alnum:][:space:]]+)', chr(1) || '\1' || chr(1), 'g')`
}

// pgHeadlineOptions are ts_headline's: the snippet markers, and about the
// 24 words of SQLite's snippet.
const pgHeadlineOptions = "StartSel=" + SnippetOpen + ", StopSel=" + SnippetClose + ", MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=…"

// pgJoinMarks finds the end of a match and the start of the next with
// only a little punctuation between them: foo_test.go is one match, as
// SQLite marks a phrase, rather than three words.
var pgJoinMarks = regexp.MustCompile(SnippetClose + `([^\p{L}\p{N}\s` + SnippetOpen + SnippetClose + `]{1,3})` + SnippetOpen)

// pgPairRows is how many rows, by the pair index's statistics, the
// rarest pair of a phrase may be in for the pair index to be read: a
// bitmap of 10,000 rows stays exact and costs about 10 ms to build; "go
// command", in 39% of the bench's observations, took 220 ms (166k rows,
// lossy pages whose every row recomputed mneme_pairs) where the plain scan
// found its 2,001 matches in 23 ms.
const pgPairRows = 10000

// pgQuery is a table to search and its query, normalized by to_tsquery.
type pgQuery struct {
	t     *pgTable
	q     string
	large bool
	// phrases are the phrases every match contains (Node.Phrases),
	// looked up first in the table's index of word pairs (mneme_pairs,
	// PostgreSQL migration 9).
	phrases []string
	// implied are the words (and whether each is a prefix) a row holding
	// one of matches (Node.Implied): when the statistics say one is in
	// pgCommonFactor times RankLimit rows, the matches are not counted.
	implied       []string
	impliedPrefix []bool
}

// pgCommonFactor is how many times RankLimit rows one of a query's
// implied words must be in, by the statistics, for a table's matches to
// be taken as too many to rank without counting them. The statistics
// come from a sample of 30,000 rows (a smaller table is read whole), and
// their counts of common lexemes err low, never high (lossy counting): a
// lexeme they put in 4,000 of 1M rows (120 of the sample) is in 2,000
// or fewer only by a chance of 7 standard deviations, or by deletes since
// the last ANALYZE (autovacuum's comes after 10% of a table changed, the
// scrub after a forget runs one); the hits are then the newest matches
// rather than the best ranked: the same matches.
const pgCommonFactor = 2

// pgCommonEvery is how often a search asks for mneme_common to be
// refreshed (mneme_refresh_common: about 0.3 ms when no table was
// analyzed since).
const pgCommonEvery = 30 * time.Second

// searchPG is search on PostgreSQL.
func (s *Store) searchPG(ctx context.Context, q SearchQuery, match string) ([]SearchHit, error) {
	if err := q.checkPage(); err != nil {
		return nil, err
	}
	tree, err := searchq.Parse(match)
	if err != nil {
		return nil, queryErr(err, q.Q)
	}
	var tables []pgQuery
	var qerr error
	// What every match must contain, and the words that imply a match:
	// the same whatever the table.
	phrases := tree.Phrases()
	words, prefix := tree.Implied()
	for i := range pgTables {
		t := &pgTables[i]
		if q.Type != "" && q.Type != t.typ || q.Tool != "" && !t.hasTool {
			continue
		}
		var ts string
		if tree != nil {
			if ts, err = tree.Render(pgColumnWeights[t.typ]); err != nil {
				qerr = err // a column t does not have: skip t, as FTS5 does
				continue
			}
		}
		tables = append(tables, pgQuery{t: t, q: ts, phrases: phrases, implied: words, impliedPrefix: prefix})
	}
	if len(tables) == 0 && qerr != nil {
		return nil, queryErr(qerr, q.Q)
	}
	s.refreshCommon(ctx)
	want := q.Offset + q.Limit + 1
	tables, all, rank, err := s.probeRankPG(ctx, tables, q, want, s.rerankDepth(want))
	if err != nil {
		return nil, err
	}
	if len(tables) == 0 {
		return []SearchHit{}, nil // stopwords only
	}
	// Equal ranks (the same words in the same columns: ts_rank has no
	// IDF) are common: the newest comes first.
	sort.SliceStable(all, func(i, j int) bool {
		if rank && all[i].rank != all[j].rank {
			return all[i].rank < all[j].rank
		}
		return all[i].at > all[j].at
	})
	if rank {
		if err := s.rerank(ctx, all); err != nil {
			return nil, err
		}
	}
	if q.Offset >= len(all) {
		return []SearchHit{}, nil
	}
	all = all[q.Offset:]
	if len(all) > q.Limit+1 {
		all = all[:q.Limit+1]
	}
	return s.loadHitsPG(ctx, tables, all)
}

// refreshCommon has mneme_common copied from the statistics again if a
// searched table was analyzed since (mneme_refresh_common), at most every
// pgCommonEvery: one search in that time pays for it.
func (s *Store) refreshCommon(ctx context.Context) {
	last := s.commonAt.Load()
	now := time.Now().UnixNano()
	if now-last < int64(pgCommonEvery) || !s.commonAt.CompareAndSwap(last, now) {
		return
	}
	// A failure (a read-only transaction, a search cancelled) costs only
	// speed: matches are counted; it is tried again pgCommonEvery later.
	_ = s.db.WithContext(ctx).Exec(`SELECT mneme_refresh_common()`).Error
}

// probeRankPG probes and ranks every table in one statement, one round
// trip (on a busy server each costs more than these GIN lookups), reading
// each table's matches once: per table, up to RankLimit+1 matches are
// materialized (id, the filtered columns, the kind and the tsvector), and
// their count decides, as on SQLite, between ranking and newest first.
// When every table has at most RankLimit matches, the materialized rows
// are all of them, and each table's best nRanked within the filters are
// taken from them by ts_rank (then the newest); else each table's newest
// nNewest within the filters are read through the primary key. Branches
// whose condition is false are not run (one-time filters on the counts).
// A phrase or a column filter, which GIN cannot decide without reading
// the row, is so checked once per row rather than once for the count and
// again for the ranking; and a phrase of rare pairs of words reads only
// the rows holding them, from the pair index (see pgPairRows).
//
// Before any count, the statistics (mneme_common_rows): when one of
// the words that imply a match (Node.Implied) is, by them, in
// pgCommonFactor × RankLimit rows of a table, no table is counted and
// every table lists its newest matches, as the counts would have said:
// a GIN bitmap of every match of a common word or prefix (20,000 to
// 100,000 rows at 1M observations) cost 13 to 75 ms, to learn what the
// statistics knew. The counts go smallest table first, so that when the
// observations have too many matches, those of the prompts and summaries
// are counted already and give their newest hits themselves.
//
// It returns the tables whose query still has a word (to_tsquery drops
// stopwords; a query of stopwords only finds nothing), each with its
// normalized query and whether it is large, and the candidates, each
// carrying what rerank weighs (the kind, the time) so it needs no query of
// its own. A query that would read every row (querytree T: a NOT with
// only stopwords before it) is refused, and its scans are not run.
func (s *Store) probeRankPG(ctx context.Context, tables []pgQuery, q SearchQuery, nNewest, nRanked int) ([]pgQuery, []ranked, bool, error) {
	if len(tables) == 0 {
		return nil, nil, false, nil
	}
	rankLimit := s.searchOptions().RankLimit
	const tsq, pgPairs = "to_tsquery('english', ?)", "mneme_phrase_pairs(?::text[])"
	var with, parts, gate []string
	var args []any
	pairRows := false
	// common: whether the statistics put one of the implied words (the
	// same for every table) in pgCommonFactor × RankLimit rows of a
	// table; then no table is counted.
	common := "false"
	if t := tables[0]; len(t.implied) > 0 {
		var rels []string
		for _, u := range tables {
			rels = append(rels, u.t.content)
		}
		with = append(with, "cr AS MATERIALIZED (SELECT * FROM mneme_common_rows(?::text[], ?::boolean[], ?::text[]))")
		args = append(args, t.implied, t.impliedPrefix, rels)
		common = fmt.Sprintf("COALESCE((SELECT max(common_rows) FROM cr), 0) >= %d", pgCommonFactor*rankLimit)
		gate = append(gate, "WHEN "+common+" THEN false")
	}
	for k, t := range tables {
		tool, kind := "''", "''"
		if t.t.hasTool {
			tool = "c.tool_name"
		}
		if t.t.typ == SearchObservation {
			kind = "c.kind"
		}
		// ts_rank is taken here, on the row just read, rather than from a
		// materialized copy of its tsvector: copying 2,001 tsvectors of
		// about 800 bytes into the CTE cost more (11 ms at 1M
		// observations) than ranking them (1 ms), and when the table has
		// too many matches to rank, that 1 ms is all it wastes.
		cols := fmt.Sprintf("c.id, c.created_at, %s AS kind, ts_rank('%s', c.fts, %s) AS r, c.project, %s AS tool_name, c.session_id", kind, t.t.weights, tsq, tool)
		if len(t.phrases) == 0 {
			with = append(with, fmt.Sprintf("m%d AS MATERIALIZED (SELECT %s FROM %s c WHERE c.fts @@ %s AND querytree(%s) <> 'T' LIMIT %d)",
				k, cols, t.t.content, tsq, tsq, rankLimit+1))
			args = append(args, t.q, t.q, t.q)
		} else {
			// The rows holding the phrases' pairs of words (the pair
			// index), then the exact match on each: ts_match_vq is @@
			// that the planner cannot take to the fts index, whose
			// bitmap would bring back the recheck of every row holding
			// the words, and with it mneme_pairs computed again for each.
			// The plain scan instead (a one-time filter picks) when no
			// pair can be formed (stopwords) or when the index's
			// statistics say the rarest pair is in pgPairRows rows or
			// more: its bitmap would cost more than the plain scan,
			// which finds 2,001 matches of so common a phrase soon.
			if !pairRows {
				// One look at the statistics for every table: the
				// phrases are the same in each.
				pairRows = true
				var idx []string
				for _, u := range tables {
					idx = append(idx, u.t.content+"_pairs")
				}
				with = append(with, "pr AS MATERIALIZED (SELECT * FROM mneme_phrase_pair_rows(?::text[], ?::text[]))")
				args = append(args, t.phrases, idx)
			}
			use := fmt.Sprintf("(%s IS NOT NULL AND COALESCE((SELECT pair_rows FROM pr WHERE pairs_index = '%s_pairs'), 0) < %d)", pgPairs, t.t.content, pgPairRows)
			with = append(with, fmt.Sprintf("m%d AS MATERIALIZED ((SELECT %s FROM %s c WHERE %s AND mneme_pairs(c.fts) @@ %s AND ts_match_vq(c.fts, %s) AND querytree(%s) <> 'T' LIMIT %d) UNION ALL (SELECT %s FROM %s c WHERE NOT %s AND c.fts @@ %s AND querytree(%s) <> 'T' LIMIT %d))",
				k, cols, t.t.content, use, pgPairs, tsq, tsq, rankLimit+1, cols, t.t.content, use, tsq, tsq, rankLimit+1))
			args = append(args, t.q, t.phrases, t.phrases, t.q, t.q, t.q, t.phrases, t.q, t.q)
		}
	}
	// Whether every table may be ranked. CASE counts a table's matches
	// only while the tables before it were under the limit, smallest
	// first: a word found in too many observations is counted in the
	// summaries and prompts first, whose matches then give their newest
	// hits (below) without reading them again.
	for k := len(tables) - 1; k >= 0; k-- {
		gate = append(gate, fmt.Sprintf("WHEN (SELECT count(*) FROM m%d) > %d THEN false", k, rankLimit))
	}
	with = append(with, "g AS (SELECT CASE "+strings.Join(gate, " ")+" ELSE true END AS small)")
	parts = append(parts, "SELECT -1, NULL::bigint, NULL::real, NULL::timestamptz, NULL::text, NULL::text, NULL::text, small FROM g")
	for k, t := range tables {
		parts = append(parts, fmt.Sprintf("SELECT %d, NULL, NULL, NULL, NULL, %s::text, querytree(%s), NULL", k, tsq, tsq))
		args = append(args, t.q, t.q)
		fm, fa := pgSearchFilters("m", q, t.t.hasTool)
		parts = append(parts, fmt.Sprintf("(SELECT %d, m.id, m.r, m.created_at, m.kind, NULL, NULL, NULL FROM m%d m WHERE (SELECT small FROM g)%s ORDER BY m.r DESC, m.id DESC LIMIT %d)",
			k, k, fm, nRanked))
		args = append(args, fa...)
		kind := "''"
		if t.t.typ == SearchObservation {
			kind = "c.kind"
		}
		// Newest first: from the table's counted matches when they are
		// all of them (the pages of a few matches are read once, where
		// going back through the table for its newest read a page for
		// each row passed); else back through the table by id.
		counted := fmt.Sprintf("CASE WHEN %s THEN false ELSE (SELECT count(*) FROM m%d) <= %d END", common, k, rankLimit)
		parts = append(parts, fmt.Sprintf("(SELECT %d, m.id, 0::real, m.created_at, m.kind, NULL, NULL, NULL FROM m%d m WHERE NOT (SELECT small FROM g) AND %s%s ORDER BY m.id DESC LIMIT %d)",
			k, k, counted, fm, nNewest))
		args = append(args, fa...)
		fc, fca := pgSearchFilters("c", q, t.t.hasTool)
		parts = append(parts, fmt.Sprintf("(SELECT %d, c.id, 0::real, c.created_at, %s, NULL, NULL, NULL FROM %s c WHERE NOT (SELECT small FROM g) AND NOT %s AND c.fts @@ %s AND querytree(%s) <> 'T'%s ORDER BY c.id DESC LIMIT %d)",
			k, kind, t.t.content, counted, tsq, tsq, fc, nNewest))
		args = append(append(args, t.q, t.q), fca...)
	}
	stmt := "WITH " + strings.Join(with, ", ") + " " + strings.Join(parts, " UNION ALL ")
	rows, err := s.pgQueryPlanned(ctx, stmt, args...)
	if err != nil {
		return nil, nil, false, err
	}
	defer rows.Close()
	norm, tree := make([]string, len(tables)), make([]string, len(tables))
	rank := true
	var out []ranked
	for rows.Next() {
		var k int
		var id *int64
		var r *float32
		var at *time.Time
		var kind, nq, qt *string
		var small *bool
		if err := rows.Scan(&k, &id, &r, &at, &kind, &nq, &qt, &small); err != nil {
			return nil, nil, false, err
		}
		switch {
		case k < 0:
			rank = *small
		case id == nil: // a table's query
			norm[k], tree[k] = *nq, *qt
		default:
			out = append(out, ranked{table: searchTableOf(tables[k].t.typ), id: *id, rank: -float64(*r), at: at.UnixNano(),
				feat: &boostFeatures{importance: kindImportance(*kind), at: at.UTC()}})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, false, err
	}
	kept := tables[:0]
	for i, t := range tables {
		if tree[i] == "T" {
			return nil, nil, false, &QueryError{Query: q.Q, Msg: `the query has no word to look for, only words to leave out: put a word that is not a stopword (like "the") before NOT`}
		}
		if norm[i] != "" {
			t.q, t.large = norm[i], !rank
			kept = append(kept, t)
		}
	}
	for i := range out {
		out[i].ranked = rank
		if !rank {
			out[i].rank = 0
		}
	}
	return kept, out, rank, nil
}

// pgQueryPlanned runs query (? placeholders, none inside its string
// literals) as an unnamed statement, planned for its arguments every time.
// Through a prepared statement (pgx's default) PostgreSQL switches to a
// generic plan after five runs, blind to the tsquery: it estimates every
// word alike, and for the search statement chose plans that read 10 to 20
// times more rows than a plan made for the word (EXPLAIN EXECUTE at 100k
// observations: 110-130 ms custom, 570-2,100 ms generic).
func (s *Store) pgQueryPlanned(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	var b strings.Builder
	n := 0
	for _, part := range strings.Split(query, "?") {
		if n > 0 {
			fmt.Fprintf(&b, "$%d", n)
		}
		b.WriteString(part)
		n++
	}
	if n-1 != len(args) {
		return nil, fmt.Errorf("search statement: %d placeholders for %d arguments", n-1, len(args))
	}
	return s.db.WithContext(ctx).ConnPool.QueryContext(ctx, b.String(), append([]any{pgx.QueryExecModeExec}, args...)...)
}

// pgSearchFilters is the WHERE clause (each condition after AND) of q's
// filters on the rows aliased a, and its arguments.
func pgSearchFilters(a string, q SearchQuery, hasTool bool) (string, []any) {
	var where string
	var args []any
	if q.Project != "" {
		where += " AND " + a + ".project = ?"
		args = append(args, q.Project)
	}
	if q.Tool != "" && hasTool {
		where += " AND " + a + ".tool_name = ?"
		args = append(args, q.Tool)
	}
	if !q.From.IsZero() {
		where += " AND " + a + ".created_at >= ?"
		args = append(args, q.From.UTC())
	}
	if !q.To.IsZero() {
		where += " AND " + a + ".created_at < ?"
		args = append(args, q.To.UTC())
	}
	if q.ExcludeSessionID != 0 {
		where += " AND " + a + ".session_id != ?"
		args = append(args, q.ExcludeSessionID)
	}
	return where, args
}

// searchTableOf is the SQLite searchTable of a search type: ranked hits
// point at it, so both backends share the ranked type.
func searchTableOf(typ string) *searchTable {
	for i := range searchTables {
		if searchTables[i].typ == typ {
			return &searchTables[i]
		}
	}
	return nil
}

// loadHitsPG loads details and snippets for the page, keeping its order,
// in one query: per table, its rows by primary key, with ts_headline on
// their raw text.
func (s *Store) loadHitsPG(ctx context.Context, tables []pgQuery, page []ranked) ([]SearchHit, error) {
	out := make([]SearchHit, len(page))
	pos := map[string]map[int64]int{}
	for i, r := range page {
		if pos[r.table.typ] == nil {
			pos[r.table.typ] = map[int64]int{}
		}
		pos[r.table.typ][r.id] = i
	}
	var parts []string
	var args []any
	for k, t := range tables {
		if len(pos[t.t.typ]) == 0 {
			continue
		}
		ids := make([]int64, 0, len(pos[t.t.typ]))
		for id := range pos[t.t.typ] {
			ids = append(ids, id)
		}
		parts = append(parts, fmt.Sprintf("(SELECT %d AS k, c.id, %s, ts_headline('english', %s, ?::tsquery, ?) FROM %s c WHERE c.id IN ?)", k, t.t.detail, t.t.text, t.t.content))
		args = append(args, t.q, pgHeadlineOptions, ids)
	}
	if len(parts) == 0 {
		return []SearchHit{}, nil
	}
	rows, err := s.db.WithContext(ctx).Raw(strings.Join(parts, " UNION ALL "), args...).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k int
		var h SearchHit
		if err := rows.Scan(&k, &h.ID, &h.SessionID, &h.Project, &h.Title, &h.ToolName, &h.Kind, &h.Success, &h.PromptNumber, &h.CreatedAt, &h.Snippet); err != nil {
			return nil, err
		}
		h.Type = tables[k].t.typ
		i := pos[h.Type][h.ID]
		h.Ranked, h.CreatedAt = page[i].ranked, h.CreatedAt.UTC()
		h.Snippet = pgJoinMarks.ReplaceAllString(strings.ReplaceAll(h.Snippet, "\x01", ""), "$1")
		if h.Ranked {
			h.Rank, h.Score = page[i].rank, -page[i].rank
		}
		out[i] = h
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return loadedHits(out), nil
}

// pgTSQuery translates an FTS5 query (as recall builds them: quoted
// keywords joined by OR, a file name as a phrase) into a to_tsquery
// string for the table of search type typ; "" when it has no word.
func pgTSQuery(match, typ string) (string, error) {
	tree, err := searchq.Parse(match)
	if err != nil || tree == nil {
		return "", queryErr(err, match)
	}
	ts, err := tree.Render(pgColumnWeights[typ])
	return ts, queryErr(err, match)
}

// pgRelatedScale puts RelatedObservations' ts_rank on bm25's scale, which
// recall's Relevance (bm25Half = 8) and the user's RelatedThreshold were
// tuned on. ts_rank of an OR query is the mean of its terms' ranks, bm25
// their sum, so the rank is first multiplied by the number of terms
// ((numnode+1)/2 lexemes in a tree of binary operators); then one title
// match, 0.61 with title weight 1, times 16 is 9.7: SQLite's bm25 of one
// rare word in a title is 5 to 15 on a 100k-row table. The columns keep
// bm25's ratios (title 4, files 2, input 1, output 0.5 → 1, 0.5, 0.25,
// 0.125), so an output match scores an eighth of a title match on both.
// ts_rank has no IDF: the related-memory lookup only queries words found
// in at most 1,000 observations (recall's maxDocFreq) anyway.
const pgRelatedScale = 16

// relatedObservationsPG is RelatedObservations on PostgreSQL.
func (s *Store) relatedObservationsPG(ctx context.Context, match, project string, exclude int64, recent, limit int) ([]RelatedCandidate, error) {
	ts, err := pgTSQuery(match, SearchObservation)
	if err != nil || ts == "" {
		return nil, err
	}
	var rows []RelatedCandidate
	err = s.db.WithContext(ctx).Raw(`SELECT id, title, files, input, created_at, score FROM (
			SELECT o.id, o.title, o.files, substr(o.input, 1, 300) AS input, o.created_at,
				ts_rank('{0.125,0.25,0.5,1.0}', o.fts, q.q) * (numnode(q.q) + 1) / 2 * ? AS score
			FROM (SELECT to_tsquery('english', ?) AS q) q, observations o
			WHERE o.fts @@ q.q AND o.project = ? AND o.session_id != ? AND o.excluded_by = ''
			ORDER BY o.id DESC LIMIT ?) r
		ORDER BY score DESC, id DESC LIMIT ?`, pgRelatedScale, ts, project, exclude, recent, limit).Scan(&rows).Error
	return rows, err
}

// countObservationMatchesPG is CountObservationMatches on PostgreSQL.
func (s *Store) countObservationMatchesPG(ctx context.Context, match string, limit int) (int, error) {
	ts, err := pgTSQuery(match, SearchObservation)
	if err != nil || ts == "" {
		return 0, err
	}
	var n int
	err = s.db.WithContext(ctx).Raw(`SELECT count(*) FROM (SELECT 1 FROM observations WHERE fts @@ to_tsquery('english', ?) LIMIT ?) m`,
		ts, limit).Row().Scan(&n)
	return n, err
}

// summariesMentioningPG is SummariesMentioning on PostgreSQL.
func (s *Store) summariesMentioningPG(ctx context.Context, project, match string, exclude int64, limit int) ([]SummaryMention, error) {
	ts, err := pgTSQuery(match, SearchSummary)
	if err != nil || ts == "" {
		return nil, err
	}
	var out []SummaryMention
	err = s.db.WithContext(ctx).Raw(`SELECT m.id, m.session_id, m.learned, m.completed, m.next_steps, m.created_at
		FROM summaries m WHERE m.fts @@ to_tsquery('english', ?) AND m.project = ? AND m.session_id != ?
		ORDER BY m.id DESC LIMIT ?`, ts, project, exclude, limit).Scan(&out).Error
	return out, err
}
