package models

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedForget stores two sessions of project p, each with two prompts, two
// observations per prompt, a turn summary and job per prompt, with mark in
// every text of session 1's second prompt (its turn). The session rows are
// updated a few times, as ingest does, so old copies of them are left in
// free space.
func seedForget(t *testing.T, s *Store, mark string) (sessions [2]int64) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	for si := range 2 {
		err := s.Writer.Do(ctx, func(tx *Tx) error {
			sess := Session{ClaudeSessionID: fmt.Sprintf("s%d-%s", si, mark), Project: "p", Cwd: "/home/" + mark, PromptCounter: 2, StartedAt: now, Status: StatusActive}
			if err := tx.Insert(&sess); err != nil {
				return err
			}
			sessions[si] = sess.ID
			for n := 1; n <= 2; n++ {
				text := fmt.Sprintf("prompt %d of %d", n, si)
				if n == 2 {
					text += " " + mark
				}
				p := Prompt{SessionID: sess.ID, Project: "p", Number: n, Text: text, CreatedAt: now}
				if err := tx.Insert(&p); err != nil {
					return err
				}
				if _, err := tx.AppendEvent(EventPrompt, "p", sess.ID, p.ID, map[string]any{"text": text}); err != nil {
					return err
				}
				for k := range 2 {
					o := Observation{SessionID: sess.ID, Project: "p", PromptNumber: n, ToolName: "Bash", Kind: "bash",
						Title: text + fmt.Sprintf(" call %d", k), Output: "out " + text, Files: []string{"/f/" + text}, Success: true, CreatedAt: now}
					if _, err := tx.InsertObservation(&o); err != nil {
						return err
					}
					if _, err := tx.AppendEvent(EventObservation, "p", sess.ID, o.ID, map[string]any{"title": o.Title}); err != nil {
						return err
					}
				}
				sum := Summary{SessionID: sess.ID, Project: "p", PromptNumber: n, Kind: SummaryTurn, Request: text, Learned: "learned " + text, CreatedAt: now}
				if err := tx.InsertSummary(&sum); err != nil {
					return err
				}
				if _, err := tx.AppendEvent(EventSummary, "p", sess.ID, sum.ID, map[string]any{"request": text}); err != nil {
					return err
				}
				mem := Memory{SessionID: sess.ID, Project: "p", PromptNumber: n, Source: SourceAnswer, Kind: MemoryDecision,
					Text: "decided " + text, Files: []string{"/f/" + text}, Idents: []string{"ident" + mark}}
				if _, err := tx.InsertMemory(&mem); err != nil {
					return err
				}
				if _, err := tx.EnqueueJob(sess.ID, SummaryTurn, n, now, now); err != nil {
					return err
				}
				if err := tx.SetLastAssistantMessage(sess.ID, "answer "+text); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FlushSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	return sessions
}

// dataDirHolds reports the files under dir that contain needle.
func dataDirHolds(t *testing.T, dir, needle string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(needle)) {
			found = append(found, path)
		}
		return nil
	})
	return found
}

