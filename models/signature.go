package models

import (
	"context"
	"database/sql"
	"time"

	"github.com/mneme-dev/mneme/internal/failsig"
	"gorm.io/gorm"
)

// backfillSignatures gives every failure stored before signatures its
// own (a migration follow-up, issue #35), derived from its tool, command
// and error as stored (already redacted). Like retitleBash it reads a
// batch of rows at a time, by id, and writes only the signatures that
// differ, so a second run changes nothing. Excluded stubs get none.
func backfillSignatures(ctx context.Context, tx *sql.Tx, postgres bool) error {
	return rederive(ctx, tx, postgres, "signature", `SELECT id, tool_name, input, output, signature FROM observations
		WHERE NOT success AND excluded_by = '' AND id > ? ORDER BY id LIMIT ?`, func(rows *sql.Rows) (int64, string, string, error) {
		var o Observation
		err := rows.Scan(&o.ID, &o.ToolName, &o.Input, &o.Output, &o.Signature)
		return o.ID, o.Signature, failsig.Key(o.ToolName, o.Input, o.Output), err
	})
}

// BeforeCreate fills a failure's signature when it is stored through
// GORM (fixtures, the benchmarks' seeds), as InsertObservation does.
func (o *Observation) BeforeCreate(*gorm.DB) error {
	if o.Signature == "" && !o.Success && o.ExcludedBy == "" {
		o.Signature = failsig.Key(o.ToolName, o.Input, o.Output)
	}
	return nil
}

// failureColumns are what the "seen before" lookups read of a call:
// everything but its output, and of its input only a Bash call's command
// (cut to 2,000 bytes), which tells what redid it.
const failureColumns = "id, session_id, project, prompt_number, tool_use_id, tool_name, kind, title, files, success, importance, duration_ms, excluded_by, command_kind, test_outcome, file_created, signature, created_at, " +
	"CASE WHEN tool_name = 'Bash' THEN substr(input, 1, 2000) ELSE '' END AS input"

// EarlierFailures lists up to limit observations of project with
// signature, stored before observation before (0: any), outside session
// exclude (0: none), newest first, without input and output.
func (s *Store) EarlierFailures(ctx context.Context, project, signature string, before, exclude int64, limit int) ([]Observation, error) {
	if signature == "" {
		return nil, nil
	}
	q := s.db.WithContext(ctx).Model(&Observation{}).Select(failureColumns).
		Where("project = ? AND signature = ? AND signature <> ''", project, signature) // <> '': the partial index's own condition
	if before > 0 {
		q = q.Where("id < ?", before)
	}
	if exclude > 0 {
		q = q.Where("session_id <> ?", exclude)
	}
	var out []Observation
	err := q.Order("id DESC").Limit(limit).Find(&out).Error
	return out, err
}

// SessionObservationsAfter lists up to limit observations of session
// stored after observation after, in order, with their command (a Bash
// call's input, cut to its first 2,000 bytes) but not their output: what
// tells whether and how a failure was fixed later in its session.
func (s *Store) SessionObservationsAfter(ctx context.Context, sessionID, after int64, limit int) ([]Observation, error) {
	var out []Observation
	err := s.db.WithContext(ctx).Model(&Observation{}).
		Select(failureColumns).
		Where("session_id = ? AND id > ?", sessionID, after).Order("id").Limit(limit).Find(&out).Error
	return out, err
}

// SeenBefore is the earlier failure a failure was seen as (the newest
// with its signature in another session of its project) and its fix, as
// the viewer marks it; never stored.
type SeenBefore struct {
	ID        int64     `json:"id"`
	SessionID int64     `json:"sessionId"`
	At        time.Time `json:"at"`
	FixedByID int64     `json:"fixedById,omitempty"`
	FixedBy   string    `json:"fixedBy,omitempty"`
}
