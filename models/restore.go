package models

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Restoring the full export (`mneme import FILE.json`): a session's rows
// are written back as they were stored (already redacted and compressed
// when they were captured), not through the capture pipeline, and merged
// with what the database holds, so a second import, or an import into the
// database the export came from, stores nothing twice:
//
//   - a session by its claude_session_id;
//   - a prompt by (session, prompt_id), or (session, number) without one;
//   - an observation by (session, tool_use_id), or (session, created_at,
//     title) without one;
//   - a summary by (session, kind, prompt_number, created_at);
//   - a memory by (session, prompt_number, source, kind, original_text),
//     its supersession links by the same key (see ExportMemory).
//
// Ids are this database's own (the file's are ignored); times are kept.

// RestoreRows is one session of the full export, or a part of one.
type RestoreRows struct {
	Session      Session
	Prompts      []Prompt
	Summaries    []Summary
	Observations []Observation
	Memories     []ExportMemory
}

// RestoreCounts is what a restore stored (New) and what it found there
// already (Existing).
type RestoreCounts struct {
	New      Counts `json:"new"`
	Existing Counts `json:"existing"`
	// Refused says, for each session not restored, why: "session <id>:
	// <field> <value> <what it must be>" (fullexport.Check).
	Refused []string `json:"refused,omitempty"`
}

// Add adds o to c.
func (c *RestoreCounts) Add(o RestoreCounts) {
	c.New.add(o.New)
	c.Existing.add(o.Existing)
	c.Refused = append(c.Refused, o.Refused...)
}

