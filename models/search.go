package models

import (
	"context"
	"fmt"
	"time"
)

// Search types: what a hit is, and what SearchQuery.Type may restrict to.
const (
	SearchPrompt      = "prompt"
	SearchObservation = "observation"
	SearchSummary     = "summary"
)

// SearchOptions bound what one search may cost. Zero fields take the
// defaults; tests set small ones on their store.
type SearchOptions struct {
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
	// first (Ranked false) like past RankLimit. SQLite only: ts_rank
	// reads the matching rows alone.
	RankTermRows int
}

// searchOptions are the store's SearchOptions with the defaults filled in.
func (s *Store) searchOptions() SearchOptions {
	l := s.SearchOptions
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

// MaxSearchWindow bounds Offset+Limit of one search: deep pages of a ranked
// search cost a full ranking each and are never what a user wants.
const MaxSearchWindow = 5000

// SearchQuery is one full-text search.
type SearchQuery struct {
	// Q is FTS5 query syntax: words (implicit AND), AND/OR/NOT, NEAR(),
	// prefix*, ^initial, "phrases", column filters (title:, input:, output:,
	// files: on observations; text: on prompts; request:, learned:, … on
	// summaries) and parentheses. See searchq.Normalize for the one rewrite
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
	// OnlyIDs, when not nil, keeps only the rows of these ids (of Type):
	// a search by meaning (SemanticSearch) among rows a caller chose, like
	// the memories in force of the kinds kept, which the vector index
	// does not know. Full-text search ignores it.
	OnlyIDs []int64
	// Offset and Limit page the merged, ranked hits. Limit defaults to 20.
	Offset, Limit int
}

// SearchHit is one result. Rank is SQLite's bm25() (PostgreSQL: -ts_rank)
// weighed by the store's SearchRanking (the kind of row, a tool call's
// importance) — lower is better, negative for any real match; Score is
// -Rank (higher is better), handy for display. Ranks of the three tables
// are merged on that one scale.
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
	// Stale and FileStatus are an observation hit's staleness, as on
	// Observation (filled by the read API).
	Stale      *bool             `gorm:"-" json:"stale,omitempty"`
	FileStatus map[string]string `gorm:"-" json:"fileStatus,omitempty"`
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
//
// On PostgreSQL the same syntax is translated to tsquery (NEAR(), ^, +
// and {column groups} are refused as *QueryError) and ranked by ts_rank:
// see searchPG.
func (s *Store) Search(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	match, err := normalizeQuery(q.Q)
	if err != nil {
		return nil, err
	}
	if err := s.FlushSearchIndex(ctx); err != nil {
		return nil, err
	}
	timeout := s.searchOptions().Timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	search := s.search
	if s.Postgres() {
		search = s.searchPG
	}
	hits, err := search(ctx, q, match)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return nil, &QueryError{Query: q.Q, Msg: fmt.Sprintf("the search took longer than %s; make it more specific (longer prefixes, fewer very common words)", timeout)}
	}
	return hits, err
}
