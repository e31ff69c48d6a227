package models

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestRestoreCheck: a session of a full export holding a value capture
// never stores is refused, with the field named (issue 21, point 2: a
// promptCounter of 9223372036854775807 made the session's next prompt
// fail); what mneme exports passes.
func TestRestoreCheck(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	at := now.Add(-time.Hour)
	good := func() *RestoreRows {
		ended := at.Add(time.Minute)
		return &RestoreRows{
			Session:      Session{ClaudeSessionID: "c1", Status: StatusCompleted, PromptCounter: 2, StartedAt: at, EndedAt: &ended},
			Prompts:      []Prompt{{Number: 1, CreatedAt: at}, {Number: 2, CreatedAt: at}},
			Observations: []Observation{{PromptNumber: 2, Kind: KindBash, CommandKind: CommandTest, Importance: 0.9, DurationMS: 12, CreatedAt: at}},
			Summaries:    []Summary{{Kind: SummaryTurn, PromptNumber: 2, InputTokens: 10, OutputTokens: 5, CostUSD: 0.01, CreatedAt: at}, {Kind: SummaryFinal, CreatedAt: at}},
		}
	}
	if err := good().Check(now); err != nil {
		t.Fatalf("a session as mneme exports it is refused: %v", err)
	}
	epoch := time.Unix(0, 0).UTC()
	for _, tc := range []struct {
		field string
		craft func(r *RestoreRows)
	}{
		{"session.promptCounter 9223372036854775807 is out of range", func(r *RestoreRows) { r.Session.PromptCounter = math.MaxInt64 }},
		{"session.promptCounter -1 is out of range", func(r *RestoreRows) { r.Session.PromptCounter = -1 }},
		{`session.status "hacked" must be active or completed`, func(r *RestoreRows) { r.Session.Status = "hacked" }},
		{"session.claudeSessionId", func(r *RestoreRows) { r.Session.ClaudeSessionID = "" }},
		{"session.startedAt is missing", func(r *RestoreRows) { r.Session.StartedAt = time.Time{} }},
		{"session.startedAt 1969-12-31T23:59:59Z is not a time", func(r *RestoreRows) { r.Session.StartedAt = epoch.Add(-time.Second) }},
		{"session.endedAt 2099-", func(r *RestoreRows) { e := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC); r.Session.EndedAt = &e }},
		{"prompts[1].number 1000001 is out of range (1 to 1000000)", func(r *RestoreRows) { r.Prompts[1].Number = MaxPromptCounter + 1 }},
		{"prompts[0].number 0 is out of range", func(r *RestoreRows) { r.Prompts[0].Number = 0 }},
		{"prompts[0].createdAt is missing", func(r *RestoreRows) { r.Prompts[0].CreatedAt = time.Time{} }},
		{"observations[0].importance 1.5 must be between 0 and 1", func(r *RestoreRows) { r.Observations[0].Importance = 1.5 }},
		{"observations[0].importance -0.1", func(r *RestoreRows) { r.Observations[0].Importance = -0.1 }},
		{"observations[0].importance NaN", func(r *RestoreRows) { r.Observations[0].Importance = math.NaN() }},
		{"observations[0].durationMs -5 must not be negative", func(r *RestoreRows) { r.Observations[0].DurationMS = -5 }},
		{`observations[0].kind "rootkit" is not a kind`, func(r *RestoreRows) { r.Observations[0].Kind = "rootkit" }},
		{`observations[0].commandKind "x"`, func(r *RestoreRows) { r.Observations[0].CommandKind = "x" }},
		{"observations[0].promptNumber -9 is out of range (0 to 1000000)", func(r *RestoreRows) { r.Observations[0].PromptNumber = -9 }},
		{`summaries[0].kind "epic"`, func(r *RestoreRows) { r.Summaries[0].Kind = "epic" }},
		{"summaries[0].costUsd -1 must not be negative", func(r *RestoreRows) { r.Summaries[0].CostUSD = -1 }},
		{"summaries[0].costUsd +Inf", func(r *RestoreRows) { r.Summaries[0].CostUSD = math.Inf(1) }},
		{"summaries[1].inputTokens -3", func(r *RestoreRows) { r.Summaries[1].InputTokens = -3 }},
		{"summaries[1].outputTokens -3", func(r *RestoreRows) { r.Summaries[1].OutputTokens = -3 }},
		{"summaries[0].promptNumber -1", func(r *RestoreRows) { r.Summaries[0].PromptNumber = -1 }},
	} {
		r := good()
		tc.craft(r)
		err := r.Check(now)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("crafted %s: Check = %v", tc.field, err)
		}
	}
	// The edges are allowed: the epoch, a clock a little ahead, an empty
	// status, importance 0 and 1, the most prompts.
	r := good()
	r.Session.Status, r.Session.StartedAt, r.Session.PromptCounter = "", epoch, MaxPromptCounter
	r.Observations[0].Importance, r.Observations[0].CreatedAt = 1, now.Add(48*time.Hour)
	r.Summaries[0].Kind = SummaryIntermediate
	if err := r.Check(now); err != nil {
		t.Errorf("edge values refused: %v", err)
	}
}

// TestRestoreCounterCoversPrompts: a session restored with a prompt
// counter behind its prompts gets the counter moved up, so its next
// prompt takes a new number instead of colliding (which failed every
// prompt of the session after it).
func TestRestoreCounterCoversPrompts(t *testing.T) {
	s := openTestStore(t)
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	rows := &RestoreRows{
		Session: Session{ClaudeSessionID: "behind", StartedAt: at},
		Prompts: []Prompt{{Number: 3, Text: "third", CreatedAt: at}},
	}
	if err := rows.Check(at); err != nil {
		t.Fatal(err)
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
