package models

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/models/internal/rank"
)

// Ranking beyond the text match: a ranked search takes each table's best
// RerankDepth matches by bm25 (ts_rank on PostgreSQL), then orders them
// by that score times what the row is: a prompt or a summary (what was
// asked, what was learned) against a tool call, how important a tool call
// is (a failure over a grep listing), and how recent it is against the
// newest candidate. Which rows match never changes, nor the order of
// newest-first searches (Ranked false).

// SearchRanking weighs a ranked hit's text score (rank.Weights: the
// ranking's own room, models/internal/rank).
type SearchRanking = rank.Weights

// DefaultRanking is the ranking Search uses (rank.Default).
var DefaultRanking = rank.Default

// NeutralRanking orders ranked hits by their text score alone, as Search
// did before SearchRanking.
var NeutralRanking = rank.Neutral

// RerankDepth is how many of each table's best text matches are reranked
// (rank.Depth).
const RerankDepth = rank.Depth

// ranking is the store's SearchRanking (DefaultRanking unless set).
func (s *Store) ranking() SearchRanking {
	if s.Ranking != nil {
		return *s.Ranking
	}
	return DefaultRanking
}

// rerankDepth is how many matches per table a ranked search of want hits
// lists: want itself under NeutralRanking, which reorders nothing.
func (s *Store) rerankDepth(want int) int { return s.ranking().ListDepth(want) }

// boostFeatures are what a candidate's weight depends on.
type boostFeatures struct {
	importance float64
	at         time.Time
}

// rerank weighs each ranked candidate (rank = −score, lower is better)
// by s's ranking and sorts them best first; ties keep their order.
func (s *Store) rerank(ctx context.Context, all []ranked) error {
	rk := s.ranking()
	cs := make([]rank.Candidate, len(all))
	if rk.Reorders() && len(all) > 0 {
		feats, err := s.boostFeatures(ctx, all, rk.Dated())
		if err != nil {
			return err
		}
		for i, f := range feats {
			cs[i] = rank.Candidate{Class: rankClass(all[i].table.typ), Importance: f.importance, At: f.at}
		}
	}
	for i := range all {
		cs[i].Score = all[i].rank
	}
	order := rk.Reweigh(cs)
	sorted := make([]ranked, len(all))
	for i, j := range order {
		sorted[i] = all[j]
		sorted[i].rank = cs[j].Score
	}
	copy(all, sorted)
	return nil
}

// rankClass is the rank.Class of a search table's hits.
func rankClass(typ string) rank.Class {
	switch typ {
	case SearchPrompt:
		return rank.Prompt
	case SearchSummary:
		return rank.Summary
	}
	return rank.ToolCall
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
// design's table, internal/shape's Importance*: a failure 1.0, a test run
// 0.9, a file change 0.7, a read or a search 0.3, anything else 0.5);
// ingest sets importance from the kind alone, so ranking reads the kind,
// stored before the text.
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
