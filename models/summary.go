package models

import (
	"context"
	"time"
)

// Summary kinds.
const (
	SummaryTurn         = "turn"
	SummaryIntermediate = "intermediate"
	SummaryFinal        = "final"
)

// Summary is a structured account of a turn or a session.
type Summary struct {
	ID                   int64     `gorm:"primaryKey" json:"id"`
	SessionID            int64     `json:"sessionId"`
	Project              string    `json:"project"`
	PromptNumber         int       `json:"promptNumber"`
	Kind                 string    `json:"kind"`
	Request              string    `json:"request"`
	Investigated         string    `json:"investigated"`
	Learned              string    `json:"learned"`
	Completed            string    `json:"completed"`
	NextSteps            string    `json:"nextSteps"`
	LastUserMessage      string    `json:"lastUserMessage,omitempty"`
	LastAssistantMessage string    `json:"lastAssistantMessage,omitempty"`
	Generator            string    `json:"generator"`
	Note                 string    `json:"note,omitempty"`
	InputTokens          int64     `json:"inputTokens"`
	OutputTokens         int64     `json:"outputTokens"`
	CostUSD              float64   `gorm:"column:cost_usd" json:"costUsd"`
	CreatedAt            time.Time `json:"createdAt"`
}

// Summaries lists summaries newest first (one more than Limit).
func (s *Store) Summaries(ctx context.Context, f ListFilter) ([]Summary, error) {
	q := s.DB.WithContext(ctx).Model(&Summary{})
	if f.Project != "" {
		q = q.Where("project = ?", f.Project)
	}
	if f.SessionID != 0 {
		q = q.Where("session_id = ?", f.SessionID)
	}
	var out []Summary
	err := q.Order("id DESC").Offset(f.Offset).Limit(limitPlusOne(f.Limit)).Find(&out).Error
	return out, err
}

// SummariesOfSession lists a session's summaries in order.
func (s *Store) SummariesOfSession(ctx context.Context, sessionID int64) ([]Summary, error) {
	var out []Summary
	err := s.DB.WithContext(ctx).Where("session_id = ?", sessionID).Order("id").Find(&out).Error
	return out, err
}
