package models

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"
)

// Session statuses.
const (
	StatusActive    = "active"
	StatusCompleted = "completed"
)

// Session is one Claude Code session, keyed by Claude Code's session_id.
type Session struct {
	ID                   int64      `gorm:"primaryKey" json:"id"`
	ClaudeSessionID      string     `json:"claudeSessionId"`
	Project              string     `json:"project"`
	Cwd                  string     `json:"cwd"`
	GitBranch            string     `json:"gitBranch"`
	Source               string     `json:"source"`
	Status               string     `json:"status"`
	PromptCounter        int        `json:"promptCounter"`
	StartedAt            time.Time  `json:"startedAt"`
	EndedAt              *time.Time `json:"endedAt,omitempty"`
	EndReason            string     `json:"endReason,omitempty"`
	TranscriptPath       string     `json:"transcriptPath,omitempty"`
	LastAssistantMessage string     `json:"lastAssistantMessage,omitempty"`
	// CapturedBy is the person whose token came with the session's first
	// event (team mode); '' for the worker's owner (socket, secret).
	CapturedBy string `json:"capturedBy,omitempty"`
	// Title names the session in lists: a short line from its first
	// prompt, replaced by its summaries' request once there is one, or
	// the title the user gave it (TitleEdited), which nothing automatic
	// replaces. '' until the session has a prompt.
	Title       string `json:"title"`
	TitleEdited bool   `json:"titleEdited,omitempty"`
}

// HideFrom readies the session for person's eyes (” is the owner, who
// sees everything): another person's session goes without its transcript
// path, a path of their machine that is nobody else's business.
func (s *Session) HideFrom(person string) {
	if person != "" && s.CapturedBy != person {
		s.TranscriptPath = ""
	}
}

// SessionRef is what ingest needs to know about a session once it exists.
type SessionRef struct {
	ID      int64
	Project string
	// CapturedBy is who the session belongs to: the person whose event
	// created it ('' for the owner).
	CapturedBy string
	Created    bool // true when this call created the session
}

// EnsureSession returns the session for s.ClaudeSessionID, creating it from s
// when it does not exist yet. It is idempotent: the first event of a session,
// whichever it is, creates it; later calls only fill in blanks.
func (tx *Tx) EnsureSession(s *Session) (SessionRef, error) {
	if s.StartedAt.IsZero() {
		s.StartedAt = time.Now().UTC()
	}
	if s.Status == "" {
		s.Status = StatusActive
	}
	// A forgotten session's id is recorded again only for whoever
	// captured it (see SessionTombstone).
	key := tombstoneKey(s.ClaudeSessionID)
	res := tx.db.Exec(`INSERT INTO sessions (claude_session_id, project, cwd, git_branch, source, status, started_at, transcript_path, captured_by)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM session_tombstones WHERE id_hash = ? AND captured_by <> ?)
		ON CONFLICT(claude_session_id) DO NOTHING`,
		s.ClaudeSessionID, s.Project, s.Cwd, s.GitBranch, s.Source, s.Status, s.StartedAt, s.TranscriptPath, s.CapturedBy, key, s.CapturedBy)
	if res.Error != nil {
		return SessionRef{}, res.Error
	}
	ref := SessionRef{Created: res.RowsAffected == 1}
	row := tx.db.Raw(`SELECT id, project, captured_by FROM sessions WHERE claude_session_id = ?`, s.ClaudeSessionID).Row()
	if err := row.Scan(&ref.ID, &ref.Project, &ref.CapturedBy); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			if err := tx.db.Raw(`SELECT captured_by FROM session_tombstones WHERE id_hash = ?`, key).Row().Scan(&ref.CapturedBy); err == nil {
				return ref, nil // someone else's, forgotten: nothing stored, ref.ID 0
			}
		}
		return SessionRef{}, err
	}
	return ref, nil
}

// SessionTombstone is what a forget keeps of a session: who captured its
// Claude Code session id, and a hash of that id; nothing it held. A live
// session that is forgotten goes on sending events, and its next one
// records it again: for its captor only. Anyone else's event for that id
// finds it someone else's (EnsureSession), as it would have before the
// forget, instead of taking it over and leaving the captor's events
// refused.
type SessionTombstone struct {
	IDHash     string `gorm:"primaryKey"`
	CapturedBy string
}

// tombstoneKey is the hash a tombstone keeps of a Claude Code session
// id. The ids are random UUIDs: their hashes cannot be found by guessing.
func tombstoneKey(claudeID string) string {
	h := sha256.Sum256([]byte("mneme-session-tombstone\x00" + claudeID))
	return hex.EncodeToString(h[:])
}

