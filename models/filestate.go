package models

import (
	"context"
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

// queuedFileStates are the states of the files one observation touched,
// waiting to be inserted.
type queuedFileStates struct {
	SessionID int64
	ToolUseID string
	States    []FileState
}

// RecordFileStates stores the states of the files an observation touched,
// keyed by its session and tool_use_id. States already recorded for that
// key (a replayed event) are kept as they were: the first time the worker
// saw the file is what a memory refers to. Inside a Writer transaction the
// states wait for the end of the transaction, where those of the whole
// group commit go in with a few multi-row INSERTs, after the
// observations (flushFileStates).
func (tx *Tx) RecordFileStates(sessionID int64, toolUseID string, states []FileState) error {
	q := queuedFileStates{SessionID: sessionID, ToolUseID: toolUseID, States: states}
	if st := txStateOf(tx.db); st != nil {
		st.fileStates = append(st.fileStates, q)
		return nil
	}
	return flushFileStates(tx.db, []queuedFileStates{q})
}

const fileStateColumns = `session_id, tool_use_id, path, kind, sha256, size, mtime_ns`

// flushFileStates inserts the queued states, rowsPerStatement*2 rows a
// statement; entries without a tool_use_id are skipped.
func flushFileStates(db *gorm.DB, queued []queuedFileStates) error {
	const perStatement = 2 * rowsPerStatement // 7 columns a row
	var args []any
	rows := 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		err := db.Exec(valuesSQL("file_states", fileStateColumns, 7, rows, " ON CONFLICT DO NOTHING"), args...).Error
		args, rows = args[:0], 0
		return err
	}
	for _, q := range queued {
		if q.ToolUseID == "" {
			continue
		}
		for _, s := range q.States {
			args = append(args, q.SessionID, q.ToolUseID, s.Path, s.Kind, s.SHA256, s.Size, s.MtimeNS)
			if rows++; rows == perStatement {
				if err := flush(); err != nil {
					return fmt.Errorf("record file states: %w", err)
				}
			}
		}
	}
	if err := flush(); err != nil {
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
	err := s.db.WithContext(ctx).Raw(`SELECT o.id AS observation_id, f.path, f.kind, f.sha256, f.size, f.mtime_ns
		FROM observations o JOIN file_states f ON f.session_id = o.session_id AND f.tool_use_id = o.tool_use_id
		WHERE o.id IN ? ORDER BY o.id, `+s.insertOrder("f"), ids).Scan(&rows).Error
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
	err := s.db.WithContext(ctx).Raw(`SELECT o.id, o.session_id, o.tool_name, o.kind, o.title,
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
	if s.Postgres() {
		return s.summariesMentioningPG(ctx, project, match, exclude, limit)
	}
	var out []SummaryMention
	err := s.db.WithContext(ctx).Raw(`SELECT m.id, m.session_id, m.learned, m.completed, m.next_steps, m.created_at
		FROM summaries_fts JOIN summaries m ON m.id = summaries_fts.rowid
		WHERE summaries_fts MATCH ? AND m.project = ? AND m.session_id != ?
		ORDER BY summaries_fts.rowid DESC LIMIT ?`, match, project, exclude, limit).Scan(&out).Error
	return out, err
}
