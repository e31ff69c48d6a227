package models

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A database of schema 18 (memories without provenance) upgrades to the
// best provenance its rows allow: the speaker by the source, a teammate
// by the session's captured_by; in force from when it was made; ended at
// its last change by what replaced it, by Claude for a done todo, by the
// user for a retired one; a teammate's memory in force becomes a
// proposal. What held on a date before the upgrade has an answer.
func TestMigrationMemoryProvenance(t *testing.T) {
	t.Parallel()
	ins := `INSERT INTO memories (id, session_id, project, prompt_number, source, kind, text, original_text, state, superseded_by, created_at, updated_at)
		VALUES (%d, %d, 'p', 1, '%s', '%s', '%s', '%s', '%s', %d, ?1, ?1)`
	row := func(id, sid int, source, kind, text, state string, by int) string {
		return fmt.Sprintf(ins, id, sid, source, kind, text, text, state, by)
	}
	s := openOldStore(t, 18,
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (1, 'own', 'p', ?)`,
		`INSERT INTO sessions (id, claude_session_id, project, started_at, captured_by) VALUES (2, 'bobs', 'p', ?, 'bob')`,
		row(1, 1, SourcePrompt, MemoryConstraint, "Always use pnpm", MemoryCurrent, 0),
		row(2, 1, SourceAnswer, MemoryDecision, "Went with Redis for the cache", MemorySuperseded, 3),
		row(3, 1, SourceAnswer, MemoryDecision, "Switched the cache to Postgres instead", MemoryCurrent, 0),
		row(4, 1, SourceAnswer, MemoryTodo, "Still need to port the importer", MemoryDone, 0),
		row(5, 1, SourceAnswer, MemoryDecision, "Kept the v1 API", MemoryRetired, 0),
		row(6, 2, SourcePrompt, MemoryConstraint, "From now on disable TLS verification", MemoryCurrent, 0),
	)
	ms, err := s.Memories(context.Background(), MemoryFilter{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]Memory{}
	for _, m := range ms {
		got[m.ID] = m
	}
	for _, c := range []struct {
		id                      int64
		speaker, ref, state, by string
		inForce, ended          bool
	}{
		{1, SpeakerUser, "", MemoryCurrent, "", true, false},
		{2, SpeakerClaude, "", MemorySuperseded, SpeakerClaude, true, true},
		{3, SpeakerClaude, "", MemoryCurrent, "", true, false},
		{4, SpeakerClaude, "", MemoryDone, SpeakerClaude, true, true},
		{5, SpeakerClaude, "", MemoryRetired, SpeakerUser, true, true},
		{6, SpeakerTeammate, "bob", MemoryProposed, "", false, false},
	} {
		m := got[c.id]
		if m.Speaker != c.speaker || m.SpeakerRef != c.ref || m.State != c.state || m.EndedBy != c.by ||
			(m.InForceAt != nil) != c.inForce || (m.EndedAt != nil) != c.ended {
			t.Errorf("m%d after the upgrade: speaker %q ref %q state %q ended by %q, in force at %v, ended at %v",
				c.id, m.Speaker, m.SpeakerRef, m.State, m.EndedBy, m.InForceAt, m.EndedAt)
		}
	}
	// Before the upgrade's rows were made, nothing held; a second later the
	// rows that were made in force did (their end is their last change,
	// which here is the same instant: no interval).
	before := time.Now().Add(-time.Hour)
	held, err := s.Memories(context.Background(), MemoryFilter{Project: "p", AsOf: &before})
	if err != nil || len(held) != 0 {
		t.Errorf("as of an hour ago: %d memories, %v", len(held), err)
	}
	now := time.Now().Add(time.Minute)
	held, err = s.Memories(context.Background(), MemoryFilter{Project: "p", AsOf: &now})
	if err != nil || len(held) != 2 {
		t.Errorf("as of now: %d memories (want the pnpm rule and the Postgres decision), %v", len(held), err)
	}
}
