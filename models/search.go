package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"
)

// Search types: what a hit is, and what SearchQuery.Type may restrict to.
const (
	SearchPrompt      = "prompt"
	SearchObservation = "observation"
	SearchSummary     = "summary"
)

// Snippet markers. SQLite's snippet() wraps every matched phrase in
// SnippetOpen … SnippetClose. They are ASCII control characters (STX, ETX)
// that never appear in text worth showing, so a page can split a snippet on
// them (SplitSnippet) and render the matches as <mark> while escaping the
// text itself — no HTML ever travels inside a snippet.
const (
	SnippetOpen  = "\x02"
	SnippetClose = "\x03"
)

// SearchLimits bound what one search may cost. Zero fields take the
// defaults; tests set small ones on their store.
type SearchLimits struct {
	// Timeout bounds one search (default 5 s). A query FTS5 cannot
	// answer quickly (a prefix matching thousands of words, a phrase of
	// very common words) is interrupted and answered with a *QueryError
	// asking for a narrower query, rather than holding a connection for
	// minutes.
	Timeout time.Duration
	// RankLimit is how many raw matches a table may have for its hits to
	// be ranked by bm25 (default 2,000). SQLite's bm25() costs about
	// 10 µs per matching row, so ranking a word found in 100,000 rows of
	// 1M takes a second. Past this many matches a table's hits are its
	// newest matches instead (Ranked false): still every hit matches, and
	// for a word that common recency says more than bm25 does.
	RankLimit int
	// RankTermRows is how many rows may hold any of a query's terms for
	// its hits to be ranked (default 20,000). Before scoring a single
	// row, bm25() counts the rows of every term and phrase of the query,
	// a walk of each one's whole posting list (with positions, for a
	// phrase) however few rows match: "broker http", two words each in a
	// tenth of 1M rows, matches 220 rows and costs 100 ms to rank, but
	// 3 ms to list newest first. Past this many rows, hits are newest
	// first (Ranked false) like past RankLimit.
	RankTermRows int
}

// limits are the store's SearchLimits with the defaults filled in.
func (s *Store) limits() SearchLimits {
	l := s.SearchLimits
	if l.Timeout <= 0 {
		l.Timeout = 5 * time.Second
	}
	if l.RankLimit <= 0 {
		l.RankLimit = 2000
	}
	if l.RankTermRows <= 0 {
		l.RankTermRows = 20000
	}
	return l
}

// minPrefix is the shortest word prefix* accepted: shorter ones expand to
// most of the vocabulary.
const minPrefix = 3

// MaxSearchWindow bounds Offset+Limit of one search: deep pages of a ranked
// search cost a full ranking each and are never what a user wants.
const MaxSearchWindow = 5000

// SearchQuery is one full-text search.
type SearchQuery struct {
	// Q is FTS5 query syntax: words (implicit AND), AND/OR/NOT, NEAR(),
	// prefix*, ^initial, "phrases", column filters (title:, input:, output:,
	// files: on observations; text: on prompts; request:, learned:, … on
	// summaries) and parentheses. See NormalizeQuery for the one rewrite
	// applied before it reaches MATCH.
	Q string
	// Project restricts hits to one project ("" for all).
	Project string
	// Type restricts hits to SearchPrompt, SearchObservation or
	// SearchSummary; "" searches all three.
	Type string
	// Tool restricts observation hits to one tool name. A non-empty Tool
	// implies Type SearchObservation (prompts and summaries have no tool).
	Tool string
	// From and To bound created_at: From inclusive, To exclusive; zero
	// values leave that side open.
	From, To time.Time
	// ExcludeSessionID drops hits from one session (0 keeps all); related
	// memory uses it to leave out the session asking.
	ExcludeSessionID int64
	// Offset and Limit page the merged, ranked hits. Limit defaults to 20.
	Offset, Limit int
}

