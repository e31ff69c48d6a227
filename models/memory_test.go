package models

import (
	"context"
	"errors"
	"testing"
	"time"
)

func insertMemories(t *testing.T, s *Store, ms ...*Memory) {
	t.Helper()
	err := s.Writer.Do(context.Background(), func(tx *Tx) error {
		for _, m := range ms {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func memoryTexts(ms []Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

// Memories are stored once per turn and statement, listed by project,
// kind and state (pinned first, newest first), edited with the original
// kept, pinned, retired, superseded and completed, each change announced
// on the live stream; on both backends.
func TestMemoryLifecycle(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	var sessID int64
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		sess := Session{ClaudeSessionID: "mem-1", Project: "p", StartedAt: time.Now().UTC(), Status: StatusActive}
		err := tx.Insert(&sess)
		sessID = sess.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	dec := &Memory{SessionID: sessID, Project: "p", PromptNumber: 1, Source: SourceAnswer, Kind: MemoryDecision,
		Text: "Use SQLite WAL mode for the store", Files: []string{"models/store.go"}, Idents: []string{"DSN"}, Terms: []string{"sqlite", "wal"}}
	con := &Memory{SessionID: sessID, Project: "p", PromptNumber: 1, Source: SourcePrompt, Kind: MemoryConstraint, Text: "never touch vendor/"}
	todo := &Memory{SessionID: sessID, Project: "p", PromptNumber: 1, Source: SourceAnswer, Kind: MemoryTodo, Text: "fix the failing migration test"}
	claude := &Memory{Project: "p", Source: SourceClaude, Kind: MemoryDecision, Text: "Prefer table tests"}
	other := &Memory{Project: "q", Source: SourceClaude, Kind: MemoryDecision, Text: "Another project's decision"}
	insertMemories(t, s, dec, con, todo, claude, other)
	if dec.ID == 0 || claude.ID == 0 {
		t.Fatal("ids not set")
	}
	// The same statement of the same turn again stores nothing.
	again := &Memory{SessionID: sessID, Project: "p", PromptNumber: 1, Source: SourceAnswer, Kind: MemoryDecision, Text: dec.Text}
	err = s.Writer.Do(ctx, func(tx *Tx) error {
		ok, err := tx.InsertMemory(again)
		if ok {
			t.Error("a replayed memory was stored twice")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.InsertMemory(&Memory{Kind: "opinion", Text: "x"}); return err }); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown kind: %v, want ErrInvalid", err)
	}

	got, err := s.MemoryByID(ctx, dec.ID)
	if err != nil || got.SessionID != sessID || got.Files[0] != "models/store.go" || got.Idents[0] != "DSN" || got.State != MemoryCurrent || got.OriginalText != dec.Text {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if c, _ := s.MemoryByID(ctx, claude.ID); c.SessionID != 0 {
		t.Fatalf("a memory without session reads session %d", c.SessionID)
	}

	var edited *Memory
	err = s.Writer.Do(ctx, func(tx *Tx) error {
		if _, err := tx.PinMemory(con.ID, true); err != nil {
			return err
		}
		var err error
		edited, err = tx.EditMemory(dec.ID, "Use SQLite in WAL mode, synchronous NORMAL")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if edited.Text != "Use SQLite in WAL mode, synchronous NORMAL" || edited.OriginalText != dec.Text {
		t.Fatalf("edit: %+v", edited)
	}
	list, err := s.Memories(ctx, MemoryFilter{Project: "p", States: []string{MemoryCurrent}})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 4 || list[0].ID != con.ID || list[1].ID != claude.ID {
		t.Fatalf("current memories of p = %v, want the pinned constraint first then newest first", memoryTexts(list))
	}
	if l, _ := s.Memories(ctx, MemoryFilter{Project: "p", Kinds: []string{MemoryTodo}}); len(l) != 1 || l[0].ID != todo.ID {
		t.Fatalf("todos = %v", memoryTexts(l))
	}
	if l, _ := s.Memories(ctx, MemoryFilter{Project: "p", File: "/home/me/repo/models/store.go"}); len(l) != 1 || l[0].ID != dec.ID {
		t.Fatalf("memories naming the file = %v", memoryTexts(l))
	}
	if l, _ := s.Memories(ctx, MemoryFilter{Project: "p", File: "/home/me/repo/other/store.go"}); len(l) != 0 {
		t.Fatalf("a file of the same name elsewhere: %v", memoryTexts(l))
	}

	newer := &Memory{SessionID: sessID, Project: "p", PromptNumber: 2, Source: SourceAnswer, Kind: MemoryDecision, Text: "Switched the store to PostgreSQL instead of SQLite"}
	insertMemories(t, s, newer)
	err = s.Writer.Do(ctx, func(tx *Tx) error {
		if ok, err := tx.SupersedeMemory(dec.ID, newer.ID); err != nil || !ok {
			t.Errorf("supersede: %v %v", ok, err)
		}
		if ok, _ := tx.SupersedeMemory(con.ID, newer.ID); ok {
			t.Error("a pinned memory was superseded")
		}
		if ok, err := tx.CompleteMemory(todo.ID, SpeakerClaude); err != nil || !ok {
			t.Errorf("complete: %v %v", ok, err)
		}
		if ok, _ := tx.CompleteMemory(claude.ID, SpeakerClaude); ok {
			t.Error("a decision was marked done")
		}
		_, err := tx.SetMemoryState(claude.ID, MemoryRetired)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := s.Memories(ctx, MemoryFilter{Project: "p", States: []string{MemoryCurrent}})
	if len(cur) != 2 || cur[0].ID != con.ID || cur[1].ID != newer.ID {
		t.Fatalf("current after changes = %v", memoryTexts(cur))
	}
	chain, err := s.SupersessionChain(ctx, newer.ID)
	if err != nil || len(chain) != 2 || chain[0].ID != dec.ID || chain[1].ID != newer.ID || chain[0].SupersededBy != newer.ID {
		t.Fatalf("chain = %+v, %v", chain, err)
	}
	counts, err := s.MemoryCounts(ctx, "p")
	if err != nil || counts[MemoryDecision][MemorySuperseded] != 1 || counts[MemoryTodo][MemoryDone] != 1 || counts[MemoryDecision][MemoryRetired] != 1 {
		t.Fatalf("counts = %v, %v", counts, err)
	}

	// Full-text search, limited by kind and state.
	hits, err := s.SearchMemories(ctx, MemorySearch{Q: "postgresql", Project: "p"})
	if err != nil || len(hits) != 1 || hits[0].ID != newer.ID {
		t.Fatalf("search = %v, %v", memoryTexts(hits), err)
	}
	if hits, _ := s.SearchMemories(ctx, MemorySearch{Q: "synchronous", Project: "p"}); len(hits) != 1 {
		t.Fatalf("the edited text is not searched: %v", memoryTexts(hits))
	}
	if hits, _ := s.SearchMemories(ctx, MemorySearch{Q: "sqlite", Kinds: []string{MemoryConstraint}}); len(hits) != 0 {
		t.Fatalf("kind filter: %v", memoryTexts(hits))
	}
	if hits, _ := s.SearchMemories(ctx, MemorySearch{Q: "sqlite", States: []string{MemoryCurrent}}); len(hits) != 1 || hits[0].ID != newer.ID {
		t.Fatalf("state filter: %v", memoryTexts(hits))
	}
	if _, err := s.SearchMemories(ctx, MemorySearch{Q: `"open`}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad query: %v", err)
	}

	// Forgetting the newer memory puts the one it superseded back in force.
	err = s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.ForgetMemory(newer.ID); return err })
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := s.MemoryByID(ctx, dec.ID); m.State != MemoryCurrent || m.SupersededBy != 0 {
		t.Fatalf("after forgetting its replacement: %+v", m)
	}
	if n := countWhere(t, s, `SELECT COUNT(*) FROM events WHERE kind = 'memory' AND ref_id = ?`, newer.ID); n != 0 {
		t.Fatalf("%d events of the forgotten memory remain", n)
	}
	// Every change was logged for the live stream: 11, less the forgotten
	// memory's one.
	if n := countWhere(t, s, `SELECT COUNT(*) FROM events WHERE kind = 'memory'`); n != 10 {
		t.Fatalf("%d memory events logged, want 10", n)
	}
}
