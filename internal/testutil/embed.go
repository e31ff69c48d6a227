package testutil

import (
	"fmt"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/embed"
)

// FastEmbed makes the worker's embeddings indexer poll and back off in
// milliseconds, give up on a request after 1 s and on a search query's
// vector after 300 ms.
func FastEmbed(o *app.Options) {
	o.Embed = embed.Options{Timeout: time.Second, Budget: 300 * time.Millisecond, Batch: 4,
		Idle: 20 * time.Millisecond, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}
}

// EmbeddingsHealth is /api/health's embeddings state.
func (s *Server) EmbeddingsHealth(t testing.TB) api.EmbeddingsHealth {
	t.Helper()
	var h api.Health
	s.GetJSON(t, "/api/health", &h)
	return h.Embeddings
}

// WaitEmbeddings polls /api/health until cond holds (60 s at most).
func (s *Server) WaitEmbeddings(t testing.TB, what string, cond func(api.EmbeddingsHealth) bool) api.EmbeddingsHealth {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		h := s.EmbeddingsHealth(t)
		if cond(h) {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %+v", what, h)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// EnableEmbeddings points the worker at the embeddings endpoint url
// (settings API, with the secret) and waits until every stored row has a
// vector of model.
func (s *Server) EnableEmbeddings(t testing.TB, url, model string, dims int) {
	t.Helper()
	body := fmt.Sprintf(`{"embeddings":{"url":%q,"model":%q,"dimensions":%d}}`, url, model, dims)
	if status, b := s.Do(t, "PUT", "/api/settings", body, nil); status != 200 {
		t.Fatalf("PUT embeddings settings: %d %s", status, b)
	}
	s.WaitEmbeddings(t, "every row embedded", func(h api.EmbeddingsHealth) bool {
		return h.State == "ok" && h.Model == model && h.Embedded == h.Total
	})
	s.WaitVectorIndex(t)
}

// WaitVectorIndex waits until no load of the vector index is under way
// (60 s at most). The index loads in the background once rows are
// embedded (slowly on a loaded machine, and on PostgreSQL): a semantic
// search answers 503 until it has.
func (s *Server) WaitVectorIndex(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for modelstest.VectorIndexLoading(s.Store) {
		if time.Now().After(deadline) {
			t.Fatal("the vector index was still loading after 60 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
