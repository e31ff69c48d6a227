package fullexport

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// TestRestoreCheck: a session of a full export holding a value capture
// never stores is refused, with the field named (issue 21, point 2: a
// promptCounter of 9223372036854775807 made the session's next prompt
// fail); what mneme exports passes.
func TestRestoreCheck(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	at := now.Add(-time.Hour)
	good := func() *models.RestoreRows {
		ended := at.Add(time.Minute)
		return &models.RestoreRows{
			Session:      models.Session{ClaudeSessionID: "c1", Status: models.StatusCompleted, PromptCounter: 2, StartedAt: at, EndedAt: &ended},
			Prompts:      []models.Prompt{{Number: 1, CreatedAt: at}, {Number: 2, CreatedAt: at}},
			Observations: []models.Observation{{PromptNumber: 2, Kind: models.KindBash, CommandKind: models.CommandTest, Importance: 0.9, DurationMS: 12, CreatedAt: at}},
			Summaries:    []models.Summary{{Kind: models.SummaryTurn, PromptNumber: 2, InputTokens: 10, OutputTokens: 5, CostUSD: 0.01, CreatedAt: at}, {Kind: models.SummaryFinal, CreatedAt: at}},
		}
	}
	if err := Check(good(), now); err != nil {
		t.Fatalf("a session as mneme exports it is refused: %v", err)
	}
	epoch := time.Unix(0, 0).UTC()
	for _, tc := range []struct {
		field string
		craft func(r *models.RestoreRows)
	}{
		{"session.promptCounter 9223372036854775807 is out of range", func(r *models.RestoreRows) { r.Session.PromptCounter = math.MaxInt64 }},
		{"session.promptCounter -1 is out of range", func(r *models.RestoreRows) { r.Session.PromptCounter = -1 }},
		{`session.status "hacked" must be active or completed`, func(r *models.RestoreRows) { r.Session.Status = "hacked" }},
		{"session.claudeSessionId", func(r *models.RestoreRows) { r.Session.ClaudeSessionID = "" }},
		{"session.startedAt is missing", func(r *models.RestoreRows) { r.Session.StartedAt = time.Time{} }},
		{"session.startedAt 1969-12-31T23:59:59Z is not a time", func(r *models.RestoreRows) { r.Session.StartedAt = epoch.Add(-time.Second) }},
		{"session.endedAt 2099-", func(r *models.RestoreRows) { e := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC); r.Session.EndedAt = &e }},
		{"prompts[1].number 1000001 is out of range (1 to 1000000)", func(r *models.RestoreRows) { r.Prompts[1].Number = models.MaxPromptCounter + 1 }},
		{"prompts[0].number 0 is out of range", func(r *models.RestoreRows) { r.Prompts[0].Number = 0 }},
		{"prompts[0].createdAt is missing", func(r *models.RestoreRows) { r.Prompts[0].CreatedAt = time.Time{} }},
		{"observations[0].importance 1.5 must be between 0 and 1", func(r *models.RestoreRows) { r.Observations[0].Importance = 1.5 }},
		{"observations[0].importance -0.1", func(r *models.RestoreRows) { r.Observations[0].Importance = -0.1 }},
		{"observations[0].importance NaN", func(r *models.RestoreRows) { r.Observations[0].Importance = math.NaN() }},
		{"observations[0].durationMs -5 must not be negative", func(r *models.RestoreRows) { r.Observations[0].DurationMS = -5 }},
		{`observations[0].kind "rootkit" is not a kind`, func(r *models.RestoreRows) { r.Observations[0].Kind = "rootkit" }},
		{`observations[0].commandKind "x"`, func(r *models.RestoreRows) { r.Observations[0].CommandKind = "x" }},
		{"observations[0].promptNumber -9 is out of range (0 to 1000000)", func(r *models.RestoreRows) { r.Observations[0].PromptNumber = -9 }},
		{`summaries[0].kind "epic"`, func(r *models.RestoreRows) { r.Summaries[0].Kind = "epic" }},
		{"summaries[0].costUsd -1 must not be negative", func(r *models.RestoreRows) { r.Summaries[0].CostUSD = -1 }},
		{"summaries[0].costUsd +Inf", func(r *models.RestoreRows) { r.Summaries[0].CostUSD = math.Inf(1) }},
		{"summaries[1].inputTokens -3", func(r *models.RestoreRows) { r.Summaries[1].InputTokens = -3 }},
		{"summaries[1].outputTokens -3", func(r *models.RestoreRows) { r.Summaries[1].OutputTokens = -3 }},
		{"summaries[0].promptNumber -1", func(r *models.RestoreRows) { r.Summaries[0].PromptNumber = -1 }},
	} {
		r := good()
		tc.craft(r)
		err := Check(r, now)
		if err == nil || !errors.Is(err, models.ErrInvalid) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("crafted %s: Check = %v", tc.field, err)
		}
	}
	// The edges are allowed: the epoch, a clock a little ahead, an empty
	// status, importance 0 and 1, the most prompts.
	r := good()
	r.Session.Status, r.Session.StartedAt, r.Session.PromptCounter = "", epoch, models.MaxPromptCounter
	r.Observations[0].Importance, r.Observations[0].CreatedAt = 1, now.Add(48*time.Hour)
	r.Summaries[0].Kind = models.SummaryIntermediate
	if err := Check(r, now); err != nil {
		t.Errorf("edge values refused: %v", err)
	}
}
