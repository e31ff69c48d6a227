package models

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
)

// unitVector is embedtest's vector of text, scaled to length 1 as the
// client scales what an endpoint answers.
func unitVector(text string) []float32 {
	v := embedtest.Vector(text, 64)
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

// embedAll embeds every pending row of f's store for model.
func embedAll(t *testing.T, s *Store, model string) int {
	t.Helper()
	ctx := context.Background()
	items, err := s.PendingEmbeddings(ctx, model, 1000)
	if err != nil {
		t.Fatal(err)
	}
	vecs := make([][]float32, len(items))
	for i, it := range items {
		vecs[i] = unitVector(it.Text)
	}
	if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.SaveEmbeddings(model, items, vecs) }); err != nil {
		t.Fatal(err)
	}
	return len(items)
}

// TestEmbeddings: every searchable row is pending until embedded, again
// for another model; a semantic search finds the closest rows within its
// filters; forgetting a row deletes its vector.
func TestEmbeddings(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testEmbeddings)
}

func testEmbeddings(t *testing.T, f *searchFixture) {
	ctx := context.Background()
	s := f.s
	rows := len(f.obs) + len(f.prompts) + 1
	if n := embedAll(t, s, "m1"); n != rows {
		t.Fatalf("embedded %d rows, want %d", n, rows)
	}
	if items, err := s.PendingEmbeddings(ctx, "m1", 100); err != nil || len(items) != 0 {
		t.Fatalf("pending after embedding: %v %v", items, err)
	}
	if done, total, err := s.EmbeddingProgress(ctx, "m1"); err != nil || done != int64(rows) || total != int64(rows) {
		t.Errorf("progress %d/%d %v, want %d/%d", done, total, err, rows, rows)
	}
	// A new model: everything is pending again, and the old vectors are
	// replaced, not kept beside.
	if items, _ := s.PendingEmbeddings(ctx, "m2", 100); len(items) != rows {
		t.Errorf("pending for a new model: %d, want %d", len(items), rows)
	}

	search := func(q SearchQuery, text string) []string {
		t.Helper()
		q.Limit = 3
		hits, err := s.SemanticSearch(ctx, q, "m1", unitVector(text))
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range hits {
			if !h.Ranked || h.Score < -1.0001 || h.Score > 1.0001 || h.Rank != -h.Score || h.Title == "" || h.CreatedAt.IsZero() ||
				i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("hit %+v: want ranked by a cosine similarity, with details", h)
			}
		}
		return f.keys(hits)
	}
	// The prompt about the websocket and the run whose output names it.
	if got := search(SearchQuery{}, "flaky websocket reconnect timeout"); !(got[0] == "o:ws" && got[1] == "p:beta" || got[0] == "p:beta" && got[1] == "o:ws") {
		t.Errorf("closest to the websocket: %v", got)
	}
	if got := search(SearchQuery{Type: SearchPrompt}, "websocket reconnect"); !reflect.DeepEqual(got[:1], []string{"p:beta"}) {
		t.Errorf("prompts only: %v", got)
	}
	for _, h := range search(SearchQuery{Project: "alpha"}, "websocket reconnect") {
		if h == "o:ws" || h == "o:grep" || h == "p:beta" {
			t.Errorf("project alpha found %s of beta", h)
		}
	}
	if got := search(SearchQuery{Tool: "Grep"}, "schema"); !reflect.DeepEqual(got, []string{"o:grep"}) {
		t.Errorf("tool Grep: %v", got)
	}
	if got := search(SearchQuery{ExcludeSessionID: f.sessB, Type: SearchObservation}, "websocket reconnect"); len(got) != 3 || got[0] == "o:ws" {
		t.Errorf("without session b: %v", got)
	}

	// Forgetting a row deletes its vector (the trigger), on both backends.
	if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.ForgetObservation(f.obs["ws"], nil); return err }); err != nil {
		t.Fatal(err)
	}
	if done, total, _ := s.EmbeddingProgress(ctx, "m1"); done != int64(rows-1) || total != int64(rows-1) {
		t.Errorf("after forget: %d/%d, want %d/%d", done, total, rows-1, rows-1)
	}
	for _, h := range search(SearchQuery{}, "flaky websocket reconnect timeout") {
		if h == "o:ws" {
			t.Errorf("forgotten row still found")
		}
	}
}

func TestFuseRRF(t *testing.T) {
	t.Parallel()
	h := func(typ string, id int64) SearchHit { return SearchHit{Type: typ, ID: id} }
	text := []SearchHit{h("prompt", 1), h("observation", 2), h("summary", 3)}
	sem := []SearchHit{h("observation", 2), h("observation", 4)}
	got := FuseRRF(text, sem)
	var ids []int64
	for _, x := range got {
		ids = append(ids, x.ID)
	}
	// 2: 1/62+1/61; 1: 1/61; 4: 1/62; 3: 1/63.
	if !reflect.DeepEqual(ids, []int64{2, 1, 4, 3}) {
		t.Errorf("fused order %v", ids)
	}
	if math.Abs(got[0].Score-(1.0/62+1.0/61)) > 1e-12 || got[0].Rank != -got[0].Score {
		t.Errorf("fused score %v", got[0])
	}
}
