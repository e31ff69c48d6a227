package models

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestRestoreMerges: restoring into a session that exists merges by the
// documented keys, sanitises text, keeps a prompt private here private,
// and moves the prompt counter up; a second restore stores nothing.
func TestRestoreMerges(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := t.Context()
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	do := func(fn func(tx *Tx) error) {
		t.Helper()
		if err := s.Writer.Do(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	// Here: the session, its prompt 1 ("p1"), a private prompt "p2", one
	// tool call and one tool-less observation.
	do(func(tx *Tx) error {
		ref, err := tx.EnsureSession(&Session{ClaudeSessionID: "c1", Project: "p", StartedAt: at})
		if err != nil {
			return err
		}
		if _, err := tx.RecordPrompt(ref.ID, "p", "p1", "hello", false, at); err != nil {
			return err
		}
		if _, err := tx.RecordPrompt(ref.ID, "p", "p2", "", true, at); err != nil {
			return err
		}
		tu := "toolu_1"
		if _, err := tx.InsertObservation(&Observation{SessionID: ref.ID, Project: "p", ToolUseID: &tu, Title: "a", CreatedAt: at}); err != nil {
			return err
		}
		_, err = tx.InsertObservation(&Observation{SessionID: ref.ID, Project: "p", Title: "b", CreatedAt: at})
		return err
	})
	tu1, tu2 := "toolu_1", "toolu_2"
	rows := func() *RestoreRows {
		return &RestoreRows{
			Session: Session{ID: 99, ClaudeSessionID: "c1", Project: "p", PromptCounter: 5, StartedAt: at},
			Prompts: []Prompt{
				{ID: 7, Number: 1, PromptID: "p1", Text: "hello", CreatedAt: at},
				{Number: 2, PromptID: "p2", Text: "private here", CreatedAt: at},
				{Number: 4, Text: "bad\x00 \xff text", CreatedAt: at},
			},
			Observations: []Observation{
				{ID: 5, ToolUseID: &tu1, Title: "a", CreatedAt: at},
				{Title: "b", CreatedAt: at},
				{Title: "b", CreatedAt: at.Add(time.Second)},
				{ToolUseID: &tu2, Title: "c\x00", CreatedAt: at},
			},
			Summaries: []Summary{{Kind: SummaryFinal, Request: "r", CreatedAt: at}},
		}
	}
	var got RestoreCounts
	do(func(tx *Tx) (err error) { got, err = tx.Restore(rows()); return err })
	want := RestoreCounts{New: Counts{Prompts: 1, Observations: 2, Summaries: 1}, Existing: Counts{Sessions: 1, Prompts: 2, Observations: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("first restore: %+v, want %+v", got, want)
	}
	do(func(tx *Tx) (err error) { got, err = tx.Restore(rows()); return err })
	if got.New != (Counts{}) {
		t.Errorf("second restore stored %+v", got.New)
	}
	sess, err := s.SessionByClaudeID(ctx, "c1")
	if err != nil || sess.PromptCounter != 5 {
		t.Errorf("prompt counter: %+v %v", sess, err)
	}
	prompts, _ := s.PromptsOfSession(ctx, sess.ID)
	if len(prompts) != 2 || prompts[1].Text != "bad \uFFFD text" {
		t.Errorf("prompts: %+v", prompts)
	}
	obs, _ := s.ObservationsOfSession(ctx, sess.ID)
	if len(obs) != 4 || obs[3].Title != "c" {
		t.Errorf("observations: %+v", obs)
	}
}

// TestRestoreCounterCoversPrompts: a session restored with a prompt
// counter behind its prompts gets the counter moved up, so its next
// prompt takes a new number instead of colliding (which failed every
// prompt of the session after it).
func TestRestoreCounterCoversPrompts(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	rows := &RestoreRows{
		Session: Session{ClaudeSessionID: "behind", StartedAt: at},
		Prompts: []Prompt{{Number: 3, Text: "third", CreatedAt: at}},
	}
	var numbers []int
	err := s.Writer.Do(t.Context(), func(tx *Tx) error {
		if _, err := tx.Restore(rows); err != nil {
			return err
		}
		sid, err := tx.SessionIDOf("behind")
		if err != nil {
			return err
		}
		numbers = numbers[:0]
		for i := range 3 {
			res, err := tx.RecordPrompt(sid, "", fmt.Sprint("next", i), "next", false, at)
			if err != nil {
				return err
			}
			numbers = append(numbers, res.Number)
		}
		return nil
	})
	if err != nil || fmt.Sprint(numbers) != "[4 5 6]" {
		t.Fatalf("the prompts after the restored one: %v, %v; want numbers 4, 5, 6", numbers, err)
	}
}