// SearchHit is one result. Rank is SQLite's bm25() — lower is better,
// negative for any real match; Score is -Rank (higher is better), handy for
// display and thresholds. Ranks of the three tables are merged as they are:
// bm25 is comparable enough across them for one result list.
type SearchHit struct {
	Type      string `json:"type"`
	ID        int64  `json:"id"`
	SessionID int64  `json:"sessionId"`
	Project   string `json:"project"`
	// Title is the observation's title, "Prompt #n" for a prompt, or the
	// request (else the kind) of a summary.
	Title string `json:"title"`
	// Snippet is the best-matching fragment, matches wrapped in
	// SnippetOpen/SnippetClose; render it through SplitSnippet.
	Snippet string `json:"snippet"`
	// ToolName, Kind and Success describe observation hits; Kind is also
	// the summary kind (turn, intermediate, final).
	ToolName     string    `json:"toolName,omitempty"`
	Kind         string    `json:"kind,omitempty"`
	Success      bool      `json:"success"`
	PromptNumber int       `json:"promptNumber"`
	CreatedAt    time.Time `json:"createdAt"`
	// Ranked is true when Rank and Score are bm25; false when the search
	// matched too many rows to rank (see Search) and hits are newest first,
	// Rank and Score 0.
	Ranked bool    `json:"ranked"`
	Rank   float64 `json:"rank"`
	Score  float64 `json:"score"`
}

// SnippetPart is a piece of a snippet: plain text or a match.
type SnippetPart struct {
	Text  string `json:"text"`
	Match bool   `json:"match"`
}

// SplitSnippet cuts a snippet made by Search into plain and matched parts.
// Unbalanced or stray markers are dropped, never shown; empty parts are
// omitted. The parts hold text only: escape them when rendering.
func SplitSnippet(s string) []SnippetPart {
	var parts []SnippetPart
	match := false
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			parts = append(parts, SnippetPart{Text: b.String(), Match: match})
			b.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case SnippetOpen[0]:
			if !match {
				flush()
				match = true
			}
		case SnippetClose[0]:
			if match {
				flush()
				match = false
			}
		default:
			b.WriteByte(s[i])
		}
	}
	flush()
	return parts
}

// QueryError is an FTS5 query that SQLite refused, with a message fit for
// the user. It matches ErrInvalid (errors.Is), so handlers answer 400.
type QueryError struct {
	Query string
	Msg   string
}

// Error implements error.
func (e *QueryError) Error() string { return "invalid search query: " + e.Msg }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *QueryError) Is(target error) bool { return target == ErrInvalid }

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
}

// Search runs q over prompts, observations and summaries (as q.Type says)
// and returns the page q.Offset…q.Offset+q.Limit plus one more hit when
// there is one, so callers can tell hasMore (like the other listings).
//
// Each table is first probed, with counts that stop early, whatever the
// size of the table: how many rows hold any of the query's terms, up to
// RankTermRows, and how many rows match, up to RankLimit. When every
// searched table is under both, each yields its best Offset+Limit+1
// matches by bm25, ordered inside SQLite, and the lists are merged by
// rank. Otherwise every table yields its newest matches, walking its index
// newest first and stopping at Offset+Limit+1, and the lists are merged
// newest first (hits have Ranked false). Details and snippets are loaded
// for the returned page only, in one query per table each.
//
// A query FTS5 refuses comes back as *QueryError; a column filter that only
// some tables have (title:) just skips the others.
func (s *Store) Search(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	match, err := NormalizeQuery(q.Q)
	if err != nil {
		return nil, err
	}
	timeout := s.limits().Timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hits, err := s.search(ctx, q, match)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return nil, &QueryError{Query: q.Q, Msg: fmt.Sprintf("the search took longer than %s; make it more specific (longer prefixes, fewer very common words)", timeout)}
	}
	return hits, err
}

// probed is a table to search and whether it has too many matches, or
// too common terms, to rank.
type probed struct {
	t     *searchTable
	large bool
}

