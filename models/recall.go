package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Reads for the context injected into sessions (internal/recall).

// recallColumns are the observation columns context lines need; input is
// cut short since only a Bash command is ever read from it.
const recallColumns = "id, session_id, tool_name, kind, title, substr(input, 1, 400) AS input, files, success, importance, excluded_by, created_at, signature"

// RecallFilter selects observations for context: not excluded by privacy
// rules, newest first.
type RecallFilter struct {
	SessionID      int64     // of this session only, when set
	Project        string    // else of this project
	ExcludeSession int64     // not of this session
	Since          time.Time // created after, when set
	Limit          int
}

// RecallObservations lists the observations f selects, newest first, with
// input cut to 400 bytes and no output. Rows are scanned by hand, not by
// GORM's reflection: the context builder reads a few hundred per
// SessionStart, and the scan was most of its time.
func (s *Store) RecallObservations(ctx context.Context, f RecallFilter) ([]Observation, error) {
	q := s.db.WithContext(ctx).Model(&Observation{}).Select(recallColumns).Where("excluded_by = ''")
	if f.SessionID != 0 {
		q = q.Where("session_id = ?", f.SessionID)
	} else {
		q = q.Where("project = ?", f.Project)
	}
	if f.ExcludeSession != 0 {
		q = q.Where("session_id != ?", f.ExcludeSession)
	}
	if !f.Since.IsZero() {
		q = q.Where("created_at > ?", f.Since)
	}
	rows, err := q.Order("created_at DESC, id DESC").Limit(f.Limit).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]Observation, 0, max(f.Limit, 0))
	for rows.Next() {
		var o Observation
		var files string
		if err := rows.Scan(&o.ID, &o.SessionID, &o.ToolName, &o.Kind, &o.Title, &o.Input, &files,
			&o.Success, &o.Importance, &o.ExcludedBy, &o.CreatedAt, &o.Signature); err != nil {
			return nil, err
		}
		if files != "" && files != "[]" {
			if err := json.Unmarshal([]byte(files), &o.Files); err != nil {
				return nil, fmt.Errorf("observation %d: files: %w", o.ID, err)
			}
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// LatestPrompts lists a session's last n prompts, newest first.
func (s *Store) LatestPrompts(ctx context.Context, sessionID int64, n int) ([]Prompt, error) {
	var out []Prompt
	err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("number DESC").Limit(n).Find(&out).Error
	return out, err
}

// LastActive is when the session last did something: its newest prompt or
// observation, else its end or start.
func (s *Store) LastActive(ctx context.Context, sessionID int64) (time.Time, error) {
	db := s.db.WithContext(ctx)
	var sess Session
	if err := db.First(&sess, sessionID).Error; err != nil {
		return time.Time{}, err
	}
	t := sess.StartedAt
	for _, table := range []string{"prompts", "observations"} {
		var row struct{ CreatedAt time.Time }
		err := db.Table(table).Select("created_at").Where("session_id = ?", sessionID).
			Order("created_at DESC").Limit(1).Scan(&row).Error
		if err != nil {
			return t, err
		}
		if row.CreatedAt.After(t) {
			t = row.CreatedAt
		}
	}
	if sess.EndedAt != nil && sess.EndedAt.After(t) {
		t = *sess.EndedAt
	}
	return t, nil
}

// recentSessionWindow bounds how many of the latest sessions are looked at
// to find those with something to say, so a pile of empty sessions costs
// little.
const recentSessionWindow = 200

// RecentSessions lists up to n of the project's sessions started after
// since, newest first, other than exclude, that have something to say (a
// prompt, a summary or a last answer): sessions started and never
// prompted must not take their places.
func (s *Store) RecentSessions(ctx context.Context, project string, exclude int64, since time.Time, n int) ([]Session, error) {
	var out []Session
	if n <= 0 {
		return out, nil
	}
	err := s.db.WithContext(ctx).Raw(`SELECT * FROM (SELECT * FROM sessions WHERE project = ? AND id != ? AND started_at > ?
			ORDER BY started_at DESC, id DESC LIMIT ?) AS s
		WHERE s.last_assistant_message != ''
			OR EXISTS (SELECT 1 FROM prompts p WHERE p.session_id = s.id)
			OR EXISTS (SELECT 1 FROM summaries m WHERE m.session_id = s.id)
		ORDER BY s.started_at DESC, s.id DESC LIMIT ?`, project, exclude, since, recentSessionWindow, n).Scan(&out).Error
	return out, err
}

// LatestSummaries maps each of the sessions to its best summary: its
// latest final one, else its latest of any kind.
func (s *Store) LatestSummaries(ctx context.Context, sessionIDs []int64) (map[int64]Summary, error) {
	out := map[int64]Summary{}
	if len(sessionIDs) == 0 {
		return out, nil
	}
	var rows []Summary
	err := s.db.WithContext(ctx).Raw(`SELECT * FROM summaries WHERE id IN (
		SELECT (SELECT s2.id FROM summaries s2 WHERE s2.session_id = s.session_id
			ORDER BY (s2.kind = 'final') DESC, s2.id DESC LIMIT 1)
		FROM summaries s WHERE s.session_id IN ? GROUP BY s.session_id)`, sessionIDs).Scan(&rows).Error
	for _, r := range rows {
		out[r.SessionID] = r
	}
	return out, err
}

// FirstPrompts maps each of the sessions to the text of its first stored
// prompt.
func (s *Store) FirstPrompts(ctx context.Context, sessionIDs []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(sessionIDs) == 0 {
		return out, nil
	}
	var rows []Prompt
	err := s.db.WithContext(ctx).Raw(`SELECT * FROM prompts WHERE id IN (SELECT MIN(id) FROM prompts WHERE session_id IN ? GROUP BY session_id)`,
		sessionIDs).Scan(&rows).Error
	for _, r := range rows {
		out[r.SessionID] = r.Text
	}
	return out, err
}

// ProjectCwd is the working directory of the project's latest session
// (without a trailing slash), to show file paths relative to it; "" when
// there is none.
func (s *Store) ProjectCwd(ctx context.Context, project string) string {
	var cwd string
	s.db.WithContext(ctx).Raw(`SELECT cwd FROM sessions WHERE project = ? ORDER BY started_at DESC LIMIT 1`, project).Row().Scan(&cwd)
	return strings.TrimRight(cwd, "/")
}

// RelatedCandidate is an observation matching a prompt's keywords, with
// its BM25 score (higher is better; on PostgreSQL ts_rank on bm25's scale,
// see pgRelatedScale).
type RelatedCandidate struct {
	ID        int64
	Title     string
	Files     string
	Input     string
	CreatedAt time.Time
	Score     float64
}

// RelatedObservations scores, with BM25 (weights: title 4, input 1,
// output 0.5, files 2), the project's latest recent observations matching
// the FTS5 query match, outside session exclude, and returns the best
// limit. Only the newest recent matches of the project are scored: the
// inner query walks the index newest first and stops there, so a common
// term costs the same as a rare one.
func (s *Store) RelatedObservations(ctx context.Context, match, project string, exclude int64, recent, limit int) ([]RelatedCandidate, error) {
	if s.Postgres() {
		return s.relatedObservationsPG(ctx, match, project, exclude, recent, limit)
	}
	if err := s.FlushSearchIndex(ctx); err != nil {
		return nil, err
	}
	var rows []RelatedCandidate
	err := s.db.WithContext(ctx).Raw(`SELECT id, title, files, input, created_at, -score AS score FROM (
			SELECT o.id, o.title, o.files, substr(o.input, 1, 300) AS input, o.created_at,
				bm25(observations_fts, 4.0, 1.0, 0.5, 2.0) AS score
			FROM observations_fts JOIN observations o ON o.id = observations_fts.rowid
			WHERE observations_fts MATCH ? AND o.project = ? AND o.session_id != ? AND o.excluded_by = ''
			ORDER BY observations_fts.rowid DESC LIMIT ?)
		ORDER BY score DESC LIMIT ?`, match, project, exclude, recent, limit).Scan(&rows).Error
	return rows, err
}

// CountObservationMatches counts the observations matching the FTS5
// query match, stopping at limit: a cheap document frequency.
func (s *Store) CountObservationMatches(ctx context.Context, match string, limit int) (int, error) {
	if s.Postgres() {
		return s.countObservationMatchesPG(ctx, match, limit)
	}
	if err := s.FlushSearchIndex(ctx); err != nil {
		return 0, err
	}
	var n int
	err := s.db.WithContext(ctx).Raw(`SELECT count(*) FROM (SELECT 1 FROM observations_fts WHERE observations_fts MATCH ? LIMIT ?)`,
		match, limit).Row().Scan(&n)
	return n, err
}
