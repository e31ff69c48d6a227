package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// What `mneme migrate` copies from one store into another besides what
// Restore carries: the settings, the token ledger, and each session's
// file states and private prompt numbers. Every write here is merged with
// what the target holds, like Restore, so a second copy adds nothing.

// SettingRows lists the settings table's rows by key. The runtime
// document comes without the API key an older mneme kept in it: the key
// belongs in its file beside the database, never in a database a team
// shares.
func (s *Store) SettingRows(ctx context.Context) ([]Setting, error) {
	var out []Setting
	if err := s.db.WithContext(ctx).Order("key").Find(&out).Error; err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Key != runtimeKey {
			continue
		}
		var doc map[string]any
		if json.Unmarshal([]byte(out[i].Value), &doc) != nil {
			continue
		}
		if sum, ok := doc["summarizer"].(map[string]any); ok && sum["apiKey"] != nil {
			delete(sum, "apiKey")
			b, err := json.Marshal(doc)
			if err != nil {
				return nil, err
			}
			out[i].Value = string(b)
		}
	}
	return out, nil
}

// AddSettingIfAbsent stores st unless its key has a value already: the
// target's own settings win. When it has one, same tells whether it is
// st's value.
func (tx *Tx) AddSettingIfAbsent(st Setting) (stored, same bool, err error) {
	if st.UpdatedAt.IsZero() {
		st.UpdatedAt = time.Now().UTC()
	}
	res := tx.db.Exec(`INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO NOTHING`,
		st.Key, st.Value, st.UpdatedAt)
	if res.Error != nil || res.RowsAffected == 1 {
		return res.RowsAffected == 1, false, res.Error
	}
	var have string
	if err := tx.db.Raw(`SELECT value FROM settings WHERE key = ?`, st.Key).Row().Scan(&have); err != nil {
		return false, false, err
	}
	return false, have == st.Value, nil
}

// LedgerAfter lists up to limit ledger entries with id > after, in id
// order.
func (s *Store) LedgerAfter(ctx context.Context, after int64, limit int) ([]LedgerEntry, error) {
	var out []LedgerEntry
	err := s.db.WithContext(ctx).Where("id > ?", after).Order("id").Limit(limit).Find(&out).Error
	return out, err
}

// AddLedgerEntryOnce appends e (its id ignored) unless an entry with the
// same session, summary, day, generator, model, tokens and time is there
// already.
func (tx *Tx) AddLedgerEntryOnce(e LedgerEntry) (bool, error) {
	var found int
	err := tx.db.Raw(`SELECT 1 FROM token_ledger WHERE session_id = ? AND summary_id = ? AND day = ? AND generator = ? AND model = ?
		AND input_tokens = ? AND output_tokens = ? AND created_at = ? LIMIT 1`,
		e.SessionID, e.SummaryID, e.Day, e.Generator, e.Model, e.InputTokens, e.OutputTokens, e.CreatedAt).Row().Scan(&found)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	e.ID = 0
	return true, tx.db.Create(&e).Error
}

// SummaryIDOf is the id of session sid's summary of kind, turn and time
// (the key Restore merges summaries by), or 0 when there is none.
func (tx *Tx) SummaryIDOf(sid int64, kind string, promptNumber int, createdAt time.Time) (int64, error) {
	var id int64
	err := tx.db.Raw(`SELECT id FROM summaries WHERE session_id = ? AND kind = ? AND prompt_number = ? AND created_at = ? ORDER BY id LIMIT 1`,
		sid, kind, promptNumber, createdAt).Row().Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// FileStatesOfSession lists the file states recorded for a session's
// observations, in the order they were recorded.
func (s *Store) FileStatesOfSession(ctx context.Context, sessionID int64) ([]FileState, error) {
	var out []FileState
	err := s.db.WithContext(ctx).Raw(`SELECT f.session_id, f.tool_use_id, f.path, f.kind, f.sha256, f.size, f.mtime_ns
		FROM file_states f WHERE f.session_id = ? ORDER BY `+s.insertOrder("f"), sessionID).Scan(&out).Error
	return out, err
}

// AddFileStates stores states for session sid (their own SessionID is
// ignored) unless one of the same tool_use_id and path is there, and
// returns how many it stored.
func (tx *Tx) AddFileStates(sid int64, states []FileState) (int64, error) {
	var n int64
	for lo := 0; lo < len(states); lo += rowsPerStatement {
		part := states[lo:min(lo+rowsPerStatement, len(states))]
		args := make([]any, 0, 7*len(part))
		for _, f := range part {
			args = append(args, sid, textSafe(f.ToolUseID), textSafe(f.Path), textSafe(f.Kind), textSafe(f.SHA256), f.Size, f.MtimeNS)
		}
		res := tx.db.Exec(valuesSQL("file_states", fileStateColumns, 7, len(part), " ON CONFLICT DO NOTHING"), args...)
		if res.Error != nil {
			return n, fmt.Errorf("copy file states: %w", res.Error)
		}
		n += res.RowsAffected
	}
	return n, nil
}

// PrivatePrompt is the trace a private prompt leaves: its number in its
// session (and Claude Code's prompt id), never its text.
type PrivatePrompt struct {
	Number   int
	PromptID string
}

// PrivatePromptsOfSession lists a session's private prompts by number.
func (s *Store) PrivatePromptsOfSession(ctx context.Context, sessionID int64) ([]PrivatePrompt, error) {
	var out []PrivatePrompt
	err := s.db.WithContext(ctx).Raw(`SELECT number, prompt_id FROM private_prompts WHERE session_id = ? ORDER BY number`, sessionID).
		Scan(&out).Error
	return out, err
}

// AddPrivatePrompts records pps as private prompts of session sid unless
// their numbers are known, and returns how many it stored. Without them
// a replayed private prompt would be taken for a new one.
func (tx *Tx) AddPrivatePrompts(sid int64, pps []PrivatePrompt) (int64, error) {
	var n int64
	for _, p := range pps {
		res := tx.db.Exec(`INSERT INTO private_prompts (session_id, number, prompt_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			sid, p.Number, textSafe(p.PromptID))
		if res.Error != nil {
			return n, res.Error
		}
		n += res.RowsAffected
	}
	return n, nil
}

// SessionIDOf is the id of the session with Claude Code's id claudeID.
func (tx *Tx) SessionIDOf(claudeID string) (int64, error) {
	var id int64
	err := tx.db.Raw(`SELECT id FROM sessions WHERE claude_session_id = ?`, textSafe(claudeID)).Row().Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return id, err
}