func (s *Store) search(ctx context.Context, q SearchQuery, match string) ([]SearchHit, error) {
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.Offset < 0 || q.Offset+q.Limit > MaxSearchWindow {
		return nil, fmt.Errorf("%w: offset+limit must be at most %d", ErrInvalid, MaxSearchWindow)
	}
	if q.Type != "" && q.Type != SearchPrompt && q.Type != SearchObservation && q.Type != SearchSummary {
		return nil, fmt.Errorf("%w: type must be prompt, observation or summary", ErrInvalid)
	}
	want := q.Offset + q.Limit + 1
	terms, single := termsQuery(match)
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
		for i, p := range tables {
			hits, err := s.rankTable(ctx, p.t, match, q, want, rank)
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
		sort.SliceStable(all, func(i, j int) bool { return all[i].rank < all[j].rank })
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

// RelatedSearch finds memory of project that matches ftsQuery (FTS5 syntax,
// e.g. built by AnyTermsQuery), leaving out excludeSessionID, best first.
// Hits carry bm25 in Rank and -bm25 in Score, so callers can apply a
// relevance threshold. At most limit hits are returned.
func (s *Store) RelatedSearch(ctx context.Context, project, ftsQuery string, excludeSessionID int64, limit int) ([]SearchHit, error) {
	if project == "" {
		return nil, fmt.Errorf("%w: related search needs a project", ErrInvalid)
	}
	if limit <= 0 {
		limit = 5
	}
	hits, err := s.Search(ctx, SearchQuery{Q: ftsQuery, Project: project, ExcludeSessionID: excludeSessionID, Limit: limit})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, err
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
	db := s.DB.WithContext(ctx)
	lim := s.limits()
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
	rows, err := s.DB.WithContext(ctx).Raw(sql, args...).Rows()
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
	db := s.DB.WithContext(ctx)
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
	// A row deleted between the queries leaves a zero hit; drop it.
	kept := out[:0]
	for _, h := range out {
		if h.Type != "" {
			kept = append(kept, h)
		}
	}
	return kept, nil
}

// timeBound formats t for comparison with stored created_at values, which
// the driver writes as text in UTC: "2026-11-21 19:35:22.7796+00:00". The
// bound has no fraction and no zone suffix, so it is a prefix of every
// stored value of that second and sorts before them: >= From keeps them,
// < To drops them.
func timeBound(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

// parseStoredTime reads a created_at value as the driver returns it: a
// time.Time for DATETIME columns, else the stored text.
func parseStoredTime(v any) time.Time {
	var s string
	switch v := v.(type) {
	case time.Time:
		return v.UTC()
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// ftsError turns SQLite's complaint about a MATCH expression into a
// *QueryError; other errors pass through unchanged.
func ftsError(err error, q string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if i := strings.Index(msg, "SQL logic error: "); i >= 0 {
		msg = msg[i+len("SQL logic error: "):]
	}
	msg = strings.TrimSuffix(msg, " (1)")
	switch {
	case strings.Contains(msg, "unterminated string"):
		return &QueryError{Query: q, Msg: `a "quoted phrase" is not closed`}
	case strings.Contains(msg, "fts5: syntax error near"):
		near := strings.TrimPrefix(msg[strings.Index(msg, "near")+len("near"):], " ")
		if near == `""` {
			return &QueryError{Query: q, Msg: "the query ends too early (an operator or a parenthesis is missing its other side)"}
		}
		return &QueryError{Query: q, Msg: "syntax error near " + near + ` (operators are AND, OR, NOT and NEAR(); quote words that contain them: "and")`}
	case strings.Contains(msg, "no such column"):
		col := strings.TrimSpace(msg[strings.Index(msg, "no such column")+len("no such column"):])
		col = strings.TrimPrefix(col, ": ")
		return &QueryError{Query: q, Msg: fmt.Sprintf("unknown column %q before ':' (columns: title, input, output, files, text, request, investigated, learned, completed, next_steps)", col)}
	case strings.Contains(msg, "expected integer"):
		return &QueryError{Query: q, Msg: "the distance of NEAR(…, N) must be a whole number, after a comma: NEAR(a b, 5)"}
	case strings.Contains(msg, "unknown special query"):
		return &QueryError{Query: q, Msg: "a query cannot start with '*'; put the * right after a word prefix, like migr*"}
	case strings.Contains(msg, "fts5:"):
		return &QueryError{Query: q, Msg: strings.TrimPrefix(msg[strings.Index(msg, "fts5:"):], "fts5: ")}
	}
	return err
}

// ftsColumns are the column names that may precede ':' in a query.
var ftsColumns = map[string]bool{
	"title": true, "input": true, "output": true, "files": true, "text": true,
	"request": true, "investigated": true, "learned": true, "completed": true,
	"next_steps": true, "last_assistant_message": true,
}

// maxQueryLen bounds the query text handed to FTS5.
const maxQueryLen = 1000

// NormalizeQuery checks q and prepares it for FTS5 MATCH. The user's syntax
// goes through unchanged — AND/OR/NOT, NEAR(), prefix*, ^, "phrases",
// column: filters, parentheses — with one rewrite: a bare word holding
// characters FTS5 refuses outside quotes (foo_test.go, mneme-dev,
// src/app.ts, http://x) is wrapped in quotes, which searches it as the
// phrase of its tokens, as the user meant. A word that starts with '-' is
// refused with a hint (FTS5 has no '-' operator; use NOT).
func NormalizeQuery(q string) (string, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return "", &QueryError{Msg: "enter something to search for"}
	}
	if len(q) > maxQueryLen {
		return "", &QueryError{Query: q, Msg: fmt.Sprintf("the query is longer than %d bytes", maxQueryLen)}
	}
	if !utf8.ValidString(q) {
		return "", &QueryError{Query: q, Msg: "the query is not valid UTF-8"}
	}
	var b strings.Builder
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '"':
			// A quoted phrase: copy up to the closing quote ("" escapes a
			// quote inside); an unclosed one is left for FTS5 to refuse.
			j := i + 1
			for j < len(q) {
				if q[j] == '"' {
					if j+1 < len(q) && q[j+1] == '"' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j < len(q) {
				j++
			}
			b.WriteString(q[i:j])
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ')' || c == '{' || c == '}' || c == ',':
			b.WriteByte(c)
			i++
		default:
			j := i
			for j < len(q) && !strings.ContainsRune(" \t\n\r(){},\"", rune(q[j])) {
				j++
			}
			w, err := normalizeWord(q[i:j], q)
			if err != nil {
				return "", err
			}
			b.WriteString(w)
			i = j
		}
	}
	return b.String(), nil
}

// normalizeWord quotes one bare word of a query when FTS5 would refuse it.
func normalizeWord(w, q string) (string, error) {
	if w == "*" || w == "+" || w == "^" {
		return w, nil
	}
	if strings.HasPrefix(w, "-") && len(w) > 1 {
		return "", &QueryError{Query: q, Msg: fmt.Sprintf("%q: FTS5 has no '-' operator; write NOT %s to exclude it, or quote it", w, strings.TrimLeft(w, "-"))}
	}
	core, prefix := w, ""
	if strings.HasSuffix(core, "*") {
		core, prefix = strings.TrimSuffix(core, "*"), "*"
		if n := utf8.RuneCountInString(strings.TrimLeft(core, "^")); n > 0 && n < minPrefix && !strings.Contains(core, ":") {
			return "", &QueryError{Query: q, Msg: fmt.Sprintf("%q: a prefix search needs at least %d letters before the *", w, minPrefix)}
		}
	}
	caret := ""
	if strings.HasPrefix(core, "^") {
		core, caret = core[1:], "^"
	}
	// col:word keeps its column filter when col is a real column.
	if i := strings.IndexByte(core, ':'); i > 0 && ftsColumns[strings.ToLower(core[:i])] {
		rest, err := normalizeWord(core[i+1:]+prefix, q)
		if err != nil {
			return "", err
		}
		return caret + core[:i+1] + rest, nil
	}
	if core == "" || bareword(core) {
		return w, nil
	}
	return caret + `"` + strings.ReplaceAll(core, `"`, `""`) + `"` + prefix, nil
}

// bareword reports whether FTS5 accepts w unquoted: letters, digits, '_'
// and any non-ASCII character.
func bareword(w string) bool {
	for _, r := range w {
		if r < 0x80 && !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// stopwords are left out of AnyTermsQuery: too common to say anything.
var stopwords = map[string]bool{
	"the": true, "and": true, "for": true, "are": true, "but": true, "not": true, "you": true,
	"all": true, "can": true, "her": true, "was": true, "one": true, "our": true, "out": true,
	"this": true, "that": true, "with": true, "have": true, "from": true, "they": true,
	"will": true, "what": true, "when": true, "make": true, "like": true, "just": true,
	"into": true, "then": true, "than": true, "them": true, "some": true, "could": true,
	"would": true, "should": true, "there": true, "their": true, "about": true, "which": true,
	"please": true, "does": true, "did": true, "how": true, "why": true, "its": true,
	"near": true, "use": true, "get": true, "let": true, "also": true, "any": true,
}

// AnyTermsQuery builds a safe FTS5 query matching any of the meaningful
// words of free text (a prompt): words of at least 3 letters, stopwords and
// duplicates left out, at most maxTerms of them, each quoted, joined by OR.
// It returns "" when text has no such word.
func AnyTermsQuery(text string, maxTerms int) string {
	if maxTerms <= 0 {
		maxTerms = 12
	}
	seen := map[string]bool{}
	var terms []string
	words := strings.FieldsFunc(text, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) })
	for _, w := range words {
		lw := strings.ToLower(w)
		if utf8.RuneCountInString(lw) < 3 || stopwords[lw] || seen[lw] {
			continue
		}
		seen[lw] = true
		terms = append(terms, `"`+lw+`"`)
		if len(terms) == maxTerms {
			break
		}
	}
	return strings.Join(terms, " OR ")
}

// termsQuery returns an FTS5 query matching the rows that hold any term of
// match (a query NormalizeQuery prepared): its words, prefix* words and the
// words of its "phrases", each quoted, joined by OR; operators, column
// filters, ^ and NEAR distances left out. single tells that match is no
// more than that already: one term, or terms joined by OR. Search uses it
// to tell cheaply what ranking would cost (see RankTermRows).
func termsQuery(match string) (terms string, single bool) {
	var list []string
	seen := map[string]bool{}
	add := func(words []string, prefix bool) {
		for k, w := range words {
			term := `"` + w + `"`
			if prefix && k == len(words)-1 {
				term += "*"
			}
			if !seen[term] {
				seen[term] = true
				list = append(list, term)
			}
		}
	}
	single = true
	operand := false // the last thing read was an operand: another one is an implicit AND
	braces := 0      // inside {col1 col2}: column names, not terms
	comma := false   // after the ',' of NEAR(…, N)
	for i := 0; i < len(match); {
		c := match[i]
		switch {
		case c == '"':
			j := i + 1
			var b strings.Builder
			for j < len(match) {
				if match[j] == '"' {
					if j+1 < len(match) && match[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					j++
					break
				}
				b.WriteByte(match[j])
				j++
			}
			prefix := j < len(match) && match[j] == '*'
			if prefix {
				j++
			}
			words := ftsWords(b.String())
			if len(words) != 1 || operand || braces > 0 {
				single = false
			}
			if braces == 0 {
				add(words, prefix)
			}
			operand, comma = true, false
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			if operand {
				single = false
			}
			operand, comma = false, false
			i++
		case c == ')':
			operand, comma = true, false
			i++
		case c == '{' || c == '}':
			single = false
			if c == '{' {
				braces++
			} else if braces > 0 {
				braces--
			}
			operand, comma = false, false
			i++
		case c == ',':
			single, comma = false, true
			i++
		default:
			j := i
			for j < len(match) && !strings.ContainsRune(" \t\n\r(){},\"", rune(match[j])) {
				j++
			}
			w := match[i:j]
			i = j
			afterComma := comma
			comma = false
			switch {
			case braces > 0:
				continue // a column name
			case w == "OR":
				operand = false
				continue
			case w == "AND" || w == "NOT" || w == "NEAR" || strings.HasSuffix(w, ":"):
				single, operand = false, false
				continue
			case afterComma && strings.Trim(w, "0123456789") == "":
				continue // NEAR's distance
			}
			if k := strings.IndexByte(w, ':'); k >= 0 {
				w, single = w[k+1:], false
			}
			if strings.HasPrefix(w, "^") {
				w, single = w[1:], false
			}
			prefix := strings.HasSuffix(w, "*")
			words := ftsWords(strings.TrimSuffix(w, "*"))
			if len(words) != 1 || operand {
				single = false
			}
			add(words, prefix)
			operand = true
		}
	}
	if len(list) == 0 {
		return "", true
	}
	return strings.Join(list, " OR "), single
}

// ftsWords splits text into words as FTS5's unicode61 tokenizer does:
// runs of letters, digits and private-use characters.
func ftsWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Co, r)
	})
}
