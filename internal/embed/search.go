package embed

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// Search modes.
const (
	ModeText     = "text"
	ModeSemantic = "semantic"
	ModeHybrid   = "hybrid"
)

// Searcher answers a search in a mode: full-text (models.Store.Search),
// semantic (the query embedded, then the closest rows), or hybrid (both,
// fused by reciprocal rank fusion). When the endpoint does not answer in
// Budget, hybrid falls back to text and logs it; semantic returns the
// error.
type Searcher struct {
	Store  *models.Store
	Client *Client
	Log    *slog.Logger
	// Budget bounds embedding the query (default 2 s).
	Budget time.Duration
}

// Search runs q in mode and returns the page as Store.Search does.
// fellBack tells that a hybrid search answered with text alone.
func (s *Searcher) Search(ctx context.Context, q models.SearchQuery, mode string) (hits []models.SearchHit, fellBack bool, err error) {
	if mode == ModeText || mode == "" || s.Client == nil {
		hits, err = s.Store.Search(ctx, q)
		return hits, false, err
	}
	if mode != ModeSemantic && mode != ModeHybrid {
		return nil, false, fmt.Errorf("%w: mode must be hybrid, text or semantic", models.ErrInvalid)
	}
	budget := s.Budget
	if budget <= 0 {
		budget = 2 * time.Second
	}
	ectx, cancel := context.WithTimeout(ctx, budget)
	vecs, eerr := s.Client.Embed(ectx, []string{q.Q})
	cancel()
	if mode == ModeSemantic {
		if eerr != nil {
			return nil, false, eerr
		}
		hits, err = s.Store.SemanticSearch(ctx, q, s.Client.Model, vecs[0])
		return hits, false, err
	}
	// Hybrid: both lists of the whole window, fused, then paged.
	page := q
	page.Offset, page.Limit = 0, min(q.Offset+q.Limit+1, models.MaxSearchWindow)
	if page.Limit < 20 {
		page.Limit = 20
	}
	text, terr := s.Store.Search(ctx, page)
	if eerr != nil {
		if s.Log != nil {
			s.Log.Warn("semantic search: the embeddings endpoint did not answer in time; answering with text alone", "budget", budget, "err", eerr)
		}
		if terr != nil {
			return nil, true, terr
		}
		return pageOf(text, q), true, nil
	}
	sem, err := s.Store.SemanticSearch(ctx, page, s.Client.Model, vecs[0])
	if err != nil {
		return nil, false, err
	}
	if terr != nil {
		// A query FTS5 refuses (plain words with a stray quote) still
		// has its semantic hits.
		text = nil
	}
	return pageOf(models.FuseRRF(text, sem), q), false, nil
}

// pageOf cuts q's page out of a fused list, plus one hit when there is one.
func pageOf(all []models.SearchHit, q models.SearchQuery) []models.SearchHit {
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.Offset >= len(all) {
		return []models.SearchHit{}
	}
	all = all[q.Offset:]
	if len(all) > q.Limit+1 {
		all = all[:q.Limit+1]
	}
	return all
}
