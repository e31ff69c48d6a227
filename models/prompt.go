package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Prompt is one user prompt, numbered within its session.
type Prompt struct {
	ID        int64     `gorm:"primaryKey" json:"id"`
	SessionID int64     `json:"sessionId"`
	Project   string    `json:"project"`
	Number    int       `json:"number"`
	Text      string    `json:"text"`
	PromptID  string    `json:"promptId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// PromptResult tells ingest what happened to a prompt.
type PromptResult struct {
	Number   int
	PromptID int64 // database id; 0 when nothing was stored
	Replayed bool  // the same prompt_id was already recorded
}

// RecordPrompt increments the session's prompt counter and stores the prompt.
// With private set, only the counter moves and the number is remembered as
// private (no text is stored), so the observations of that turn are dropped.
// A replay of the same prompt_id is recognised and changes nothing.
func (tx *Tx) RecordPrompt(sessionID int64, project, promptID, text string, private bool, now time.Time) (PromptResult, error) {
	if promptID != "" {
		var n int
		row := tx.db.Raw(`SELECT number FROM prompts WHERE session_id = ? AND prompt_id = ?
			UNION ALL SELECT number FROM private_prompts WHERE session_id = ? AND prompt_id = ? LIMIT 1`,
			sessionID, promptID, sessionID, promptID).Row()
		if err := row.Scan(&n); err == nil {
			return PromptResult{Number: n, Replayed: true}, nil
		}
	}
	// The session's first prompt with text names it (Session.Title), in
	// the same statement: a prompt costs no extra write.
	title := ""
	if !private {
		title = titleFrom(text)
	}
	var number int
	err := tx.db.Raw(`UPDATE sessions SET prompt_counter = prompt_counter + 1,
			title = CASE WHEN title = '' AND NOT title_edited THEN ? ELSE title END
		WHERE id = ? AND prompt_counter < ? RETURNING prompt_counter`,
		title, sessionID, MaxPromptCounter).Row().Scan(&number)
	if errors.Is(err, sql.ErrNoRows) {
		return PromptResult{}, tx.sessionGoneOr(sessionID, fmt.Errorf("%w: session %d holds %d prompts, the most a session may", ErrInvalid, sessionID, MaxPromptCounter))
	}
	if err != nil {
		return PromptResult{}, err
	}
	if private {
		err := tx.db.Exec(`INSERT INTO private_prompts (session_id, number, prompt_id) VALUES (?, ?, ?)`, sessionID, number, promptID).Error
		return PromptResult{Number: number}, err
	}
	p := Prompt{SessionID: sessionID, Project: project, Number: number, Text: text, PromptID: promptID, CreatedAt: now}
	if err := tx.db.Create(&p).Error; err != nil {
		return PromptResult{}, err
	}
	return PromptResult{Number: number, PromptID: p.ID}, nil
}

// PromptNumber resolves which prompt of the session an event belongs to: the
// prompt carrying promptID if known, else the session's current counter.
// private reports that the prompt was entirely private; found, that
// promptID itself was found: only then is the answer final (a prompt
// arriving late would otherwise change it), and may be cached.
func (tx *Tx) PromptNumber(sessionID int64, promptID string) (number int, private, found bool, err error) {
	if promptID != "" {
		row := tx.db.Raw(`SELECT number, 0 FROM prompts WHERE session_id = ? AND prompt_id = ?
			UNION ALL SELECT number, 1 FROM private_prompts WHERE session_id = ? AND prompt_id = ? LIMIT 1`,
			sessionID, promptID, sessionID, promptID).Row()
		switch err := row.Scan(&number, &private); {
		case err == nil:
			return number, private, true, nil
		case !errors.Is(err, sql.ErrNoRows):
			return 0, false, false, err // the database failed, not the lookup
		}
	}
	// Without a known prompt_id the event belongs to the current prompt,
	// which may itself be private.
	err = tx.db.Raw(`SELECT s.prompt_counter, EXISTS (SELECT 1 FROM private_prompts pp WHERE pp.session_id = s.id AND pp.number = s.prompt_counter)
		FROM sessions s WHERE s.id = ?`, sessionID).Row().Scan(&number, &private)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrSessionGone
	}
	return number, private, false, err
}

// MaxPromptCounter bounds the prompts of one session (a long session has
// hundreds): a prompt counter, imported or stored, stays far from where
// integers overflow.
const MaxPromptCounter = 1_000_000

// sessionGoneOr is ErrSessionGone when session id is not stored, else
// otherwise: what a write that changed no row of the session means.
func (tx *Tx) sessionGoneOr(id int64, otherwise error) error {
	var one int
	err := tx.db.Raw(`SELECT 1 FROM sessions WHERE id = ?`, id).Row().Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrSessionGone
	case err != nil:
		return err
	}
	return otherwise
}

// ListFilter is the common offset/limit/project filter of the list APIs.
type ListFilter struct {
	Project   string
	SessionID int64
	// IDs keeps only the rows with these ids; empty is all.
	IDs []int64
	// Person keeps the rows of the sessions this person captured (team
	// mode); "" is everyone.
	Person string
	Offset int
	Limit  int
}

// byPerson narrows q, on a table with session_id, to f.IDs and to
// f.Person's sessions.
func (f ListFilter) byPerson(q *gorm.DB) *gorm.DB {
	if len(f.IDs) > 0 {
		q = q.Where("id IN ?", f.IDs)
	}
	if f.Person == "" {
		return q
	}
	return q.Where("session_id IN (SELECT id FROM sessions WHERE captured_by = ?)", f.Person)
}

// Prompts lists prompts newest first (one more than Limit, to tell hasMore).
func (s *Store) Prompts(ctx context.Context, f ListFilter) ([]Prompt, error) {
	q := s.db.WithContext(ctx).Model(&Prompt{})
	if f.Project != "" {
		q = q.Where("project = ?", f.Project)
	}
	if f.SessionID != 0 {
		q = q.Where("session_id = ?", f.SessionID)
	}
	q = f.byPerson(q)
	var out []Prompt
	err := q.Order("id DESC").Offset(f.Offset).Limit(limitPlusOne(f.Limit)).Find(&out).Error
	return out, err
}

// PromptsOfSession lists a session's prompts in order.
func (s *Store) PromptsOfSession(ctx context.Context, sessionID int64) ([]Prompt, error) {
	var out []Prompt
	err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("number").Find(&out).Error
	return out, err
}
