package models

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Memories in the full export. A memory is known across databases by its
// turn key, what the unique index memories_turn holds: its session's
// claude_session_id, prompt number, source, kind and original text. Its
// id is this database's own, so "superseded by" travels as the other
// memory's key (MemoryRef), in both directions: the superseded memory
// names what replaced it, and the replacing memory names what it replaced,
// so the link is made whichever of the two sessions is restored first.

// MemoryRef names a memory of the export by its turn key. A memory
// stated outside any session has no Session, and is named within its
// Project.
type MemoryRef struct {
	Session      string `json:"session"`
	Project      string `json:"project,omitempty"`
	PromptNumber int    `json:"promptNumber"`
	Source       string `json:"source"`
	Kind         string `json:"kind"`
	OriginalText string `json:"originalText"`
}

// ExportMemory is a memory of the full export: the memory as the API
// gives it, and its supersession links as references within the export.
type ExportMemory struct {
	Memory
	// SupersededByRef is the memory that replaced this one, if any.
	SupersededByRef *MemoryRef `json:"supersededByRef,omitempty"`
	// Supersedes are the memories this one replaced.
	Supersedes []MemoryRef `json:"supersedes,omitempty"`
}

// MemoriesForExport lists session sid's memories, oldest first, with
// their supersession links as references; sid 0 lists the memories
// stated outside any session (MCP's remember without one, the user's).
func (s *Store) MemoriesForExport(ctx context.Context, sid int64) ([]ExportMemory, error) {
	db := s.db.WithContext(ctx)
	var ms []Memory
	q := db.Model(&Memory{}).Select(memoryColumns)
	if sid == 0 {
		q = q.Where("session_id IS NULL")
	} else {
		q = q.Where("session_id = ?", sid)
	}
	if err := q.Order("id").Find(&ms).Error; err != nil {
		return nil, err
	}
	out := make([]ExportMemory, len(ms))
	ref := `SELECT COALESCE(s.claude_session_id, '') AS session, CASE WHEN m.session_id IS NULL THEN m.project ELSE '' END AS project,
			m.prompt_number, m.source, m.kind, m.original_text
		FROM memories m LEFT JOIN sessions s ON s.id = m.session_id WHERE `
	for i, m := range ms {
		out[i].Memory = m
		if m.SupersededBy != 0 {
			var refs []MemoryRef
			if err := db.Raw(ref+`m.id = ?`, m.SupersededBy).Scan(&refs).Error; err != nil {
				return nil, err
			}
			if len(refs) == 1 {
				out[i].SupersededByRef = &refs[0]
			}
		}
		if err := db.Raw(ref+`m.superseded_by = ? ORDER BY m.id`, m.ID).Scan(&out[i].Supersedes).Error; err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RestoreMemories writes back memories stated outside any session (the
// full export's top-level memories), merged with what is stored: a
// memory by (project, prompt number, source, kind, original text), its
// supersession links as in a session's restore.
func (tx *Tx) RestoreMemories(ms []ExportMemory) (RestoreCounts, error) {
	var n RestoreCounts
	for i := range ms {
		ok, err := tx.restoreMemory(0, "", &ms[i])
		if err != nil {
			return n, err
		}
		count(ok, &n.New.Memories, &n.Existing.Memories)
	}
	return n, nil
}

// restoreMemory stores m in session sid (0: outside any session) unless
// its turn key is there already, then makes the supersession links its
// references name, where the other memory is stored.
func (tx *Tx) restoreMemory(sid int64, claudeID string, e *ExportMemory) (bool, error) {
	m := e.Memory
	m.ID, m.SessionID, m.SupersededBy = 0, sid, 0
	for _, p := range []*string{&m.Project, &m.Source, &m.Kind, &m.Text, &m.OriginalText, &m.State,
		&m.Speaker, &m.SpeakerRef, &m.Evidence, &m.Subject, &m.EndedBy} {
		*p = textSafe(*p)
	}
	for _, l := range [][]string{m.Files, m.Idents, m.Terms} {
		for i := range l {
			l[i] = textSafe(l[i])
		}
	}
	updated := m.UpdatedAt
	if err := m.normalize(); err != nil {
		return false, err
	}
	if !updated.IsZero() {
		m.UpdatedAt = updated.UTC().Truncate(time.Microsecond)
	}
	// The unique index memories_turn holds a session's memories; NULLs
	// being distinct there, one outside a session is looked up first.
	key := MemoryRef{Session: claudeID, PromptNumber: m.PromptNumber, Source: m.Source, Kind: m.Kind, OriginalText: m.OriginalText}
	if sid == 0 {
		key.Project = m.Project
	}
	inserted := false
	id, err := tx.memoryByRef(&key, claudeID, sid)
	if err == nil && id != 0 {
		m.ID = id
	} else if err == nil {
		err = tx.db.Raw(memoryInsert, m.insertValues(sid)...).Row().Scan(&m.ID)
		inserted = err == nil
	}
	if err != nil {
		return false, err
	}
	// Links are made only where missing: a superseded memory without its
	// successor, restored earlier or now.
	if r := e.SupersededByRef; r != nil && m.State == MemorySuperseded {
		if id, err := tx.memoryByRef(r, claudeID, sid); err != nil {
			return false, err
		} else if id != 0 {
			if err := tx.db.Exec(`UPDATE memories SET superseded_by = ? WHERE id = ? AND superseded_by = 0`, id, m.ID).Error; err != nil {
				return false, err
			}
		}
	}
	for i := range e.Supersedes {
		id, err := tx.memoryByRef(&e.Supersedes[i], claudeID, sid)
		if err != nil {
			return false, err
		}
		if id != 0 && id != m.ID {
			if err := tx.db.Exec(`UPDATE memories SET superseded_by = ? WHERE id = ? AND state = ? AND superseded_by = 0`,
				m.ID, id, MemorySuperseded).Error; err != nil {
				return false, err
			}
		}
	}
	return inserted, nil
}

// memoryByRef is the id of the memory r names, 0 when none is stored.
// claudeID and sid are the session being restored (its claude id may
// have been cleaned on the way in; "" and 0 outside any session).
func (tx *Tx) memoryByRef(r *MemoryRef, claudeID string, sid int64) (int64, error) {
	var id int64
	var err error
	if r.Session == "" {
		err = tx.db.Raw(`SELECT id FROM memories WHERE session_id IS NULL AND project = ? AND prompt_number = ? AND source = ? AND kind = ? AND original_text = ?
			ORDER BY id LIMIT 1`,
			textSafe(r.Project), r.PromptNumber, textSafe(r.Source), textSafe(r.Kind), textSafe(r.OriginalText)).Row().Scan(&id)
	} else if r.Session == claudeID {
		err = tx.db.Raw(`SELECT id FROM memories WHERE session_id = ? AND prompt_number = ? AND source = ? AND kind = ? AND original_text = ?`,
			sid, r.PromptNumber, textSafe(r.Source), textSafe(r.Kind), textSafe(r.OriginalText)).Row().Scan(&id)
	} else {
		err = tx.db.Raw(`SELECT m.id FROM memories m JOIN sessions s ON s.id = m.session_id
			WHERE s.claude_session_id = ? AND m.prompt_number = ? AND m.source = ? AND m.kind = ? AND m.original_text = ?`,
			textSafe(r.Session), r.PromptNumber, textSafe(r.Source), textSafe(r.Kind), textSafe(r.OriginalText)).Row().Scan(&id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}
