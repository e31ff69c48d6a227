package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Reads for session reports and exports (internal/report).

// SessionIDsSince lists the ids of the sessions started at or after since,
// of project when it is not empty, oldest first.
func (s *Store) SessionIDsSince(ctx context.Context, project string, since time.Time) ([]int64, error) {
	var ids []int64
	q := s.db.WithContext(ctx).Model(&Session{}).Where("started_at >= ?", since.UTC())
	if project != "" {
		q = q.Where("project = ?", project)
	}
	err := q.Order("started_at, id").Pluck("id", &ids).Error
	return ids, err
}

// CountObservationsOf counts the observations of the sessions.
func (s *Store) CountObservationsOf(ctx context.Context, sessionIDs []int64) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&Observation{}).Where("session_id IN ?", sessionIDs).Count(&n).Error
	return n, err
}

// CountsOfSession fills st's counts (prompts, tool calls not excluded by
// privacy rules, failures, all observations) for session id.
func (s *Store) CountsOfSession(ctx context.Context, id int64, st *SessionStats) error {
	return s.db.WithContext(ctx).Raw(`SELECT
		(SELECT COUNT(*) FROM prompts WHERE session_id = ?),
		(SELECT COUNT(*) FROM observations WHERE session_id = ? AND excluded_by = ''),
		(SELECT COUNT(*) FROM observations WHERE session_id = ? AND NOT success),
		(SELECT COUNT(*) FROM observations WHERE session_id = ?)`, id, id, id, id).Row().
		Scan(&st.Prompts, &st.ToolCalls, &st.Failures, &st.Observations)
}

// EachObservationOf streams a session's observations in id order, batch
// rows at a time, to fn; the slice is reused between calls. Unless full,
// input is cut to 300 bytes and output is kept only for failures (the
// head of it, for the reason); full carries both whole.
func (s *Store) EachObservationOf(ctx context.Context, sessionID int64, full bool, batch int, fn func([]Observation) error) error {
	q := s.db.WithContext(ctx).Where("session_id = ?", sessionID)
	if !full {
		q = q.Select(`id, session_id, project, prompt_number, tool_use_id, tool_name, kind, title,
			substr(input, 1, 300) AS input, CASE WHEN success THEN '' ELSE substr(output, 1, 2000) END AS output,
			files, success, importance, duration_ms, excluded_by, command_kind, test_outcome, file_created, created_at`)
	}
	var rows []Observation
	return q.FindInBatches(&rows, batch, func(_ *gorm.DB, _ int) error { return fn(rows) }).Error
}