// Refuse records that session claudeID was not restored, for err.
func (c *RestoreCounts) Refuse(claudeID string, err error) {
	c.Refused = append(c.Refused, fmt.Sprintf("session %q: %s", claudeID, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")))
}

func (c *Counts) add(o Counts) {
	c.Sessions += o.Sessions
	c.Prompts += o.Prompts
	c.Observations += o.Observations
	c.Summaries += o.Summaries
	c.Memories += o.Memories
}

// Restore writes r back, merged with what is stored (see above). Its
// text passes textSafe like every text column. It emits no event on the
// live stream. Run inside one Writer.Do, a session is stored whole or not
// at all.
func (tx *Tx) Restore(r *RestoreRows) (RestoreCounts, error) {
	var n RestoreCounts
	// The counter is at least the last prompt's number: the session's
	// next prompt must not take a number restored here.
	for _, p := range r.Prompts {
		r.Session.PromptCounter = max(r.Session.PromptCounter, p.Number)
	}
	sid, created, err := tx.restoreSession(&r.Session)
	if err != nil {
		return n, err
	}
	if created {
		n.New.Sessions++
	} else {
		n.Existing.Sessions++
	}
	for i := range r.Prompts {
		ok, err := tx.restorePrompt(sid, &r.Prompts[i])
		if err != nil {
			return n, err
		}
		count(ok, &n.New.Prompts, &n.Existing.Prompts)
	}
	var untooled map[untooledKey]bool
	if !created && len(r.Observations) > 0 {
		if untooled, err = tx.untooledObservations(sid); err != nil {
			return n, err
		}
	}
	for i := range r.Observations {
		ok, err := tx.restoreObservation(sid, &r.Observations[i], untooled)
		if err != nil {
			return n, err
		}
		count(ok, &n.New.Observations, &n.Existing.Observations)
	}
	for i := range r.Summaries {
		ok, err := tx.restoreSummary(sid, &r.Summaries[i])
		if err != nil {
			return n, err
		}
		count(ok, &n.New.Summaries, &n.Existing.Summaries)
	}
	for i := range r.Memories {
		ok, err := tx.restoreMemory(sid, r.Session.ClaudeSessionID, &r.Memories[i])
		if err != nil {
			return n, err
		}
		count(ok, &n.New.Memories, &n.Existing.Memories)
	}
	// What was restored may name the session better (or first).
	return n, tx.refreshTitle(sid)
}

func count(inserted bool, yes, no *int64) {
	if inserted {
		*yes++
	} else {
		*no++
	}
}

// restoreSession stores s unless its claude_session_id is known; a known
// session keeps its own fields, fills its blanks from s, and its prompt
// counter moves up to s's, so prompts restored and prompts to come do not
// share numbers.
func (tx *Tx) restoreSession(s *Session) (id int64, created bool, err error) {
	if s.ClaudeSessionID == "" {
		return 0, false, errors.New("a session without claudeSessionId")
	}
	if s.Status == "" {
		s.Status = StatusActive
	}
	title, edited := textSafe(s.Title), s.TitleEdited && s.Title != ""
	err = tx.db.Raw(`INSERT INTO sessions (claude_session_id, project, cwd, git_branch, source, status, prompt_counter,
			started_at, ended_at, end_reason, transcript_path, last_assistant_message, captured_by, title, title_edited)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(claude_session_id) DO NOTHING RETURNING id`,
		textSafe(s.ClaudeSessionID), textSafe(s.Project), textSafe(s.Cwd), textSafe(s.GitBranch), textSafe(s.Source), textSafe(s.Status),
		s.PromptCounter, s.StartedAt, s.EndedAt, textSafe(s.EndReason), textSafe(s.TranscriptPath), textSafe(s.LastAssistantMessage), textSafe(s.CapturedBy),
		title, edited).
		Row().Scan(&id)
	if err == nil {
		return id, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, false, err
	}
	if err := tx.db.Raw(`SELECT id FROM sessions WHERE claude_session_id = ?`, textSafe(s.ClaudeSessionID)).Row().Scan(&id); err != nil {
		return 0, false, err
	}
	err = tx.db.Exec(`UPDATE sessions SET prompt_counter = CASE WHEN prompt_counter > ? THEN prompt_counter ELSE ? END,
			last_assistant_message = CASE WHEN last_assistant_message = '' THEN ? ELSE last_assistant_message END,
			transcript_path = CASE WHEN transcript_path = '' THEN ? ELSE transcript_path END
		WHERE id = ?`, s.PromptCounter, s.PromptCounter, textSafe(s.LastAssistantMessage), textSafe(s.TranscriptPath), id).Error
	return id, false, err
}

// restorePrompt stores p in session sid unless its prompt_id (kept
// private here too) or its number is there already.
func (tx *Tx) restorePrompt(sid int64, p *Prompt) (bool, error) {
	var found int
	err := tx.db.Raw(`SELECT 1 FROM prompts WHERE session_id = ? AND (number = ? OR (? != '' AND prompt_id = ?))
		UNION ALL SELECT 1 FROM private_prompts WHERE session_id = ? AND (number = ? OR (? != '' AND prompt_id = ?)) LIMIT 1`,
		sid, p.Number, p.PromptID, p.PromptID, sid, p.Number, p.PromptID, p.PromptID).Row().Scan(&found)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	res := tx.db.Exec(`INSERT INTO prompts (session_id, project, number, text, prompt_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		sid, textSafe(p.Project), p.Number, textSafe(p.Text), textSafe(p.PromptID), p.CreatedAt)
	return res.RowsAffected == 1, res.Error
}

// untooledKey is what tells apart the observations without a tool_use_id
// of one session.
type untooledKey struct {
	at    int64 // created_at, Unix nanoseconds
	title string
}

// untooledObservations lists the keys of session sid's observations
// without a tool_use_id, read once per restore rather than looked up
// row by row (no index serves that lookup).
func (tx *Tx) untooledObservations(sid int64) (map[untooledKey]bool, error) {
	out := map[untooledKey]bool{}
	rows, err := tx.db.Raw(`SELECT created_at, title FROM observations WHERE session_id = ? AND tool_use_id IS NULL`, sid).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var at time.Time
		var title string
		if err := rows.Scan(&at, &title); err != nil {
			return nil, err
		}
		out[untooledKey{at.UnixNano(), title}] = true
	}
	return out, rows.Err()
}

// restoreObservation stores o in session sid unless it is there already
// (untooled holds the session's observations without a tool_use_id;
// nil for a session just created).
func (tx *Tx) restoreObservation(sid int64, o *Observation, untooled map[untooledKey]bool) (bool, error) {
	o.ID, o.SessionID = 0, sid
	o.Project, o.ToolName, o.Kind, o.Title = textSafe(o.Project), textSafe(o.ToolName), textSafe(o.Kind), textSafe(o.Title)
	o.Input, o.Output, o.ExcludedBy = textSafe(o.Input), textSafe(o.Output), textSafe(o.ExcludedBy)
	o.CommandKind, o.TestOutcome = textSafe(o.CommandKind), textSafe(o.TestOutcome)
	o.Signature = "" // derived again from the row as restored (normalize)
	for i, f := range o.Files {
		o.Files[i] = textSafe(f)
	}
	if o.ToolUseID != nil {
		id := textSafe(*o.ToolUseID)
		o.ToolUseID = &id
	}
	o.normalize()
	if o.ToolUseID == nil && untooled[untooledKey{o.CreatedAt.UnixNano(), o.Title}] {
		return false, nil
	}
	return tx.InsertObservation(o)
}

// restoreSummary stores sum in session sid unless one of its kind, turn
// and time is there already.
func (tx *Tx) restoreSummary(sid int64, sum *Summary) (bool, error) {
	for _, p := range []*string{&sum.Project, &sum.Kind, &sum.Request, &sum.Investigated, &sum.Learned, &sum.Completed,
		&sum.NextSteps, &sum.LastUserMessage, &sum.LastAssistantMessage, &sum.Generator, &sum.Note} {
		*p = textSafe(*p)
	}
	var found int
	err := tx.db.Raw(`SELECT 1 FROM summaries WHERE session_id = ? AND kind = ? AND prompt_number = ? AND created_at = ? LIMIT 1`,
		sid, sum.Kind, sum.PromptNumber, sum.CreatedAt).Row().Scan(&found)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	sum.SessionID = sid
	return true, tx.InsertSummary(sum)
}
