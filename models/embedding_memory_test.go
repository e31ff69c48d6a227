package models

import (
	"context"
	"testing"
)

// TestMemoryEmbeddings: memories are embedded like the other rows (one
// stated outside a session too), found by a semantic search of memories
// and never among the rows of all types; editing a memory's text drops
// its vector so it is embedded again from the new text, and forgetting
// it leaves no vector, on both backends (migration 18 / PostgreSQL 8).
func TestMemoryEmbeddings(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, f *searchFixture) {
		ctx := context.Background()
		s := f.s
		mems := map[string]*Memory{
			"pnpm":   {SessionID: f.sessA, Project: "alpha", Source: SourceUser, Kind: MemoryConstraint, Text: "use pnpm, never npm, for the frontend packages"},
			"sqlite": {Project: "alpha", Source: SourceClaude, Kind: MemoryDecision, Text: "keep SQLite migrations append-only"},
			"ws":     {SessionID: f.sessB, Project: "beta", Source: SourceAnswer, Kind: MemoryCause, Text: "the websocket reconnect timed out because the proxy idles at 5 s"},
		}
		err := s.Writer.Do(ctx, func(tx *Tx) error {
			for _, m := range mems {
				if _, err := tx.InsertMemory(m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		rows := len(f.obs) + len(f.prompts) + 1 + len(mems)
		if n := embedAll(t, s, "m1"); n != rows {
			t.Fatalf("embedded %d rows, want %d (memories included)", n, rows)
		}
		if n, err := s.vectorCount(ctx, SearchMemory, nil); err != nil || n != int64(len(mems)) {
			t.Fatalf("memory vectors: %d %v, want %d", n, err, len(mems))
		}
		if done, total, err := s.EmbeddingProgress(ctx, "m1"); err != nil || done != int64(rows) || total != int64(rows) {
			t.Errorf("progress %d/%d %v, want %d/%d", done, total, err, rows, rows)
		}
		// Looks that find nothing, the indexer idle: the other tables'
		// marks move past their rows and the idle count is taken
		// (embedding_pending.go); memories have no mark, so an edit
		// below is found at the next look, not at the next count.
		for range 2 {
			if pending, err := s.PendingEmbeddings(ctx, "m1", 10); err != nil || len(pending) != 0 {
				t.Fatalf("pending once everything is embedded: %+v %v", pending, err)
			}
		}

		search := func(q SearchQuery, text string) []SearchHit {
			t.Helper()
			q.Limit = 5
			hits, err := s.SemanticSearch(ctx, q, "m1", unitVector(text))
			if err != nil {
				t.Fatal(err)
			}
			return hits
		}
		hits := search(SearchQuery{Type: SearchMemory}, "websocket reconnect proxy timeout")
		if len(hits) != len(mems) || hits[0].ID != mems["ws"].ID || hits[0].Type != SearchMemory || hits[0].Kind != MemoryCause || hits[0].Title == "" {
			t.Errorf("memory search: %+v, want the websocket cause first of the %d memories", hits, len(mems))
		}
		if hits := search(SearchQuery{Type: SearchMemory, Project: "alpha"}, "append-only sqlite migrations"); len(hits) != 2 || hits[0].ID != mems["sqlite"].ID || hits[0].SessionID != 0 {
			t.Errorf("alpha's memories: %+v, want the SQLite decision (no session) first of 2", hits)
		}
		for _, h := range search(SearchQuery{}, "websocket reconnect proxy timeout") {
			if h.Type == SearchMemory {
				t.Errorf("a search of all types found memory %d", h.ID)
			}
		}

		// Editing the text drops the vector: pending again, with the new text.
		if err := s.Writer.Do(ctx, func(tx *Tx) error {
			_, err := tx.EditMemory(mems["pnpm"].ID, "use yarn for the frontend packages")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.vectorCount(ctx, SearchMemory, []int64{mems["pnpm"].ID}); n != 0 {
			t.Errorf("edited memory kept %d vectors", n)
		}
		pending, err := s.PendingEmbeddings(ctx, "m1", 10)
		if err != nil || len(pending) != 1 || pending[0].Type != SearchMemory || pending[0].Text != "use yarn for the frontend packages" {
			t.Errorf("pending after the edit: %+v %v", pending, err)
		}
		// Pinning does not touch the text: the vector stays.
		if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.PinMemory(mems["ws"].ID, true); return err }); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.vectorCount(ctx, SearchMemory, []int64{mems["ws"].ID}); n != 1 {
			t.Errorf("pinned memory has %d vectors, want 1", n)
		}

		// Forgetting it leaves none.
		if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.ForgetMemory(mems["ws"].ID); return err }); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.vectorCount(ctx, SearchMemory, []int64{mems["ws"].ID}); n != 0 {
			t.Errorf("forgotten memory kept %d vectors", n)
		}
		for _, h := range search(SearchQuery{Type: SearchMemory}, "websocket reconnect proxy timeout") {
			if h.ID == mems["ws"].ID {
				t.Error("the forgotten memory is still found")
			}
		}
	})
}