// entomb keeps a tombstone of each of the sessions ids, about to be
// forgotten.
func (tx *Tx) entomb(ids []int64) error {
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), forgetChunk)]
		ids = ids[len(chunk):]
		var rows []struct {
			ClaudeSessionID string
			CapturedBy      string
		}
		if err := tx.db.Raw(`SELECT claude_session_id, captured_by FROM sessions WHERE id IN ?`, chunk).Scan(&rows).Error; err != nil {
			return err
		}
		for _, r := range rows {
			if err := tx.db.Exec(`INSERT INTO session_tombstones (id_hash, captured_by) VALUES (?, ?)
				ON CONFLICT(id_hash) DO UPDATE SET captured_by = excluded.captured_by`, tombstoneKey(r.ClaudeSessionID), r.CapturedBy).Error; err != nil {
				return err
			}
		}
	}
	return nil
}

// KnownSessions counts how many of these Claude Code session ids are
// stored.
func (s *Store) KnownSessions(ctx context.Context, claudeIDs []string) (int, error) {
	total := 0
	for len(claudeIDs) > 0 {
		chunk := claudeIDs[:min(len(claudeIDs), 500)]
		claudeIDs = claudeIDs[len(chunk):]
		var n int64
		if err := s.db.WithContext(ctx).Model(&Session{}).Where("claude_session_id IN ?", chunk).Count(&n).Error; err != nil {
			return total, err
		}
		total += int(n)
	}
	return total, nil
}

// SessionByID loads one session by its database id.
func (s *Store) SessionByID(ctx context.Context, id int64) (*Session, error) {
	var out Session
	err := s.db.WithContext(ctx).First(&out, id).Error
	return &out, notFound(err)
}

// SessionByClaudeID loads one session by Claude Code's session_id.
func (s *Store) SessionByClaudeID(ctx context.Context, claudeID string) (*Session, error) {
	var out Session
	err := s.db.WithContext(ctx).Where("claude_session_id = ?", claudeID).First(&out).Error
	return &out, notFound(err)
}

// SessionFilter narrows a session listing.
type SessionFilter struct {
	ID      int64 // only this session; 0 is any
	Project string
	Person  string // who captured them (captured_by); "" is everyone
	Offset  int
	Limit   int
}

// SessionStats is a session row with the counts the session list shows.
type SessionStats struct {
	Session
	Prompts      int `json:"prompts"`
	ToolCalls    int `json:"toolCalls"`
	Failures     int `json:"failures"`
	Observations int `json:"observations"`
}

// Sessions lists sessions newest first with their counts. It fetches one row
// more than Limit so callers can tell whether there are more.
func (s *Store) Sessions(ctx context.Context, f SessionFilter) ([]SessionStats, error) {
	q := s.db.WithContext(ctx).Table("sessions").Select(`sessions.*,
		(SELECT COUNT(*) FROM prompts p WHERE p.session_id = sessions.id) AS prompts,
		(SELECT COUNT(*) FROM observations o WHERE o.session_id = sessions.id AND o.excluded_by = '') AS tool_calls,
		(SELECT COUNT(*) FROM observations o WHERE o.session_id = sessions.id AND NOT o.success) AS failures,
		(SELECT COUNT(*) FROM observations o WHERE o.session_id = sessions.id) AS observations`)
	if f.ID != 0 {
		q = q.Where("sessions.id = ?", f.ID)
	}
	if f.Project != "" {
		q = q.Where("sessions.project = ?", f.Project)
	}
	if f.Person != "" {
		q = q.Where("sessions.captured_by = ?", f.Person)
	}
	var out []SessionStats
	err := q.Order("sessions.started_at DESC, sessions.id DESC").Offset(f.Offset).Limit(limitPlusOne(f.Limit)).Scan(&out).Error
	return out, err
}

func limitPlusOne(limit int) int {
	if limit <= 0 {
		limit = 50
	}
	return limit + 1
}

// ReopenSession records a session's new source (resume, clear, compact)
// and marks it active again, unless at is older than its end (a late
// replay must not reopen a completed session).
func (tx *Tx) ReopenSession(sessionID int64, source string, at time.Time) error {
	return tx.db.Exec(`UPDATE sessions SET source = ?, status = ?, ended_at = NULL, end_reason = '' WHERE id = ? AND (ended_at IS NULL OR ended_at <= ?)`,
		source, StatusActive, sessionID, at).Error
}

// SetLastAssistantMessage stores the last thing Claude said in a session.
func (tx *Tx) SetLastAssistantMessage(sessionID int64, msg string) error {
	return tx.db.Exec(`UPDATE sessions SET last_assistant_message = ? WHERE id = ?`, msg, sessionID).Error
}

// CompleteSession marks a session completed at at, for reason. It reports
// false when the session was already completed (a replay), and
// ErrSessionGone when it is not stored.
func (tx *Tx) CompleteSession(sessionID int64, at time.Time, reason string) (bool, error) {
	res := tx.db.Exec(`UPDATE sessions SET status = ?, ended_at = ?, end_reason = ? WHERE id = ? AND status != ?`,
		StatusCompleted, at, reason, sessionID, StatusCompleted)
	if res.Error != nil || res.RowsAffected > 0 {
		return res.RowsAffected > 0, res.Error
	}
	return false, tx.sessionGoneOr(sessionID, nil)
}
