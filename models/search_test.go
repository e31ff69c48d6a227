package models

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// openPGTestStore opens a store on a fresh database of the throwaway
// PostgreSQL (skipping the test where none can be started), whichever
// backend the matrix runs on: for the PostgreSQL-only search tests
// (skipped on make test's SQLite leg: pgtest.PostgresOnly).
func openPGTestStore(t testing.TB) *Store {
	t.Helper()
	pgtest.PostgresOnly(t)
	s, err := OpenURL(pgtest.URL(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// forEachBackend runs fn on a freshly seeded searchFixture of the
// matrix's backend (openTestStore): the same body runs on SQLite in the
// default run and on PostgreSQL with MNEME_TEST_BACKEND=postgres.
func forEachBackend(t *testing.T, fn func(t *testing.T, f *searchFixture)) {
	t.Run(pgtest.Backend(), func(t *testing.T) { fn(t, seedSearchOn(t, openTestStore(t))) })
}

// searchFixture is a small corpus over two projects and two sessions.
type searchFixture struct {
	s        *Store
	pg       bool  // the store is on PostgreSQL
	sessA    int64 // project alpha
	sessB    int64 // project beta
	obs      map[string]int64
	prompts  map[string]int64
	summary  int64
	baseTime time.Time
}

func seedSearch(t *testing.T) *searchFixture {
	t.Helper()
	return seedSearchOn(t, openTestStore(t))
}

// seedSearchOn seeds the corpus into s through the store's write API.
func seedSearchOn(t *testing.T, s *Store) *searchFixture {
	t.Helper()
	f := &searchFixture{s: s, pg: s.Postgres(), obs: map[string]int64{}, prompts: map[string]int64{}}
	f.baseTime = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	err := f.s.Writer.Do(ctx, func(tx *Tx) error {
		a, err := tx.EnsureSession(&Session{ClaudeSessionID: "sess-a", Project: "alpha", StartedAt: f.baseTime})
		if err != nil {
			return err
		}
		b, err := tx.EnsureSession(&Session{ClaudeSessionID: "sess-b", Project: "beta", StartedAt: f.baseTime})
		if err != nil {
			return err
		}
		f.sessA, f.sessB = a.ID, b.ID
		for i, p := range []struct {
			key, project, text string
			sess               int64
		}{
			{"migrate", "alpha", "please migrate the database schema to version 4", a.ID},
			{"xss", "alpha", "why does <script>alert(1)</script> show up", a.ID},
			{"beta", "beta", "fix the flaky websocket reconnect", b.ID},
		} {
			res, err := tx.RecordPrompt(p.sess, p.project, "", p.text, false, f.baseTime.Add(time.Duration(i)*time.Minute))
			if err != nil {
				return err
			}
			f.prompts[p.key] = res.PromptID
		}
		for i, o := range []struct {
			key, project, tool, kind, title, output string
			files                                   []string
			success                                 bool
			sess                                    int64
			day                                     int
		}{
			{"gotest", "alpha", "Bash", KindTest, "Ran `go test ./...`: 2 failed", "--- FAIL: TestMigrate (0.01s)\nmigrations_test.go:42: schema version 3, want 4", nil, false, a.ID, 0},
			{"edit", "alpha", "Edit", KindFileChange, "Edited models/migrations.go", "ok", []string{"models/migrations.go"}, true, a.ID, 1},
			{"read", "alpha", "Read", KindRead, "Read foo_test.go", "package foo", []string{"foo_test.go"}, true, a.ID, 2},
			{"ws", "beta", "Bash", KindBash, "Ran `npm test`", "websocket reconnect timeout after 5000ms", nil, true, b.ID, 3},
			{"grep", "beta", "Grep", KindSearch, "Searched for reconnect", "src/ws.ts:10: reconnect()", []string{"src/ws.ts"}, true, b.ID, 4},
		} {
			obs := &Observation{SessionID: o.sess, Project: o.project, ToolName: o.tool, Kind: o.kind, Title: o.title,
				Input: `{"command":"x"}`, Output: o.output, Files: o.files, Success: o.success, Importance: 0.5,
				CreatedAt: f.baseTime.AddDate(0, 0, o.day).Add(time.Duration(i) * time.Second)}
			if _, err := tx.InsertObservation(obs); err != nil {
				return err
			}
			f.obs[o.key] = obs.ID
		}
		sum := &Summary{SessionID: a.ID, Project: "alpha", Kind: SummaryFinal, Request: "Migrate the schema",
			Learned: "SQLite migrations must be append-only", Completed: "schema version 4", CreatedAt: f.baseTime.AddDate(0, 0, 5)}
		if err := tx.db.Create(sum).Error; err != nil {
			return err
		}
		f.summary = sum.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// keys names the hits as "type:key" for readable comparisons.
func (f *searchFixture) keys(hits []SearchHit) []string {
	names := map[string]string{}
	for k, id := range f.obs {
		names[SearchObservation+":"+itoa(id)] = "o:" + k
	}
	for k, id := range f.prompts {
		names[SearchPrompt+":"+itoa(id)] = "p:" + k
	}
	names[SearchSummary+":"+itoa(f.summary)] = "s:final"
	var out []string
	for _, h := range hits {
		n, ok := names[h.Type+":"+itoa(h.ID)]
		if !ok {
			n = h.Type + ":" + itoa(h.ID)
		}
		out = append(out, n)
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestSearchSyntax(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testSearchSyntax)
}

func testSearchSyntax(t *testing.T, f *searchFixture) {
	tests := []struct {
		name string
		q    SearchQuery
		want []string // sorted keys
		// pgErr is what PostgreSQL answers instead, when it refuses q.
		pgErr string
	}{
		{"word", SearchQuery{Q: "websocket"}, []string{"o:ws", "p:beta"}, ""},
		{"implicit AND", SearchQuery{Q: "schema version"}, []string{"o:gotest", "p:migrate", "s:final"}, ""},
		{"OR", SearchQuery{Q: "websocket OR TestMigrate"}, []string{"o:gotest", "o:ws", "p:beta"}, ""},
		{"NOT", SearchQuery{Q: "reconnect NOT websocket"}, []string{"o:grep"}, ""},
		{"prefix", SearchQuery{Q: "migrat*"}, []string{"o:edit", "o:gotest", "p:migrate", "s:final"}, ""},
		{"phrase", SearchQuery{Q: `"schema version 4"`}, []string{"s:final"}, ""},
		{"phrase across words", SearchQuery{Q: `"database schema"`}, []string{"p:migrate"}, ""},
		{"column filter skips tables without it", SearchQuery{Q: "title:reconnect"}, []string{"o:grep"}, ""},
		{"file name needs no quotes", SearchQuery{Q: "foo_test.go"}, []string{"o:read"}, ""},
		{"path with slash", SearchQuery{Q: "src/ws.ts"}, []string{"o:grep"}, ""},
		{"parentheses", SearchQuery{Q: "(websocket OR migrations) AND timeout"}, []string{"o:ws"}, ""},
		{"NEAR", SearchQuery{Q: "NEAR(websocket timeout, 2)"}, []string{"o:ws"}, "NEAR() is not supported"},
		{"column filter on a phrase", SearchQuery{Q: `output:"schema version"`}, []string{"o:gotest"}, ""},
		{"column filter on a group", SearchQuery{Q: "title:(reconnect OR migrations)"}, []string{"o:edit", "o:grep"}, ""},
		{"prompt column", SearchQuery{Q: "text:websocket"}, []string{"p:beta"}, ""},
		{"summary column", SearchQuery{Q: "learned:append"}, []string{"s:final"}, ""},
		{"phrase prefix", SearchQuery{Q: `"schema vers"*`}, []string{"o:gotest", "s:final"}, ""},
		{"NOT binds tighter than OR", SearchQuery{Q: "timeout OR reconnect NOT websocket"}, []string{"o:grep", "o:ws"}, ""},
		{"no match", SearchQuery{Q: "kubernetes"}, nil, ""},
		{"project", SearchQuery{Q: "reconnect", Project: "alpha"}, nil, ""},
		{"project beta", SearchQuery{Q: "reconnect", Project: "beta"}, []string{"o:grep", "o:ws", "p:beta"}, ""},
		{"type prompt", SearchQuery{Q: "schema", Type: SearchPrompt}, []string{"p:migrate"}, ""},
		{"type summary", SearchQuery{Q: "schema", Type: SearchSummary}, []string{"s:final"}, ""},
		{"tool implies observations", SearchQuery{Q: "reconnect", Tool: "Grep"}, []string{"o:grep"}, ""},
		{"from", SearchQuery{Q: "reconnect OR migrations", From: f.baseTime.AddDate(0, 0, 4)}, []string{"o:grep", "s:final"}, ""},
		{"to", SearchQuery{Q: "reconnect OR migrations", To: f.baseTime.AddDate(0, 0, 3)}, []string{"o:edit", "o:gotest", "p:beta", "p:migrate"}, ""},
		{"exclude session", SearchQuery{Q: "schema OR reconnect", ExcludeSessionID: 1}, []string{"o:grep", "o:ws", "p:beta"}, ""},
		{"script text is searchable", SearchQuery{Q: "script"}, []string{"p:xss"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := f.s.Search(context.Background(), tt.q)
			if f.pg && tt.pgErr != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.pgErr) {
					t.Errorf("Search(%q) on PostgreSQL: err = %v, want one saying %q", tt.q.Q, err, tt.pgErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := f.keys(hits)
			sort.Strings(got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Search(%+v) = %v, want %v", tt.q, got, tt.want)
			}
			for i, h := range hits {
				if !h.Ranked || h.Rank >= 0 || h.Score != -h.Rank {
					t.Errorf("hit %d: rank %v score %v, want bm25 < 0 and score = -rank", i, h.Rank, h.Score)
				}
				if i > 0 && hits[i-1].Rank > h.Rank {
					t.Errorf("hits not ordered by rank: %v then %v", hits[i-1].Rank, h.Rank)
				}
				if h.SessionID == 0 || h.Project == "" || h.Title == "" || h.CreatedAt.IsZero() {
					t.Errorf("hit %d lacks details: %+v", i, h)
				}
				if !strings.Contains(h.Snippet, SnippetOpen) || !strings.Contains(h.Snippet, SnippetClose) {
					t.Errorf("hit %d snippet %q has no markers", i, h.Snippet)
				}
			}
		})
	}
}

func TestSearchHitDetails(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testSearchHitDetails)
}

func testSearchHitDetails(t *testing.T, f *searchFixture) {
	hits, err := f.s.Search(context.Background(), SearchQuery{Q: "TestMigrate"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 {
		t.Fatalf("got %d hits, want 1", len(hits))
	}
	h := hits[0]
	want := SearchHit{Type: SearchObservation, ID: f.obs["gotest"], SessionID: f.sessA, Project: "alpha",
		Title: "Ran `go test ./...`: 2 failed", ToolName: "Bash", Kind: KindTest, Success: false, PromptNumber: 0,
		CreatedAt: f.baseTime, Ranked: true}
	h.Snippet, h.Rank, h.Score = "", 0, 0
	if !reflect.DeepEqual(h, want) {
		t.Errorf("hit = %+v\nwant %+v", h, want)
	}
	parts := SplitSnippet(hits[0].Snippet)
	var matched []string
	for _, p := range parts {
		if p.Match {
			matched = append(matched, p.Text)
		}
	}
	if !reflect.DeepEqual(matched, []string{"TestMigrate"}) {
		t.Errorf("matched parts = %v (snippet %q)", matched, hits[0].Snippet)
	}
}

func TestSearchPaging(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testSearchPaging)
}

func testSearchPaging(t *testing.T, f *searchFixture) {
	ctx := context.Background()
	all, err := f.s.Search(ctx, SearchQuery{Q: "reconnect OR schema OR migrations", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 6 {
		t.Fatalf("want at least 6 hits, got %v", f.keys(all))
	}
	var paged []SearchHit
	for off := 0; ; off += 2 {
		page, err := f.s.Search(ctx, SearchQuery{Q: "reconnect OR schema OR migrations", Offset: off, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 3 {
			t.Fatalf("page of limit 2 returned %d hits (at most limit+1)", len(page))
		}
		more := len(page) == 3
		if more {
			page = page[:2]
		}
		paged = append(paged, page...)
		if !more {
			break
		}
	}
	if !reflect.DeepEqual(f.keys(paged), f.keys(all)) {
		t.Errorf("paged %v != all %v", f.keys(paged), f.keys(all))
	}
	if _, err := f.s.Search(ctx, SearchQuery{Q: "x", Offset: MaxSearchWindow}); !errors.Is(err, ErrInvalid) {
		t.Errorf("offset beyond window: err = %v, want ErrInvalid", err)
	}
	if _, err := f.s.Search(ctx, SearchQuery{Q: "x", Type: "bogus"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad type: err = %v, want ErrInvalid", err)
	}
}

// TestSearchTooManyToRank: past RankLimit raw matches in any table, hits
// come newest first, unranked, across all tables, and still page cleanly.
func TestSearchTooManyToRank(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testSearchTooManyToRank)
}

func testSearchTooManyToRank(t *testing.T, f *searchFixture) {
	f.s.SearchOptions.RankLimit = 2
	q := SearchQuery{Q: "reconnect OR schema OR migrations", Limit: 100}
	hits, err := f.s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	// o:gotest and p:migrate share a timestamp: ties keep table order.
	want := []string{"s:final", "o:grep", "o:ws", "o:edit", "p:beta", "o:gotest", "p:migrate"}
	if got := f.keys(hits); !reflect.DeepEqual(got, want) {
		t.Errorf("newest first = %v, want %v", got, want)
	}
	for _, h := range hits {
		if h.Ranked || h.Rank != 0 || h.Snippet == "" {
			t.Errorf("hit %+v: want unranked with a snippet", h)
		}
	}
	q.Offset, q.Limit = 2, 2
	page, err := f.s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.keys(page); !reflect.DeepEqual(got, want[2:5]) {
		t.Errorf("page = %v, want %v", got, want[2:5])
	}
	// Under the limit, the same search is ranked again.
	f.s.SearchOptions.RankLimit = 100
	hits, _ = f.s.Search(context.Background(), q)
	if len(hits) == 0 || !hits[0].Ranked {
		t.Errorf("under the limit: %+v", hits)
	}
}

func TestSearchInvalidQuery(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testSearchInvalidQuery)
}

func testSearchInvalidQuery(t *testing.T, f *searchFixture) {
	tests := []struct {
		q, msg string
		pg     string // PostgreSQL's message ("" none), or "-": as msg
	}{
		{`"unterminated`, "not closed", "-"},
		{`AND`, `syntax error near "AND"`, "-"},
		{`websocket AND`, "ends too early", "-"},
		{`(websocket`, "ends too early", "-"},
		{`nosuchcol:foo`, "", "-"}, // quoted as a phrase (not a column): no error
		{`title:foo`, "", "-"},
		{`*`, "cannot start with '*'", "-"},
		{`NEAR(a b, x)`, "must be a whole number", "NEAR() is not supported"},
		{`^start`, "", "^ (a column's first word) is not supported"},
		{`{title files}:foo`, "syntax error", "column groups {col1 col2}: are not supported"},
		{`a + b`, "", "phrase concatenation"},
		{`websocket)`, `syntax error near ")"`, "-"},
		{`text:foo`, "", ""}, // prompts have text: the other tables are skipped
		{`-foo`, "no '-' operator", "-"},
		{`ab*`, "at least 3 letters", "-"},
		{`title:ab*`, "at least 3 letters", "-"},
		{`abc*`, "", "-"},
		{`   `, "enter something", "-"},
		{strings.Repeat("a ", 600), "longer than", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			_, err := f.s.Search(context.Background(), SearchQuery{Q: tt.q})
			if f.pg && tt.pg != "-" {
				tt.msg = tt.pg
			}
			if tt.msg == "" {
				if err != nil {
					t.Errorf("Search(%q): unexpected error %v", tt.q, err)
				}
				return
			}
			var qe *QueryError
			if !errors.As(err, &qe) || !errors.Is(err, ErrInvalid) {
				t.Errorf("Search(%q): err = %v (%T), want *QueryError matching ErrInvalid", tt.q, err, err)
				return
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Search(%q): message %q lacks %q", tt.q, err.Error(), tt.msg)
			}
		})
	}
}

func TestSearchTimeout(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testSearchTimeout)
}

func testSearchTimeout(t *testing.T, f *searchFixture) {
	f.s.SearchOptions.Timeout = time.Nanosecond
	_, err := f.s.Search(context.Background(), SearchQuery{Q: "schema"})
	var qe *QueryError
	if !errors.As(err, &qe) || !strings.Contains(err.Error(), "took longer than") {
		t.Errorf("err = %v, want a QueryError about time", err)
	}
}

func TestSplitSnippet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []SnippetPart
	}{
		{"plain", []SnippetPart{{"plain", false}}},
		{"a \x02b\x03 c", []SnippetPart{{"a ", false}, {"b", true}, {" c", false}}},
		{"\x02<script>\x03", []SnippetPart{{"<script>", true}}},
		{"stray \x03close and \x02open", []SnippetPart{{"stray close and ", false}, {"open", true}}},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SplitSnippet(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitSnippet(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestSearchTooManyToRankLaterTable: a table past RankLimit after one
// under it (prompts after observations) still makes every table's hits
// newest first, and under the limit the same search is ranked.
func TestSearchTooManyToRankLaterTable(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, f *searchFixture) {
		ctx := context.Background()
		q := SearchQuery{Q: "please OR fix OR timeout"} // prompts migrate and beta, observation ws
		f.s.SearchOptions.RankLimit = 1
		hits, err := f.s.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := f.keys(hits), []string{"o:ws", "p:beta", "p:migrate"}; !reflect.DeepEqual(got, want) {
			t.Errorf("newest first = %v, want %v", got, want)
		}
		for _, h := range hits {
			if h.Ranked {
				t.Errorf("hit %+v: want unranked", h)
			}
		}
		f.s.SearchOptions.RankLimit = 2
		hits, err = f.s.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 3 {
			t.Fatalf("under the limit: %v", f.keys(hits))
		}
		for _, h := range hits {
			if !h.Ranked {
				t.Errorf("under the limit, hit %+v: want ranked", h)
			}
		}
	})
}
