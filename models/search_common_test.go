package models

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestCommonRowsPG: mneme_common holds the statistics' counts of the
// most common lexemes (hashed: no captured text), is copied again only
// after an ANALYZE, and a search whose word the statistics put in
// pgCommonFactor × RankLimit rows or more is not counted: its hits are
// the same as when its matches are counted. With statistics made stale
// by a mass delete, such a word is listed newest first (the trade this
// makes: the same matches, unranked) until the next ANALYZE is copied.
func TestCommonRowsPG(t *testing.T) {
	t.Parallel()
	s := openPGTestStore(t)
	s.SearchOptions.RankLimit = 20 // common from 40 rows
	ctx := context.Background()
	// Only this test analyzes: an autovacuum's ANALYZE between two
	// steps would change what they expect.
	if err := s.db.Exec(`ALTER TABLE observations SET (autovacuum_enabled = false)`).Error; err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// alpha in every row, beta in every 2nd, epsilon every 20th (more
	// than RankLimit, fewer than common), gamma every 40th, delta in 3;
	// "migration" and "migrated" (one lexeme, migrat) in every 3rd.
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		sess, err := tx.EnsureSession(&Session{ClaudeSessionID: "common", Project: "p", StartedAt: base})
		if err != nil {
			return err
		}
		for i := range 600 {
			words := []string{"alpha", fmt.Sprintf("filler%d", i%37)}
			if i%2 == 0 {
				words = append(words, "beta")
			}
			if i%40 == 0 {
				words = append(words, "gamma")
			}
			if i%20 == 0 {
				words = append(words, "epsilon")
			}
			if i == 5 || i == 300 || i == 599 {
				words = append(words, "delta")
			}
			if i%3 == 0 {
				words = append(words, []string{"migration", "migrated"}[i%2])
			}
			// Titles vary in how often alpha is said, so ranking and
			// newest first order the hits differently.
			title := strings.Repeat("alpha ", 1+i%4) + "step"
			if _, err := tx.InsertObservation(&Observation{SessionID: sess.ID, Project: "p", ToolName: "Bash", Kind: KindBash,
				Title: title, Output: strings.Join(words, " "), CreatedAt: base.Add(time.Duration(i) * time.Second)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	refresh := func() bool {
		t.Helper()
		var did bool
		if err := s.db.Raw(`SELECT mneme_refresh_common()`).Row().Scan(&did); err != nil {
			t.Fatal(err)
		}
		return did
	}
	commonRows := func(word string, prefix bool) float64 {
		t.Helper()
		var n float64
		if err := s.db.ConnPool.QueryRowContext(ctx, `SELECT common_rows FROM mneme_common_rows($1::text[], $2::boolean[], '{observations}')`,
			[]string{word}, []bool{prefix}).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	queries := []string{"alpha", "beta", "gamma", "delta", "epsilon", "epsilon OR gamma", "alpha OR delta", "delta OR gamma", "migr*", "migrations",
		"alpha beta", "alpha NOT beta", `"alpha step"`, "title:alpha", "nothing", "filler3 OR delta"}
	search := func() map[string][]SearchHit {
		t.Helper()
		s.commonAt.Store(time.Now().UnixNano()) // no refresh from the search itself
		out := map[string][]SearchHit{}
		for _, q := range queries {
			hits, err := s.Search(ctx, SearchQuery{Q: q, Type: SearchObservation, Limit: 30})
			if err != nil {
				t.Fatalf("Search(%q): %v", q, err)
			}
			out[q] = hits
		}
		return out
	}

	// Never analyzed: nothing is common, every table is counted.
	if err := s.db.Exec(`DELETE FROM mneme_common`).Error; err != nil {
		t.Fatal(err)
	}
	if got := commonRows("alpha", false); got != 0 {
		t.Fatalf("before any statistics, alpha's common rows = %v, want 0", got)
	}
	counted := search()
	for q, want := range map[string]bool{"alpha": false, "beta": false, "epsilon": false, "gamma": true, "delta": true, "migr*": false} {
		if len(counted[q]) == 0 || counted[q][0].Ranked != want {
			t.Fatalf("%q counted: %d hits, ranked %v; want ranked %v", q, len(counted[q]), len(counted[q]) > 0 && counted[q][0].Ranked, want)
		}
	}

	if err := s.db.Exec(`ANALYZE observations`).Error; err != nil {
		t.Fatal(err)
	}
	if !refresh() {
		t.Fatal("mneme_refresh_common after an ANALYZE did nothing")
	}
	if refresh() {
		t.Fatal("mneme_refresh_common copied again with no ANALYZE since")
	}
	// A table of 600 rows is sampled whole: the counts are exact.
	for _, c := range []struct {
		word   string
		prefix bool
		want   float64
	}{{"alpha", false, 600}, {"beta", false, 300}, {"epsilon", false, 30}, {"gamma", false, 15}, {"migrations", false, 200}, {"migr", true, 200}, {"alph", true, 600}, {"the", false, 0}, {"zzz", true, 0}} {
		if got := commonRows(c.word, c.prefix); math.Abs(got-c.want) > 0.5 {
			t.Errorf("common rows of %q (prefix %v) = %v, want %v", c.word, c.prefix, got, c.want)
		}
	}
	var texts int
	if err := s.db.Raw(`SELECT count(*) FROM mneme_common WHERE rel NOT IN ('', 'observations', 'prompts', 'summaries', 'observations_pairs', 'prompts_pairs', 'summaries_pairs')`).Row().Scan(&texts); err != nil || texts != 0 {
		t.Fatalf("mneme_common rows of another table: %d, %v", texts, err)
	}

	// The same hits, counted or not.
	if got := search(); !reflect.DeepEqual(got, counted) {
		for _, q := range queries {
			if !reflect.DeepEqual(got[q], counted[q]) {
				t.Errorf("%q: %d hits with the statistics, %d counted; first %+v vs %+v", q, len(got[q]), len(counted[q]), first(got[q]), first(counted[q]))
			}
		}
	}

	// Stale statistics: all but 15 alpha rows deleted (fewer than
	// RankLimit), not analyzed yet.
	if err := s.db.Exec(`DELETE FROM observations WHERE id NOT IN (SELECT id FROM observations ORDER BY id LIMIT 15)`).Error; err != nil {
		t.Fatal(err)
	}
	stale := search()["alpha"]
	if len(stale) != 15 || stale[0].Ranked {
		t.Fatalf("alpha with stale statistics: %d hits, ranked %v; want 15, newest first", len(stale), stale[0].Ranked)
	}
	for i, h := range stale {
		if i > 0 && h.CreatedAt.After(stale[i-1].CreatedAt) {
			t.Fatalf("alpha with stale statistics: hit %d is newer than the one before", i)
		}
	}
	if err := s.db.Exec(`ANALYZE observations`).Error; err != nil {
		t.Fatal(err)
	}
	s.commonAt.Store(0) // the next search asks for the copy
	hits, err := s.Search(ctx, SearchQuery{Q: "alpha", Type: SearchObservation, Limit: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 15 || !hits[0].Ranked {
		t.Fatalf("alpha once analyzed again: %d hits, ranked %v; want 15, ranked", len(hits), len(hits) > 0 && hits[0].Ranked)
	}
}

func first(h []SearchHit) any {
	if len(h) == 0 {
		return nil
	}
	return h[0]
}

// TestScrubForgetsCommonWordsPG: the scrub after a forget analyzes the
// tables and copies mneme_common again, so a forgotten session's common
// word leaves both the planner's statistics and mneme_common then, not
// at autovacuum's next ANALYZE.
func TestScrubForgetsCommonWordsPG(t *testing.T) {
	t.Parallel()
	s := openPGTestStore(t)
	ctx := context.Background()
	if err := s.db.Exec(`ALTER TABLE observations SET (autovacuum_enabled = false)`).Error; err != nil {
		t.Fatal(err)
	}
	const word = "zqxcodename"
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var forgotten int64
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		for k, w := range []string{word, "alpha"} {
			sess, err := tx.EnsureSession(&Session{ClaudeSessionID: fmt.Sprint("s", k), Project: "p", StartedAt: base})
			if err != nil {
				return err
			}
			if k == 0 {
				forgotten = sess.ID
			}
			for i := range 200 {
				if _, err := tx.InsertObservation(&Observation{SessionID: sess.ID, Project: "p", ToolName: "Bash", Kind: KindBash,
					Title: "run " + w, Output: w + " done", CreatedAt: base.Add(time.Duration(k*1000+i) * time.Second)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	inStats := func() (common float64, stats int) {
		t.Helper()
		if err := s.db.ConnPool.QueryRowContext(ctx, `SELECT common_rows FROM mneme_common_rows($1::text[], '{f}', '{observations}')`,
			[]string{word}).Scan(&common); err != nil {
			t.Fatal(err)
		}
		if err := s.db.Raw(`SELECT count(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'observations'
			AND (SELECT lexeme FROM unnest(to_tsvector('english', ?))) = ANY (most_common_elems::text::text[])`, word).Row().Scan(&stats); err != nil {
			t.Fatal(err)
		}
		return common, stats
	}
	if err := s.db.Exec(`ANALYZE observations`).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.db.Exec(`SELECT mneme_refresh_common()`).Error; err != nil {
		t.Fatal(err)
	}
	if common, stats := inStats(); common != 200 || stats != 1 {
		t.Fatalf("before the forget: %v rows in mneme_common, in the statistics %d times; want 200 and 1", common, stats)
	}
	if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.ForgetSession(forgotten); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Scrub(ctx, false); err != nil {
		t.Fatal(err)
	}
	if common, stats := inStats(); common != 0 || stats != 0 {
		t.Fatalf("after the forget and scrub: %v rows in mneme_common, in the statistics %d times; want none", common, stats)
	}
}
