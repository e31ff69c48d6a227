package models

import (
	"context"
	"reflect"
	"sort"
	"testing"
)

// rankingQueries are searches of the searchFixture: single words,
// phrases, OR, prefixes, column filters, filters by project, type and
// tool.
var rankingQueries = []SearchQuery{
	{Q: "reconnect OR schema OR migrations"},
	{Q: "schema"},
	{Q: "reconnect"},
	{Q: `"schema version"`},
	{Q: "migrat*"},
	{Q: "title:migrations"},
	{Q: "reconnect OR schema", Project: "alpha"},
	{Q: "reconnect OR schema", Type: SearchPrompt},
	{Q: "reconnect OR migrations", Tool: "Grep"},
	{Q: "foo_test.go"},
}

// TestRankingChangesOnlyTheOrder: the ranking (DefaultRanking against
// NeutralRanking, which is bm25 alone as before) never changes which rows
// match, nor their details and snippets; with NeutralRanking hits are in
// bm25 order; and newest-first searches (too many matches to rank) are
// the same hit for hit.
func TestRankingChangesOnlyTheOrder(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testRankingChangesOnlyTheOrder)
}

func testRankingChangesOnlyTheOrder(t *testing.T, f *searchFixture) {
	ctx := context.Background()
	search := func(rk SearchRanking, q SearchQuery) []SearchHit {
		t.Helper()
		f.s.Ranking = &rk
		q.Limit = 100
		hits, err := f.s.Search(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		return hits
	}
	byKey := func(hits []SearchHit) map[string]SearchHit {
		m := map[string]SearchHit{}
		for _, h := range hits {
			h.Rank, h.Score = 0, 0
			m[h.Type+":"+itoa(h.ID)] = h
		}
		return m
	}
	for _, q := range rankingQueries {
		neutral, tuned := search(NeutralRanking, q), search(DefaultRanking, q)
		if len(neutral) == 0 {
			t.Errorf("%q: no hit, the query tests nothing", q.Q)
		}
		if !reflect.DeepEqual(byKey(neutral), byKey(tuned)) {
			t.Errorf("%q: the ranking changed the hits:\nneutral %v\ntuned   %v", q.Q, f.keys(neutral), f.keys(tuned))
		}
		if !sort.SliceIsSorted(neutral, func(i, j int) bool { return neutral[i].Rank < neutral[j].Rank }) {
			t.Errorf("%q: neutral ranking is not in bm25 order: %v", q.Q, neutral)
		}
		if !sort.SliceIsSorted(tuned, func(i, j int) bool { return tuned[i].Score > tuned[j].Score }) {
			t.Errorf("%q: default ranking is not in its score order", q.Q)
		}
	}
	f.s.SearchOptions.RankLimit = 1
	unranked := 0
	for _, q := range rankingQueries {
		neutral, tuned := search(NeutralRanking, q), search(DefaultRanking, q)
		if len(neutral) == 0 || neutral[0].Ranked {
			continue // at most one match per table: still ranked
		}
		unranked++
		if !reflect.DeepEqual(neutral, tuned) {
			t.Errorf("%q newest first: the ranking changed the result:\nneutral %v\ntuned   %v", q.Q, f.keys(neutral), f.keys(tuned))
		}
	}
	if unranked < 3 {
		t.Errorf("only %d queries came newest first: the check tests little", unranked)
	}
}

// TestRankingWeighsRows: with DefaultRanking a failed test run outranks a
// grep listing and a summary a prompt about as well matched, as the
// weights say; a search of one table keeps bm25's order among rows of
// equal weight.
func TestRankingWeighsRows(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testRankingWeighsRows)
}

func testRankingWeighsRows(t *testing.T, f *searchFixture) {
	ctx := context.Background()
	rk := DefaultRanking
	f.s.Ranking = &rk
	hits, err := f.s.Search(ctx, SearchQuery{Q: "reconnect OR schema OR migrations", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, k := range f.keys(hits) {
		pos[k] = i
	}
	// Each hit's score is its text score times its weight: summaries
	// ×2, prompts ×3, a tool call by the importance of its kind (the
	// fixture has a failed test run, a file change, a read, a bash run
	// and a grep).
	f.s.Ranking = &NeutralRanking
	plain, err := f.s.Search(ctx, SearchQuery{Q: "reconnect OR schema OR migrations", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	weight := map[string]float64{SearchObservation: 1, SearchPrompt: rk.Prompt, SearchSummary: rk.Summary}
	base := map[string]float64{}
	for _, h := range plain {
		base[h.Type+":"+itoa(h.ID)] = h.Score
	}
	for _, h := range hits {
		w := weight[h.Type]
		if h.Type == SearchObservation {
			w = 1 + rk.Importance*(kindImportance(h.Kind)-0.5)
		}
		want := base[h.Type+":"+itoa(h.ID)] * w
		if d := h.Score - want; d > 1e-9*want || -d > 1e-9*want {
			t.Errorf("%s %d: score %v, want %v × %v", h.Type, h.ID, h.Score, base[h.Type+":"+itoa(h.ID)], w)
		}
	}
	if len(pos) != len(plain) {
		t.Errorf("hits %v", pos)
	}
}
