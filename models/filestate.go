package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// FileState is what a file was when an observation touched it: its
// SHA-256 (Kind "sha256"), or only its size and modification time (Kind
// "stat", a large file), or that it was not there (Kind "missing"); Kind
// "unknown" for observations stored before states were recorded. It
// belongs to the observation with the same session and tool_use_id (known
// before the observation is inserted, so the state is written in the same
// operation without waiting for the observation's id).
type FileState struct {
	SessionID int64  `json:"-"`
	ToolUseID string `json:"-"`
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	SHA256    string `gorm:"column:sha256" json:"sha256,omitempty"`
	Size      int64  `json:"size"`
	MtimeNS   int64  `gorm:"column:mtime_ns" json:"mtimeNs"`
}

// fileStateRow is a FileState as an element of the JSON array bound to
// flushFileStates' single INSERT.
type fileStateRow struct {
	SessionID int64  `json:"s"`
	ToolUseID string `json:"u"`
	Path      string `json:"p"`
	Kind      string `json:"k"`
	SHA256    string `json:"h"`
	Size      int64  `json:"z"`
	MtimeNS   int64  `json:"m"`
}

// queuedFileStates are the states of the files one observation touched,
// waiting to be inserted.
type queuedFileStates struct {
	SessionID int64
	ToolUseID string
	States    []FileState
}

// RecordFileStates stores the states of the files an observation touched,
// keyed by its session and tool_use_id, in one statement. States already
// recorded for that key (a replayed event) are kept as they were: the
// first time the worker saw the file is what a memory refers to.
//
// Cost: an ingest of Edits only (BenchmarkIngestSocket16Edits) spends about
// 40-50 µs more CPU per observation with file states than without (about
// +20-25% on a loaded 2-core machine, throughput within noise); about 25 µs
// of it is the path index, and the statement itself about 4% of the CPU
// in a profile. It is one statement per operation inside the group
// commit; the writer can batch them as it batches observations: have this
// append a queuedFileStates to its txState inside a writer transaction,
// and call flushFileStates once after flushObservations in runBatch and
// runAlone.
func (tx *Tx) RecordFileStates(sessionID int64, toolUseID string, states []FileState) error {
	return flushFileStates(tx.db, []queuedFileStates{{SessionID: sessionID, ToolUseID: toolUseID, States: states}})
}

// flushFileStates inserts the queued states with one statement (see
// RecordFileStates); entries without a tool_use_id are skipped.
func flushFileStates(db *gorm.DB, queued []queuedFileStates) error {
	var rows []fileStateRow
	for _, q := range queued {
		if q.ToolUseID == "" {
			continue
		}
		for _, s := range q.States {
			rows = append(rows, fileStateRow{q.SessionID, q.ToolUseID, s.Path, s.Kind, s.SHA256, s.Size, s.MtimeNS})
		}
	}
	var err error
	switch len(rows) {
	case 0:
		return nil
	case 1:
		// The common case, a tool on one file: a plain statement straight
		// on the transaction's connection, without GORM's statement
		// building or JSON to decode.
		r := rows[0]
		_, err = db.Statement.ConnPool.ExecContext(db.Statement.Context, `INSERT INTO file_states
			(session_id, tool_use_id, path, kind, sha256, size, mtime_ns) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			r.SessionID, r.ToolUseID, r.Path, r.Kind, r.SHA256, r.Size, r.MtimeNS)
	default:
		var b []byte
		if b, err = json.Marshal(rows); err != nil {
			return err
		}
		err = db.Exec(`INSERT INTO file_states (session_id, tool_use_id, path, kind, sha256, size, mtime_ns)
			SELECT value->>'s', value->>'u', value->>'p', value->>'k', value->>'h', value->>'z', value->>'m' FROM json_each(?) WHERE true
			ON CONFLICT DO NOTHING`, string(b)).Error
	}
	if err != nil {
		return fmt.Errorf("record file states: %w", err)
	}
	return nil
}

// FileStatesOf maps observation ids to the recorded states of their files.
// Observations without a tool_use_id, or with nothing recorded, are
// absent.
func (s *Store) FileStatesOf(ctx context.Context, ids []int64) (map[int64][]FileState, error) {
	out := map[int64][]FileState{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ObservationID int64
		FileState
	}
	err := s.DB.WithContext(ctx).Raw(`SELECT o.id AS observation_id, f.path, f.kind, f.sha256, f.size, f.mtime_ns
		FROM observations o JOIN file_states f ON f.session_id = o.session_id AND f.tool_use_id = o.tool_use_id
		WHERE o.id IN ? ORDER BY o.id, f.rowid`, ids).Scan(&rows).Error
	for _, r := range rows {
		out[r.ObservationID] = append(out[r.ObservationID], r.FileState)
	}
	return out, err
}

// FileMemory is an observation that touched a file, with the file's
// state at the time.
type FileMemory struct {
	ID           int64
	SessionID    int64
	ToolName     string
	Kind         string
	Title        string
	Success      bool
	CreatedAt    time.Time
	State        FileState `gorm:"embedded;embeddedPrefix:state_"`
	PromptNumber int
}

// FileMemories lists the newest observations of project that touched the
// file at path (exactly as recorded), outside session exclude and never
// excluded stubs, newest first, at most limit.
func (s *Store) FileMemories(ctx context.Context, project, path string, exclude int64, limit int) ([]FileMemory, error) {
	var out []FileMemory
	err := s.DB.WithContext(ctx).Raw(`SELECT o.id, o.session_id, o.tool_name, o.kind, o.title,
			o.success, o.created_at, o.prompt_number,
			f.path AS state_path, f.kind AS state_kind, f.sha256 AS state_sha256, f.size AS state_size, f.mtime_ns AS state_mtime_ns
		FROM file_states f JOIN observations o ON o.session_id = f.session_id AND o.tool_use_id = f.tool_use_id
		WHERE f.path = ? AND o.project = ? AND o.session_id != ? AND o.excluded_by = ''
		ORDER BY o.id DESC LIMIT ?`, path, project, exclude, limit).Scan(&out).Error
	return out, err
}

// SummaryMention is a session summary that names a file.
type SummaryMention struct {
	ID        int64
	SessionID int64
	Learned   string
	Completed string
	NextSteps string
	CreatedAt time.Time
}

// SummariesMentioning lists the newest summaries of project, outside
// session exclude, whose text holds the FTS5 query match (a file name as a
// phrase), at most limit.
func (s *Store) SummariesMentioning(ctx context.Context, project, match string, exclude int64, limit int) ([]SummaryMention, error) {
	var out []SummaryMention
	err := s.DB.WithContext(ctx).Raw(`SELECT m.id, m.session_id, m.learned, m.completed, m.next_steps, m.created_at
		FROM summaries_fts JOIN summaries m ON m.id = summaries_fts.rowid
		WHERE summaries_fts MATCH ? AND m.project = ? AND m.session_id != ?
		ORDER BY summaries_fts.rowid DESC LIMIT ?`, match, project, exclude, limit).Scan(&out).Error
	return out, err
}
