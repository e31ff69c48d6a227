package models

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestSearchRankTitleFirst: a word in a title outranks the same word in
// an output or a prompt, on both backends.
func TestSearchRankTitleFirst(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, f *searchFixture) {
		hits, err := f.s.Search(context.Background(), SearchQuery{Q: "reconnect", Type: SearchObservation})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.keys(hits); !reflect.DeepEqual(got, []string{"o:grep", "o:ws"}) {
			t.Errorf("hits = %v, want the title match o:grep first", got)
		}
		if len(hits) == 2 && !(hits[0].Score > hits[1].Score) {
			t.Errorf("scores %v, %v: want the first higher", hits[0].Score, hits[1].Score)
		}
	})
}

// TestSearchStopwordsPG: PostgreSQL's english configuration does not
// index stopwords. A query of stopwords only finds nothing (not an
// error), a stopword beside real words is dropped, and a NOT with only
// stopwords before it, which would read every row, is refused.
func TestSearchStopwordsPG(t *testing.T) {
	t.Parallel()
	f := seedSearchOn(t, openPGTestStore(t))
	ctx := context.Background()
	for _, q := range []string{"the", `"the of"`, "the AND a", `"..."`} {
		hits, err := f.s.Search(ctx, SearchQuery{Q: q})
		if err != nil || len(hits) != 0 {
			t.Errorf("Search(%q) = %v, %v; want no hits, no error", q, f.keys(hits), err)
		}
	}
	hits, err := f.s.Search(ctx, SearchQuery{Q: "the websocket"})
	if got := f.keys(hits); err != nil || len(got) != 2 {
		t.Errorf("Search(the websocket) = %v, %v; want websocket's two hits", got, err)
	}
	_, err = f.s.Search(ctx, SearchQuery{Q: "the NOT websocket"})
	var qe *QueryError
	if !errors.As(err, &qe) || !strings.Contains(err.Error(), "only words to leave out") || qe.Query != "the NOT websocket" {
		t.Errorf("the NOT websocket: err = %v", err)
	}
}

// TestSearchSnippetPG: snippets are cut from the raw text, punctuation
// kept, and a file name is one marked match.
func TestSearchSnippetPG(t *testing.T) {
	t.Parallel()
	f := seedSearchOn(t, openPGTestStore(t))
	hits, err := f.s.Search(context.Background(), SearchQuery{Q: "foo_test.go"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("hits %v, %v", f.keys(hits), err)
	}
	if sn := hits[0].Snippet; !strings.HasPrefix(sn, "Read \x02foo_test.go\x03") || strings.Contains(sn, "\x01") {
		t.Errorf("snippet %q", sn)
	}
}

// TestRecallLookups: the full-text reads of the recall hooks
// (RelatedObservations, CountObservationMatches, SummariesMentioning)
// on both backends.
func TestRecallLookups(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, f *searchFixture) {
		ctx := context.Background()
		rows, err := f.s.RelatedObservations(ctx, `"reconnect"`, "beta", 0, 500, 20)
		if err != nil || len(rows) != 2 {
			t.Fatalf("RelatedObservations = %+v, %v", rows, err)
		}
		byID := map[int64]float64{}
		for _, r := range rows {
			byID[r.ID] = r.Score
		}
		title, output := byID[f.obs["grep"]], byID[f.obs["ws"]]
		if !(title > output && output > 0) {
			t.Errorf("scores: title match %v, output match %v; want title > output > 0", title, output)
		}
		// limit 1 keeps the best match, on both backends (SQLite's
		// ORDER BY once read the alias -bm25 ascending: the worst first).
		if best, err := f.s.RelatedObservations(ctx, `"reconnect"`, "beta", 0, 500, 1); err != nil || len(best) != 1 || best[0].ID != f.obs["grep"] {
			t.Errorf("RelatedObservations limit 1 = %+v, %v; want the title match #%d", best, err, f.obs["grep"])
		}
		if f.pg && (title < 5 || title > 15) {
			// pgRelatedScale: one title match on bm25's scale.
			t.Errorf("PostgreSQL score of one title match = %v, want bm25's 5..15", title)
		}
		if rows, err := f.s.RelatedObservations(ctx, `"reconnect"`, "beta", f.sessB, 500, 20); err != nil || len(rows) != 0 {
			t.Errorf("excluding the session: %+v, %v", rows, err)
		}
		if n, err := f.s.CountObservationMatches(ctx, `"reconnect" OR "migrations"`, 3); err != nil || n != 3 {
			t.Errorf("CountObservationMatches = %d, %v; want 3 (stopped at the limit)", n, err)
		}
		sums, err := f.s.SummariesMentioning(ctx, "alpha", `"schema version"`, 0, 3)
		if err != nil || len(sums) != 1 || sums[0].ID != f.summary {
			t.Errorf("SummariesMentioning = %+v, %v", sums, err)
		}
		if n, _ := f.s.pendingIndex(ctx); n != 0 {
			t.Errorf("pendingIndex = %d after a search", n)
		}
	})
}

// TestOptimizeFTSPostgres: there is no FTS5 segment to merge on
// PostgreSQL, so optimizing after a rewrite succeeds and does nothing.
func TestOptimizeFTSPostgres(t *testing.T) {
	t.Parallel()
	s := openPGTestStore(t)
	for _, table := range []string{"prompts", "observations", "summaries"} {
		if err := s.writeQuietly(context.Background(), func(tx *Tx) error { return tx.optimizeFTS(table) }); err != nil {
			t.Errorf("optimizeFTS(%s): %v", table, err)
		}
	}
}

// TestSearchNonASCII: letters outside ASCII are word characters on both
// backends (mneme_words' [:alnum:] follows the database's ctype, UTF-8
// here), and a snippet keeps them.
func TestSearchNonASCII(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, f *searchFixture) {
		ctx := context.Background()
		err := f.s.Writer.Do(ctx, func(tx *Tx) error {
			_, err := tx.InsertObservation(&Observation{SessionID: f.sessA, Project: "alpha", ToolName: "Read", Kind: KindRead,
				Title: "Read straße.txt", Output: "die Größe über alles; 日本語", CreatedAt: f.baseTime})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"über", "straße", "größe", "straße.txt"} {
			hits, err := f.s.Search(ctx, SearchQuery{Q: q})
			if err != nil || len(hits) != 1 {
				t.Errorf("Search(%q) = %v, %v; want the one observation", q, f.keys(hits), err)
				continue
			}
			if !strings.Contains(hits[0].Snippet, SnippetOpen) {
				t.Errorf("Search(%q): snippet %q has no match", q, hits[0].Snippet)
			}
		}
	})
}