func countWhere(t *testing.T, s *Store, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := s.db.Raw(q, args...).Row().Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Forgetting a prompt deletes its turn (observations, summary, job,
// events) and nothing else; forgetting a session deletes all of it; and
// after Scrub the marker is in no byte of the data directory.
func TestForgetPromptAndSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStoreIn(t, dir)
	ctx := context.Background()
	const mark = "zqxjkforgetme"
	sessions := seedForget(t, s, mark)
	var promptID int64
	s.db.Raw(`SELECT id FROM prompts WHERE session_id = ? AND number = 2`, sessions[0]).Row().Scan(&promptID)

	var res ForgetResult
	var err error
	err = s.Writer.Do(ctx, func(tx *Tx) error { res, err = tx.ForgetPrompt(promptID, nil); return err })
	if err != nil {
		t.Fatal(err)
	}
	want := ForgetCounts{Prompts: 1, Observations: 2, Summaries: 1, Memories: 1, SummaryJobs: 1, Events: 5}
	if res.Deleted != want {
		t.Fatalf("forget prompt deleted %+v, want %+v", res.Deleted, want)
	}
	if n := countWhere(t, s, `SELECT COUNT(*) FROM observations WHERE session_id = ?`, sessions[0]); n != 2 {
		t.Fatalf("session keeps %d observations, want 2", n)
	}
	if n := countWhere(t, s, `SELECT COUNT(*) FROM sessions WHERE id = ? AND last_assistant_message = ''`, sessions[0]); n != 1 {
		t.Fatal("the session keeps the forgotten turn's answer")
	}
	hits, err := s.Search(ctx, SearchQuery{Q: mark})
	if err != nil {
		t.Fatal(err)
	}
	// Session 1's turn still holds it.
	for _, h := range hits {
		if h.SessionID == sessions[0] {
			t.Fatalf("search finds the forgotten turn: %+v", h)
		}
	}

	err = s.Writer.Do(ctx, func(tx *Tx) error { res, err = tx.ForgetSession(sessions[1]); return err })
	if err != nil {
		t.Fatal(err)
	}
	want = ForgetCounts{Sessions: 1, Prompts: 2, Observations: 4, Summaries: 2, Memories: 2, SummaryJobs: 2, Events: 10}
	if res.Deleted != want {
		t.Fatalf("forget session deleted %+v, want %+v", res.Deleted, want)
	}
	// The first session's id is still in its own rows; the marker only in
	// its claude id and cwd: forget it too, then nothing is left.
	if err := s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.ForgetSession(sessions[0]); return err }); err != nil {
		t.Fatal(err)
	}
	tables := []string{"sessions", "prompts", "observations", "summaries", "summary_jobs", "memories"}
	if !s.Postgres() {
		tables = append(tables, "observations_fts_pending") // SQLite's search index queue
	}
	for _, tb := range tables {
		if n := countWhere(t, s, `SELECT COUNT(*) FROM `+tb); n != 0 {
			t.Errorf("%s keeps %d rows", tb, n)
		}
	}
	if n := countWhere(t, s, `SELECT COUNT(*) FROM events WHERE kind != ?`, EventForgotten); n != 0 {
		t.Errorf("the event log keeps %d events", n)
	}
	if _, err := s.Scrub(ctx, true); err != nil {
		t.Fatal(err)
	}
	// On PostgreSQL the data directory holds no database: trivially true.
	if files := dataDirHolds(t, dir, mark); len(files) > 0 {
		t.Fatalf("after forget and scrub, %v hold the marker", files)
	}
	err = s.Writer.Do(ctx, func(tx *Tx) error { _, err := tx.ForgetSession(sessions[0]); return err })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("forgetting a forgotten session: %v, want ErrNotFound", err)
	}
}

// Forgetting an observation with no SummaryRebuilder deletes the
// summaries made from it (its turn's), with their events, rather than
// leave them quoting it; the other turn's summary stays.
func TestForgetObservationDeletesQuotingSummaries(t *testing.T) {
	t.Parallel()
	s := openTestStoreIn(t, t.TempDir())
	ctx := context.Background()
	const mark = "zqxjkquotedobs"
	sessions := seedForget(t, s, mark)
	var obsID, sumID int64
	s.db.Raw(`SELECT id FROM observations WHERE session_id = ? AND prompt_number = 2 ORDER BY id LIMIT 1`, sessions[0]).Row().Scan(&obsID)
	s.db.Raw(`SELECT id FROM summaries WHERE session_id = ? AND prompt_number = 2`, sessions[0]).Row().Scan(&sumID)
	var res ForgetResult
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		var err error
		res, err = tx.ForgetObservation(obsID, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (ForgetCounts{Observations: 1, Summaries: 1, Events: 2}); res.Deleted != want || len(res.Rebuilt) != 0 {
		t.Fatalf("forget observation: %+v, want %+v", res, want)
	}
	if n := countWhere(t, s, `SELECT COUNT(*) FROM summaries WHERE id = ?`, sumID); n != 0 {
		t.Fatal("the turn's summary, made from the observation, is kept")
	}
	if n := countWhere(t, s, `SELECT COUNT(*) FROM summaries WHERE session_id = ?`, sessions[0]); n != 1 {
		t.Fatalf("session keeps %d summaries, want the other turn's", n)
	}
	if n := countWhere(t, s, `SELECT COUNT(*) FROM events WHERE kind = 'summary' AND ref_id = ?`, sumID); n != 0 {
		t.Fatal("the deleted summary's event is kept")
	}
}
