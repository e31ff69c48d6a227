package models

import (
	"context"
	"math"
	"sort"
	"time"

	"gorm.io/gorm"
)

// Ranking beyond the text match: a ranked search takes each table's best
// RerankDepth matches by bm25 (ts_rank on PostgreSQL), then orders them
// by that score times what the row is: a prompt or a summary (what was
// asked, what was learned) against a tool call, how important a tool call
// is (a failure over a grep listing), and how recent it is against the
// newest candidate. Which rows match never changes, nor the order of
// newest-first searches (Ranked false).

// SearchRanking weighs a ranked hit's text score. Every multiplier is
// 1 for "as bm25 says"; NeutralRanking has them all at 1.
type SearchRanking struct {
	// Prompt and Summary multiply the score of a prompt and a summary
	// (a tool call's is 1).
	Prompt, Summary float64
	// Importance multiplies a tool call's score by 1 + Importance ×
	// (importance − 0.5): importance is 1.0 for a failure, 0.9 a test
	// run, 0.7 a file change, 0.5 other and 0.3 a read or a search
	// (kindImportance).
	Importance float64
	// Recency multiplies a score by 1 + Recency × 0.5^(age/HalfLife),
	// age counted back from the newest candidate of the search (not the
	// clock: the same data ranks the same way tomorrow).
	Recency  float64
	HalfLife time.Duration
}

// DefaultRanking is the ranking Search uses, tuned on the tuning half of
// the relevance benchmark (eval/search) only.
//
// The sweep (eval/search TestTuneRanking) found a plateau of nDCG@10 for
// prompts ×2 to ×4, summaries ×1.5 to ×2.5 and Importance 0.5 to 1.5;
// this is its middle. Recency did not help on the tuning half (its best
// settings all have it at 0), so it is off: a knob, not a default.
var DefaultRanking = SearchRanking{Prompt: 3, Summary: 2, Importance: 1, Recency: 0, HalfLife: 7 * 24 * time.Hour}

// NeutralRanking orders ranked hits by their text score alone, as Search
// did before SearchRanking.
var NeutralRanking = SearchRanking{Prompt: 1, Summary: 1, Importance: 0, Recency: 0, HalfLife: time.Hour}

// RerankDepth is how many of each table's best text matches are
// reranked: a match beyond it cannot reach the page however it is
// weighed. It is also the depth below which paging is consistent (a
// deeper page reranks a longer list).
const RerankDepth = 60

// ranking is the store's SearchRanking (DefaultRanking unless set).
func (s *Store) ranking() SearchRanking {
	if s.Ranking != nil {
		return *s.Ranking
	}
	return DefaultRanking
}

// rerankDepth is how many matches per table a ranked search of want hits
// lists: want itself under NeutralRanking, which reorders nothing.
func (s *Store) rerankDepth(want int) int {
	if s.ranking() == NeutralRanking {
		return want
	}
	return max(want, RerankDepth)
}

// boostFeatures are what a candidate's weight depends on.
type boostFeatures struct {
	importance float64
	at         time.Time
}

// rerank weighs each ranked candidate (rank = −score, lower is better)
// by s's ranking and sorts them best first; ties keep their order.
func (s *Store) rerank(ctx context.Context, all []ranked) error {
	rk := s.ranking()
	if rk == NeutralRanking || len(all) == 0 {
		sort.SliceStable(all, func(i, j int) bool { return all[i].rank < all[j].rank })
		return nil
	}
	feats, err := s.boostFeatures(ctx, all, rk.Recency != 0 && rk.HalfLife > 0)
	if err != nil {
		return err
	}
	var newest time.Time
	for _, f := range feats {
		if f.at.After(newest) {
			newest = f.at
		}
	}
	for i := range all {
		f := feats[i]
		m := 1.0
		switch all[i].table.typ {
		case SearchPrompt:
			m = rk.Prompt
		case SearchSummary:
			m = rk.Summary
		case SearchObservation:
			m = 1 + rk.Importance*(f.importance-0.5)
		}
		if rk.Recency != 0 && rk.HalfLife > 0 && !f.at.IsZero() {
			age := newest.Sub(f.at)
			m *= 1 + rk.Recency*math.Exp2(-float64(age)/float64(rk.HalfLife))
		}
		all[i].rank *= max(m, 0)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank < all[j].rank })
	return nil
}

// boostFeatures loads the features of the candidates, one query per
// table, by primary key: only small columns before the text ones. Those
// the ranking query read (feat) need no query.
func (s *Store) boostFeatures(ctx context.Context, all []ranked, recency bool) ([]boostFeatures, error) {
	out := make([]boostFeatures, len(all))
	pos := map[*searchTable]map[int64][]int{}
	for i, r := range all {
		if r.feat != nil {
			out[i] = *r.feat
			if !recency {
				out[i].at = time.Time{}
			}
			continue
		}
		if pos[r.table] == nil {
			pos[r.table] = map[int64][]int{}
		}
		pos[r.table][r.id] = append(pos[r.table][r.id], i)
	}
	db := s.searchDB(ctx)
	for t, byID := range pos {
		ids := make([]int64, 0, len(byID))
		for id := range byID {
			ids = append(ids, id)
		}
		// Only columns stored before a row's long text: kind, not
		// importance (which follows the output, often in overflow
		// pages); created_at only when recency counts.
		kind, at := "''", "NULL"
		if t.typ == SearchObservation {
			kind = "c.kind"
		}
		if recency {
			at = "c.created_at"
		}
		rows, err := db.Raw("SELECT c.id, "+kind+", "+at+" FROM "+t.content+" c WHERE c.id IN ?", ids).Rows()
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var f boostFeatures
			var k string
			var created any
			if err := rows.Scan(&id, &k, &created); err != nil {
				rows.Close()
				return nil, err
			}
			f.importance, f.at = kindImportance(k), parseStoredTime(created)
			for _, i := range byID[id] {
				out[i] = f
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// kindImportance is the importance ingest gives a tool call of kind (the
// design's table: a failure 1.0, a test run 0.9, a file change 0.7, a
// read or a search 0.3, anything else 0.5); ingest sets importance from
// the kind alone, so ranking reads the kind, stored before the text.
func kindImportance(kind string) float64 {
	switch kind {
	case KindFailure:
		return 1.0
	case KindTest:
		return 0.9
	case KindFileChange:
		return 0.7
	case KindRead, KindSearch:
		return 0.3
	}
	return 0.5
}

// searchDB is the store's database for a search's reads.
func (s *Store) searchDB(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }
