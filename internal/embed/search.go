package embed

import (
	"context"
	"errors"
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

// Ran is how a search ran.
type Ran struct {
	// Mode is the mode it ran in: "text" for a hybrid search that fell
	// back to words because the endpoint did not answer in time.
	Mode string
	// Words, on a hybrid search, is why its words could not be read as a
	// query (an unclosed quote, an operator missing its other side): the
	// hits are by meaning alone. nil when the words were read.
	Words *models.QueryError
}

// FellBack tells that a search asked for in mode (hybrid or semantic)
// answered with words alone.
func (r Ran) FellBack(mode string) bool {
	return r.Mode == ModeText && (mode == ModeHybrid || mode == ModeSemantic)
}

// Search runs q in mode and returns the page as Store.Search does, and
// how it ran.
func (s *Searcher) Search(ctx context.Context, q models.SearchQuery, mode string) ([]models.SearchHit, Ran, error) {
	if mode == ModeText || mode == "" || s.Client == nil {
		hits, err := s.Store.Search(ctx, q)
		return hits, Ran{Mode: ModeText}, err
	}
	if mode != ModeSemantic && mode != ModeHybrid {
		return nil, Ran{}, fmt.Errorf("%w: mode must be hybrid, text or semantic", models.ErrInvalid)
	}
	if mode == ModeSemantic {
		vec, eerr := s.embedQuery(ctx, q.Q)
		if eerr != nil {
			return nil, Ran{Mode: mode}, eerr
		}
		hits, err := s.Store.SemanticSearch(ctx, q, s.Client.Model, vec)
		return hits, Ran{Mode: mode}, err
	}
	// Hybrid: both lists of the whole window, fused, then paged. The
	// full-text search runs while the query is embedded and its nearest
	// rows found: it needs neither.
	page := q
	page.Offset, page.Limit = 0, min(q.Offset+q.Limit+1, models.MaxSearchWindow)
	if page.Limit < 20 {
		page.Limit = 20
	}
	var text []models.SearchHit
	var terr error
	textDone := make(chan struct{})
	go func() {
		defer close(textDone)
		text, terr = s.Store.Search(ctx, page)
	}()
	vec, eerr := s.embedQuery(ctx, q.Q)
	var sem []models.SearchHit
	var err error
	if eerr == nil {
		sem, err = s.Store.SemanticSearch(ctx, page, s.Client.Model, vec)
	}
	<-textDone
	words := refused(terr)
	if terr != nil && words == nil {
		return nil, Ran{Mode: mode}, terr
	}
	fellBack := Ran{Mode: ModeText}
	if eerr != nil {
		if s.Log != nil {
			s.Log.Warn("semantic search: the embeddings endpoint did not answer in time; answering with text alone", "budget", s.budget(), "err", eerr)
		}
		if terr != nil {
			return nil, fellBack, terr
		}
		return pageOf(text, q.Offset, q.Limit), fellBack, nil
	}
	if errors.Is(err, models.ErrVectorsLoading) {
		if s.Log != nil {
			s.Log.Warn("semantic search: the vector index is still loading; answering with text alone")
		}
		if terr != nil {
			return nil, fellBack, terr
		}
		return pageOf(text, q.Offset, q.Limit), fellBack, nil
	}
	if err != nil {
		return nil, Ran{Mode: mode}, err
	}
	// A query FTS5 refuses (plain words with a stray quote) still has its
	// semantic hits; Words says why there are no word matches.
	return pageOf(models.FuseRRF(text, sem), q.Offset, q.Limit), Ran{Mode: mode, Words: words}, nil
}

// refused is err as the query's words refused (a *models.QueryError),
// or nil when err is nil or another failure.
func refused(err error) *models.QueryError {
	var qe *models.QueryError
	if errors.As(err, &qe) {
		return qe
	}
	return nil
}

// budget is Budget, or its default.
func (s *Searcher) budget() time.Duration {
	if s.Budget <= 0 {
		return 2 * time.Second
	}
	return s.Budget
}

// embedQuery embeds a query within the budget.
func (s *Searcher) embedQuery(ctx context.Context, q string) ([]float32, error) {
	ectx, cancel := context.WithTimeout(ctx, s.budget())
	defer cancel()
	vecs, err := s.Client.Embed(ectx, []string{q})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// pageOf cuts the page offset…offset+limit out of a fused list, plus one
// more when there is one.
func pageOf[T any](all []T, offset, limit int) []T {
	if limit <= 0 {
		limit = 20
	}
	if offset >= len(all) {
		return []T{}
	}
	all = all[offset:]
	if len(all) > limit+1 {
		all = all[:limit+1]
	}
	return all
}
