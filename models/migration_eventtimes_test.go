package models

import (
	"context"
	"testing"
	"time"
)

// TestMigrationEventTimes: a database that imported last month's session
// before migration 14 (its summaries and events stamped with the import
// time) has them moved to the time of what they announce: the turn
// summary to its turn's last tool call, the final one to the session's
// end, each event to its row's time.
func TestMigrationEventTimes(t *testing.T) {
	t.Parallel()
	const day = "2026-10-01 10:0"
	s := openOldStore(t, 13,
		`INSERT INTO sessions (id, claude_session_id, project, status, started_at, ended_at, prompt_counter) VALUES (1, 's', 'p', 'completed', '`+day+`0:00+00:00', '`+day+`5:00+00:00', 1)`,
		`INSERT INTO prompts (id, session_id, project, number, text, created_at) VALUES (1, 1, 'p', 1, 'fix it', '`+day+`1:00+00:00')`,
		`INSERT INTO observations (id, session_id, project, prompt_number, tool_name, kind, title, input, output, files, created_at) VALUES (1, 1, 'p', 1, 'Bash', 'bash', 'Ran make', 'make', 'ok', '[]', '`+day+`2:00+00:00')`,
		`INSERT INTO summaries (id, session_id, project, prompt_number, kind, request, created_at) VALUES (1, 1, 'p', 1, 'turn', 'fix it', ?)`,
		`INSERT INTO summaries (id, session_id, project, prompt_number, kind, request, created_at) VALUES (2, 1, 'p', 1, 'final', 'fix it, and more', ?)`,
		`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES ('session_started', 'p', 1, 1, '{}', ?)`,
		`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES ('prompt', 'p', 1, 1, '{}', ?)`,
		`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES ('observation', 'p', 1, 1, '{}', ?)`,
		`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES ('summary', 'p', 1, 1, '{}', ?)`,
		`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES ('session_completed', 'p', 1, 1, '{}', ?)`,
		`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES ('summary', 'p', 1, 2, '{}', ?)`,
	)
	ctx := context.Background()
	at := func(min int) time.Time { return time.Date(2026, 10, 1, 10, min, 0, 0, time.UTC) }
	sums, err := s.SummariesOfSession(ctx, 1)
	if err != nil || len(sums) != 2 {
		t.Fatalf("summaries %+v, %v", sums, err)
	}
	if !sums[0].CreatedAt.Equal(at(2)) || !sums[1].CreatedAt.Equal(at(5)) {
		t.Errorf("summaries at %s and %s, want the turn's last tool call %s and the session's end %s", sums[0].CreatedAt, sums[1].CreatedAt, at(2), at(5))
	}
	evs, err := s.FeedEvents(ctx, FeedQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Time{"session_started": at(0), "prompt": at(1), "observation": at(2), "session_completed": at(5)}
	for _, ev := range evs {
		w, ok := want[ev.Kind]
		if ev.Kind == EventSummary {
			w, ok = map[int64]time.Time{1: at(2), 2: at(5)}[ev.RefID], true
		}
		if !ok || !ev.CreatedAt.Equal(w) {
			t.Errorf("%s event (ref %d) at %s, want %s", ev.Kind, ev.RefID, ev.CreatedAt, w)
		}
	}
	if len(evs) != 6 || evs[0].RefID != 2 || evs[1].Kind != EventSessionCompleted || evs[5].Kind != EventSessionStarted {
		t.Errorf("feed order: %+v", evs)
	}
}
