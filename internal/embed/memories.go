package embed

import (
	"context"
	"errors"
	"fmt"

	"github.com/mneme-dev/mneme/models"
)

// SearchMemories runs a memory search in mode (see Mode): text is
// models.Store.SearchMemories; semantic the memories closest in meaning
// within the project, kinds and states; hybrid both, fused by reciprocal
// rank fusion. It returns the page (one more memory than Limit when there
// are more) and how it ran, as Search.
func (s *Service) SearchMemories(ctx context.Context, q models.MemorySearch, mode string) ([]models.Memory, Ran, error) {
	m, err := s.Mode(mode)
	if err != nil {
		return nil, Ran{}, err
	}
	if m == ModeText {
		out, err := s.Store.SearchMemories(ctx, q)
		return out, Ran{Mode: ModeText}, err
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.Offset < 0 || q.Offset+q.Limit > models.MaxSearchWindow {
		return nil, Ran{}, fmt.Errorf("%w: offset+limit over %d", models.ErrInvalid, models.MaxSearchWindow)
	}
	window := max(q.Offset+q.Limit+1, 20)
	var text []models.Memory
	var terr error
	if m == ModeHybrid {
		tq := q
		tq.Offset, tq.Limit = 0, window
		if text, terr = s.Store.SearchMemories(ctx, tq); terr != nil && refused(terr) == nil {
			return nil, Ran{}, terr
		}
	}
	s.mu.Lock()
	client := s.client
	s.mu.Unlock()
	vec, eerr := (&Searcher{Client: client, Budget: s.Budget}).embedQuery(ctx, q.Q)
	if eerr != nil {
		if m == ModeSemantic {
			return nil, Ran{Mode: m}, fmt.Errorf("%w: %v", ErrEndpoint, eerr)
		}
		s.log().Warn("memory search: the embeddings endpoint did not answer in time; answering with text alone", "err", eerr)
		if terr != nil {
			return nil, Ran{Mode: ModeText}, terr
		}
		return pageOf(text, q.Offset, q.Limit), Ran{Mode: ModeText}, nil
	}
	// Kinds, states and speakers are not in the vectors: ask for more, keep those
	// that pass.
	sq := models.SearchQuery{Project: q.Project, Type: models.SearchMemory, Limit: min(4*window, models.MaxSearchWindow)}
	hits, err := s.Store.SemanticSearch(ctx, sq, client.Model, vec)
	if errors.Is(err, models.ErrVectorsLoading) && m == ModeHybrid {
		s.log().Warn("memory search: the vector index is still loading; answering with text alone")
		if terr != nil {
			return nil, Ran{Mode: ModeText}, terr
		}
		return pageOf(text, q.Offset, q.Limit), Ran{Mode: ModeText}, nil
	}
	if err != nil {
		return nil, Ran{Mode: m}, err
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	found, err := s.Store.MemoriesByIDs(ctx, ids)
	if err != nil {
		return nil, Ran{Mode: m}, err
	}
	byID := map[int64]models.Memory{}
	for _, mem := range text {
		byID[mem.ID] = mem
	}
	var sem []models.Memory
	for _, mem := range found {
		byID[mem.ID] = mem
	}
	for _, id := range ids {
		if mem, ok := byID[id]; ok && q.Keeps(mem) {
			sem = append(sem, mem)
		}
	}
	fused := models.FuseRRF(memoryHits(text), memoryHits(sem))
	out := make([]models.Memory, len(fused))
	for i, h := range fused {
		out[i] = byID[h.ID]
	}
	return pageOf(out, q.Offset, q.Limit), Ran{Mode: m, Words: refused(terr)}, nil
}

// memoryHits are memories as search hits, for FuseRRF.
func memoryHits(ms []models.Memory) []models.SearchHit {
	out := make([]models.SearchHit, len(ms))
	for i, m := range ms {
		out[i] = models.SearchHit{Type: models.SearchMemory, ID: m.ID}
	}
	return out
}
