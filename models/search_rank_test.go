package models

import (
	"context"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// TestSearchCommonTermsNewestFirst: past RankTermRows rows holding a term
// of the query, hits come newest first even when few rows match (bm25
// would walk every row of each term).
func TestSearchCommonTermsNewestFirst(t *testing.T) {
	t.Parallel()
	// RankTermRows bounds the cost of bm25's per-term counts; PostgreSQL's
	// ts_rank has none, and only RankLimit applies there.
	pgtest.SkipOnPostgres(t, "RankTermRows is the FTS5 ranking's bound")
	f := seedSearch(t)
	q := SearchQuery{Q: `"schema version"`, Limit: 10}
	hits, err := f.s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.keys(hits); len(got) != 2 || !hits[0].Ranked {
		t.Fatalf("under the limit: %v ranked=%v, want 2 ranked hits", got, len(hits) > 0 && hits[0].Ranked)
	}
	// observations: one row holds "schema" or "version" (o:gotest).
	f.s.SearchOptions.RankTermRows = 1
	hits, err = f.s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.keys(hits), []string{"s:final", "o:gotest"}; !reflect.DeepEqual(got, want) {
		t.Errorf("newest first = %v, want %v", got, want)
	}
	for _, h := range hits {
		if h.Ranked || h.Rank != 0 || h.Score != 0 || SplitSnippet(h.Snippet) == nil {
			t.Errorf("hit %+v: want unranked, with a snippet", h)
		}
	}
}

// TestSearchTermsProbeTableRefuses: a table the terms probe finds too
// common to rank, but whose columns the query cannot use, is dropped, and
// the others are ranked as if it had never been searched.
func TestSearchTermsProbeTableRefuses(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var obsID int64
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		sess, err := tx.EnsureSession(&Session{ClaudeSessionID: "s", Project: "p", StartedAt: at})
		if err != nil {
			return err
		}
		for i := range 3 {
			if _, err := tx.RecordPrompt(sess.ID, "p", "", "the flaky reconnect again", false, at.Add(time.Duration(i)*time.Minute)); err != nil {
				return err
			}
		}
		obs := &Observation{SessionID: sess.ID, Project: "p", ToolName: "Grep", Kind: KindSearch, Title: "Searched for reconnect", Output: "x", CreatedAt: at}
		if _, err := tx.InsertObservation(obs); err != nil {
			return err
		}
		obsID = obs.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.SearchOptions.RankTermRows = 2 // prompts: 3 rows hold "reconnect"; observations: 1
	hits, err := s.Search(ctx, SearchQuery{Q: "title:reconnect"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Type != SearchObservation || hits[0].ID != obsID || !hits[0].Ranked {
		t.Errorf("hits = %+v, want the one observation, ranked", hits)
	}
}

// TestSearchPrefixLengths: prefix* queries of every length find the same
// words, whether FTS5 answers them from a prefix index (2 to 6
// characters) or by expanding the prefix (longer ones), in every table,
// counting characters, not bytes (übe* is 3 characters, 4 bytes).
func TestSearchPrefixLengths(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ids := map[string]int64{}
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		sess, err := tx.EnsureSession(&Session{ClaudeSessionID: "s", Project: "p", StartedAt: at})
		if err != nil {
			return err
		}
		for i, o := range []struct{ key, title string }{
			{"configuration", "Read configuration.md"},
			{"configure", "Ran ./configure --prefix=/usr"},
			{"conflict", "Resolved a merge conflict"},
			{"übersicht", "Edited übersicht.txt"},
			{"uberall", "Ran uberall"},
		} {
			obs := &Observation{SessionID: sess.ID, Project: "p", ToolName: "Bash", Kind: KindBash, Title: o.title, Output: "done", CreatedAt: at.Add(time.Duration(i) * time.Second)}
			if _, err := tx.InsertObservation(obs); err != nil {
				return err
			}
			ids["o:"+o.key] = obs.ID
		}
		res, err := tx.RecordPrompt(sess.ID, "p", "", "fix the configuration loader", false, at)
		if err != nil {
			return err
		}
		ids["p:configuration"] = res.PromptID
		sum := &Summary{SessionID: sess.ID, Project: "p", Kind: SummaryFinal, Request: "Configure the linter", CreatedAt: at}
		if err := tx.db.Create(sum).Error; err != nil {
			return err
		}
		ids["s:configure"] = sum.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for k, id := range ids {
		names[k[:1]+":"+itoa(id)] = k
	}
	// The porter stemmer indexes "configuration" as configur, "configure"
	// as configur, "conflict" as conflict.
	tests := []struct {
		q    string
		want []string
	}{
		{"con*", []string{"o:configuration", "o:configure", "o:conflict", "p:configuration", "s:configure"}},
		{"conf*", []string{"o:configuration", "o:configure", "o:conflict", "p:configuration", "s:configure"}},
		{"confi*", []string{"o:configuration", "o:configure", "p:configuration", "s:configure"}},
		{"config*", []string{"o:configuration", "o:configure", "p:configuration", "s:configure"}},
		{"configu*", []string{"o:configuration", "o:configure", "p:configuration", "s:configure"}},
		{"configur*", []string{"o:configuration", "o:configure", "p:configuration", "s:configure"}},
		{"configura*", nil},
		{"confl*", []string{"o:conflict"}},
		// unicode61 folds diacritics: ü is indexed as u.
		{"übe*", []string{"o:uberall", "o:übersicht"}},
		{"übersi*", []string{"o:übersicht"}},
		{"ubera*", []string{"o:uberall"}},
		{"title:conf*", []string{"o:configuration", "o:configure", "o:conflict"}},
		{`"merge con"*`, []string{"o:conflict"}},
		{"conf* NOT confl*", []string{"o:configuration", "o:configure", "p:configuration", "s:configure"}},
		// The stemmer shortens res to re before FTS5 looks it up (the
		// prefix index for 2 characters answers it): Read, Resolved.
		{"res*", []string{"o:configuration", "o:conflict"}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if s.Postgres() && (tt.q == "übe*" || tt.q == "res*") {
				// FTS5's quirks, not the query language: unicode61 folds
				// diacritics (PostgreSQL's english configuration does not),
				// and porter stems a prefix before the lookup.
				return
			}
			hits, err := s.Search(ctx, SearchQuery{Q: tt.q})
			if err != nil {
				t.Errorf("Search(%q): %v", tt.q, err)
				return
			}
			var got []string
			for _, h := range hits {
				got = append(got, names[h.Type[:1]+":"+itoa(h.ID)])
				if SplitSnippet(h.Snippet) == nil {
					t.Errorf("Search(%q): hit %s has no snippet", tt.q, names[h.Type[:1]+":"+itoa(h.ID)])
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Search(%q) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}
