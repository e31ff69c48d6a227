package models

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"sort"
	"strconv"
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

// kindCol is the SQL of a row's kind: c.kind, or an empty string for a
// table without.
func (t *pgTable) kindCol() string {
	if t.typ == SearchObservation {
		return "c.kind"
	}
	return "''"
}

// toolCol is the SQL of a row's tool: c.tool_name, or an empty string
// for a table without.
func (t *pgTable) toolCol() string {
	if t.hasTool {
		return "c.tool_name"
	}
	return "''"
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
		parts[i] = "left(" + c + ", " + strconv.Itoa(pgSnippetChars) + ")"
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
	tables, err := pgQueries(tree, q)
	if err != nil {
		return nil, queryErr(err, q.Q)
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

// pgQueries are the tables q searches, each with tree written out for
// it. A table whose columns tree filters on it does not have is skipped,
// as FTS5 does; the error is that of the last one skipped when every
// table was.
func pgQueries(tree *searchq.Node, q SearchQuery) ([]pgQuery, error) {
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
		ts, err := pgRender(tree, t.typ)
		if err != nil {
			qerr = err
			continue
		}
		tables = append(tables, pgQuery{t: t, q: ts, phrases: phrases, implied: words, impliedPrefix: prefix})
	}
	if len(tables) == 0 && qerr != nil {
		return nil, qerr
	}
	return tables, nil
}

// pgRender is tree written out for the table of search type typ ("" for
// no tree).
func pgRender(tree *searchq.Node, typ string) (string, error) {
	if tree == nil {
		return "", nil
	}
	return tree.Render(pgColumnWeights[typ])
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
	p := pgProbe{q: q, rankLimit: s.searchOptions().RankLimit, nNewest: nNewest, nRanked: nRanked}
	stmt, args := p.sql(tables)
	rows, err := s.pgQueryPlanned(ctx, stmt, args...)
	if err != nil {
		return nil, nil, false, err
	}
	defer rows.Close()
	res, err := scanProbe(rows, tables)
	if err != nil {
		return nil, nil, false, err
	}
	kept, err := res.kept(tables, q)
	if err != nil {
		return nil, nil, false, err
	}
	return kept, res.out, res.rank, nil
}

// The SQL of a table's query (an argument, normalized by to_tsquery) and
// of the pairs of words of its phrases (an argument, the phrases).
const (
	pgTSQ   = "to_tsquery('english', ?)"
	pgPairs = "mneme_phrase_pairs(?::text[])"
)

// pgProbe builds probeRankPG's statement: a WITH of the statistics
// (pgCommonRowsCTE, pgPairRowsCTE), each table's matches (matchCTE) and
// the gate between ranking and newest first (gateCTE), then a UNION ALL
// of the gate's answer and, per table, its normalized query and its
// candidates (tableRows). Each piece is a named function returning its
// text and the arguments of its ? placeholders, in the order they come:
// the text holds only constants and names from pgTables, never a value.
type pgProbe struct {
	q                           SearchQuery
	rankLimit, nNewest, nRanked int
	// gated is whether the statistics are looked at (the query implies
	// words); common is the condition that they put one of the words in
	// pgCommonFactor × RankLimit rows of a table ("false" when not gated):
	// then no table is counted.
	gated  bool
	common string
}

// sql is the statement and its arguments.
func (p *pgProbe) sql(tables []pgQuery) (string, []any) {
	var with, union sqlList
	p.gated, p.common = len(tables[0].implied) > 0, "false"
	if p.gated {
		with.add(pgCommonRowsCTE(tables))
		p.common = "COALESCE((SELECT max(common_rows) FROM cr), 0) >= " + strconv.Itoa(pgCommonFactor*p.rankLimit)
	}
	if len(tables[0].phrases) > 0 {
		// One look at the pair index's statistics for every table: the
		// phrases are the same in each.
		with.add(pgPairRowsCTE(tables))
	}
	for k, t := range tables {
		with.add(p.matchCTE(k, t))
	}
	with.add(p.gateCTE(len(tables)), nil)
	union.add("SELECT -1, NULL::bigint, NULL::real, NULL::timestamptz, NULL::text, NULL::text, NULL::text, small FROM g", nil)
	for k, t := range tables {
		union.add(p.tableRows(k, t))
	}
	return "WITH " + with.join(", ") + " " + union.join(" UNION ALL "), append(with.args, union.args...)
}

// pgCommonRowsCTE is cr: by the statistics (mneme_common_rows), the most
// rows of any searched table one of the implied words (the same for
// every table) is in.
func pgCommonRowsCTE(tables []pgQuery) (string, []any) {
	rels := make([]string, len(tables))
	for i, t := range tables {
		rels[i] = t.t.content
	}
	return "cr AS MATERIALIZED (SELECT * FROM mneme_common_rows(?::text[], ?::boolean[], ?::text[]))",
		[]any{tables[0].implied, tables[0].impliedPrefix, rels}
}

// pgPairRowsCTE is pr: by the statistics of each table's pair index
// (mneme_phrase_pair_rows), the rows the rarest pair of the phrases is in.
func pgPairRowsCTE(tables []pgQuery) (string, []any) {
	idx := make([]string, len(tables))
	for i, t := range tables {
		idx[i] = t.t.content + "_pairs"
	}
	return "pr AS MATERIALIZED (SELECT * FROM mneme_phrase_pair_rows(?::text[], ?::text[]))", []any{tables[0].phrases, idx}
}

// matchCTE is m<k>: up to RankLimit+1 matches of table k, with what the
// ranking and the filters read.
func (p *pgProbe) matchCTE(k int, t pgQuery) (string, []any) {
	name := "m" + strconv.Itoa(k) + " AS MATERIALIZED "
	if len(t.phrases) == 0 {
		sel, args := p.matchSelect(t, "c.fts @@ "+pgTSQ, []any{t.q})
		return name + "(" + sel + ")", args
	}
	// The rows holding the phrases' pairs of words (the pair index),
	// then the exact match on each: ts_match_vq is @@ that the planner
	// cannot take to the fts index, whose bitmap would bring back the
	// recheck of every row holding the words, and with it mneme_pairs
	// computed again for each. The plain scan instead (a one-time filter
	// picks) when no pair can be formed (stopwords) or when the index's
	// statistics say the rarest pair is in pgPairRows rows or more: its
	// bitmap would cost more than the plain scan, which finds 2,001
	// matches of so common a phrase soon. use holds one placeholder, the
	// phrases.
	use := "(" + pgPairs + " IS NOT NULL AND COALESCE((SELECT pair_rows FROM pr WHERE pairs_index = '" + t.t.content + "_pairs'), 0) < " + strconv.Itoa(pgPairRows) + ")"
	paired, args := p.matchSelect(t, use+" AND mneme_pairs(c.fts) @@ "+pgPairs+" AND ts_match_vq(c.fts, "+pgTSQ+")", []any{t.phrases, t.phrases, t.q})
	plain, plainArgs := p.matchSelect(t, "NOT "+use+" AND c.fts @@ "+pgTSQ, []any{t.phrases, t.q})
	return name + "((" + paired + ") UNION ALL (" + plain + "))", append(args, plainArgs...)
}

// matchSelect selects up to RankLimit+1 rows of t where cond (whose
// placeholders' arguments are condArgs) holds and the query is not one
// that would read every row (querytree T).
//
// ts_rank is taken here, on the row just read, rather than from a
// materialized copy of its tsvector: copying 2,001 tsvectors of about
// 800 bytes into the CTE cost more (11 ms at 1M observations) than
// ranking them (1 ms), and when the table has too many matches to rank,
// that 1 ms is all it wastes.
func (p *pgProbe) matchSelect(t pgQuery, cond string, condArgs []any) (string, []any) {
	cols := "c.id, c.created_at, " + t.t.kindCol() + " AS kind, ts_rank('" + t.t.weights + "', c.fts, " + pgTSQ + ") AS r, c.project, " + t.t.toolCol() + " AS tool_name, c.session_id"
	args := append(append([]any{t.q}, condArgs...), t.q)
	return "SELECT " + cols + " FROM " + t.t.content + " c WHERE " + cond + " AND querytree(" + pgTSQ + ") <> 'T' LIMIT " + strconv.Itoa(p.rankLimit+1), args
}

// gateCTE is g: whether every table may be ranked. CASE counts a table's
// matches only while the tables before it were under the limit, smallest
// first: a word found in too many observations is counted in the
// summaries and prompts first, whose matches then give their newest hits
// (newestRows) without reading them again.
func (p *pgProbe) gateCTE(n int) string {
	var whens []string
	if p.gated {
		whens = append(whens, "WHEN "+p.common+" THEN false")
	}
	for k := n - 1; k >= 0; k-- {
		whens = append(whens, "WHEN (SELECT count(*) FROM m"+strconv.Itoa(k)+") > "+strconv.Itoa(p.rankLimit)+" THEN false")
	}
	return "g AS (SELECT CASE " + strings.Join(whens, " ") + " ELSE true END AS small)"
}

// tableRows are table k's branches of the UNION ALL: its normalized query
// and querytree (the row whose id is NULL), its best nRanked matches when
// the gate says rank (rankedRows), else its newest nNewest (newestRows).
func (p *pgProbe) tableRows(k int, t pgQuery) (string, []any) {
	var rows sqlList
	rows.add("SELECT "+strconv.Itoa(k)+", NULL, NULL, NULL, NULL, "+pgTSQ+"::text, querytree("+pgTSQ+"), NULL", []any{t.q, t.q})
	rows.add(p.rankedRows(k, t))
	rows.add(p.newestRows(k, t))
	return rows.join(" UNION ALL "), rows.args
}

// rankedRows are table k's best nRanked matches within the filters, by
// ts_rank then newest, taken from its counted matches (m<k>).
func (p *pgProbe) rankedRows(k int, t pgQuery) (string, []any) {
	where, args := pgSearchFilters("m", p.q, t.t.hasTool)
	return "(SELECT " + strconv.Itoa(k) + ", m.id, m.r, m.created_at, m.kind, NULL, NULL, NULL FROM m" + strconv.Itoa(k) + " m WHERE (SELECT small FROM g)" + where +
		" ORDER BY m.r DESC, m.id DESC LIMIT " + strconv.Itoa(p.nRanked) + ")", args
}

// newestRows are table k's newest nNewest matches within the filters:
// from its counted matches when they are all of them (the pages of a few
// matches are read once, where going back through the table for its
// newest read a page for each row passed); else back through the table
// by id.
func (p *pgProbe) newestRows(k int, t pgQuery) (string, []any) {
	m, limit := "m"+strconv.Itoa(k), " LIMIT "+strconv.Itoa(p.nNewest)+")"
	counted := "CASE WHEN " + p.common + " THEN false ELSE (SELECT count(*) FROM " + m + ") <= " + strconv.Itoa(p.rankLimit) + " END"
	fm, args := pgSearchFilters("m", p.q, t.t.hasTool)
	fromCounted := "(SELECT " + strconv.Itoa(k) + ", m.id, 0::real, m.created_at, m.kind, NULL, NULL, NULL FROM " + m + " m WHERE NOT (SELECT small FROM g) AND " + counted + fm + " ORDER BY m.id DESC" + limit
	fc, fca := pgSearchFilters("c", p.q, t.t.hasTool)
	fromTable := "(SELECT " + strconv.Itoa(k) + ", c.id, 0::real, c.created_at, " + t.t.kindCol() + ", NULL, NULL, NULL FROM " + t.t.content + " c WHERE NOT (SELECT small FROM g) AND NOT " + counted +
		" AND c.fts @@ " + pgTSQ + " AND querytree(" + pgTSQ + ") <> 'T'" + fc + " ORDER BY c.id DESC" + limit
	return fromCounted + " UNION ALL " + fromTable, append(append(args, t.q, t.q), fca...)
}

// pgProbeRows is what probeRankPG's statement answered: whether the
// tables are ranked, each table's normalized query and querytree, and the
// candidates, each carrying what rerank weighs.
type pgProbeRows struct {
	rank       bool
	norm, tree []string
	out        []ranked
}

// scanProbe reads the rows of probeRankPG's statement: the gate's
// (k < 0), each table's query (no id) and the candidates.
func scanProbe(rows *sql.Rows, tables []pgQuery) (*pgProbeRows, error) {
	res := &pgProbeRows{rank: true, norm: make([]string, len(tables)), tree: make([]string, len(tables))}
	for rows.Next() {
		var k int
		var id *int64
		var r *float32
		var at *time.Time
		var kind, nq, qt *string
		var small *bool
		if err := rows.Scan(&k, &id, &r, &at, &kind, &nq, &qt, &small); err != nil {
			return nil, err
		}
		switch {
		case k < 0:
			res.rank = *small
		case id == nil: // a table's query
			res.norm[k], res.tree[k] = *nq, *qt
		default:
			res.out = append(res.out, ranked{table: searchTableOf(tables[k].t.typ), id: *id, rank: -float64(*r), at: at.UnixNano(),
				feat: &boostFeatures{importance: kindImportance(*kind), at: at.UTC()}})
		}
	}
	return res, rows.Err()
}

// kept is the tables whose query still has a word (to_tsquery drops
// stopwords), each with its normalized query and whether it is large,
// and marks the candidates ranked or not; a query that would read every
// row (querytree T) is refused. It reuses tables' array.
func (res *pgProbeRows) kept(tables []pgQuery, q SearchQuery) ([]pgQuery, error) {
	kept := tables[:0]
	for i, t := range tables {
		if res.tree[i] == "T" {
			return nil, &QueryError{Query: q.Q, Msg: `the query has no word to look for, only words to leave out: put a word that is not a stopword (like "the") before NOT`}
		}
		if res.norm[i] != "" {
			t.q, t.large = res.norm[i], !res.rank
			kept = append(kept, t)
		}
	}
	for i := range res.out {
		res.out[i].ranked = res.rank
		if !res.rank {
			res.out[i].rank = 0
		}
	}
	return kept, nil
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
			b.WriteString("$" + strconv.Itoa(n))
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
	var hits sqlList
	for k, t := range tables {
		if len(pos[t.t.typ]) > 0 {
			hits.add(pgHitsSelect(k, t, pos[t.t.typ]))
		}
	}
	if len(hits.parts) == 0 {
		return []SearchHit{}, nil
	}
	rows, err := s.db.WithContext(ctx).Raw(hits.join(" UNION ALL "), hits.args...).Rows()
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

// pgHitsSelect selects the details and snippets of table k's rows
// whose ids are the keys of pos.
func pgHitsSelect(k int, t pgQuery, pos map[int64]int) (string, []any) {
	ids := make([]int64, 0, len(pos))
	for id := range pos {
		ids = append(ids, id)
	}
	return "(SELECT " + strconv.Itoa(k) + " AS k, c.id, " + t.t.detail + ", ts_headline('english', " + t.t.text + ", ?::tsquery, ?) FROM " + t.t.content + " c WHERE c.id IN ?)",
		[]any{t.q, pgHeadlineOptions, ids}
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
