package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/mneme-dev/mneme/internal/failsig"
)

// Observation kinds.
const (
	KindBash       = "bash"
	KindTest       = "test"
	KindFileChange = "file_change"
	KindRead       = "read"
	KindSearch     = "search"
	KindWeb        = "web"
	KindAgent      = "agent"
	KindMCP        = "mcp"
	KindFailure    = "failure"
	KindExcluded   = "excluded"
	KindToolUse    = "tool_use"
)

// Observation is one tool call: what ran, what came of it, how much it
// matters. Input and Output are compressed and redacted before storage.
type Observation struct {
	ID           int64    `gorm:"primaryKey" json:"id"`
	SessionID    int64    `json:"sessionId"`
	Project      string   `json:"project"`
	PromptNumber int      `json:"promptNumber"`
	ToolUseID    *string  `json:"toolUseId,omitempty"`
	ToolName     string   `json:"toolName"`
	Kind         string   `json:"kind"`
	Title        string   `json:"title"`
	Input        string   `json:"input,omitempty"`
	Output       string   `json:"output,omitempty"`
	Files        []string `gorm:"serializer:json" json:"files"`
	Success      bool     `json:"success"`
	Importance   float64  `json:"importance"`
	DurationMS   int64    `gorm:"column:duration_ms" json:"durationMs"`
	ExcludedBy   string   `json:"excludedBy,omitempty"`
	// CommandKind is what a Bash call ran (CommandTest, CommandShell),
	// and TestOutcome a test run's result as its runner reported it
	// ("3 packages ok", "2 tests failed", "interrupted"): both set at
	// ingest, so reports and summaries read data, not display titles.
	CommandKind string `json:"commandKind,omitempty"`
	TestOutcome string `json:"testOutcome,omitempty"`
	// FileCreated tells that a file change made its file (a Write of a
	// new file), set at ingest like the fields above.
	FileCreated bool `json:"fileCreated,omitempty"`
	// Signature is a failure's identity (internal/failsig): tool, command
	// shape, failing tests or error class, and its message masked; what
	// "seen before" is matched by. Set for failures, and for a call that
	// succeeded but reports failing tests; "" otherwise.
	Signature string    `json:"signature,omitempty"`
	CreatedAt time.Time `json:"createdAt"`

	// Staleness, filled by the read API (never stored): Stale is whether a
	// file the observation touched changed or is gone since (absent when
	// nothing is known), FileStatus each file's status by path (fresh,
	// changed, gone, unknown).
	Stale      *bool             `gorm:"-" json:"stale,omitempty"`
	FileStatus map[string]string `gorm:"-" json:"fileStatus,omitempty"`
	// SeenBefore, filled for the viewer (never stored), is the earlier
	// failure of the project this one was seen as, and its fix.
	SeenBefore *SeenBefore `gorm:"-" json:"seenBefore,omitempty"`
}

// Command kinds of a Bash observation.
const (
	CommandTest  = "test"  // a test suite (go test, pytest, npm test, …)
	CommandShell = "shell" // anything else
	// CommandUnclassified marks a Bash call stored before the field
	// existed; the worker classifies those at start (shape.ClassifyStored).
	CommandUnclassified = "?"
)

// normalize fills what an observation must have before it is stored.
func (o *Observation) normalize() {
	if o.Files == nil {
		o.Files = []string{}
	}
	if o.ToolUseID != nil && *o.ToolUseID == "" {
		o.ToolUseID = nil
	}
	if o.CreatedAt.IsZero() {
		o.CreatedAt = time.Now().UTC()
	}
	if o.Signature == "" && !o.Success && o.ExcludedBy == "" {
		// Rows shaped elsewhere than the worker's hook path (compatibility
		// routes, an import of an export) get theirs from what they hold.
		o.Signature = failsig.Key(o.ToolName, o.Input, o.Output)
	}
	// PostgreSQL keeps microseconds: one precision on both backends, so
	// o stays equal to what was stored.
	o.CreatedAt = o.CreatedAt.Truncate(time.Microsecond)
}

// InsertObservation stores o unless an observation with the same session and
// tool_use_id exists already. inserted is false for such a replay.
func (tx *Tx) InsertObservation(o *Observation) (inserted bool, err error) {
	o.normalize()
	files, err := json.Marshal(o.Files)
	if err != nil {
		return false, err
	}
	// One statement on the hot path: the unique (session_id, tool_use_id)
	// index turns a replay into no row, instead of a lookup then an insert
	// through GORM's reflection.
	err = tx.db.Raw(`INSERT INTO observations (session_id, project, prompt_number, tool_use_id, tool_name, kind, title,
			input, output, files, success, importance, duration_ms, excluded_by, command_kind, test_outcome, file_created, created_at, signature)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`,
		o.SessionID, o.Project, o.PromptNumber, o.ToolUseID, o.ToolName, o.Kind, o.Title,
		o.Input, o.Output, string(files), o.Success, o.Importance, o.DurationMS, o.ExcludedBy, o.CommandKind, o.TestOutcome, o.FileCreated, o.CreatedAt, o.Signature).
		Row().Scan(&o.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// ObservationByID loads one observation.
func (s *Store) ObservationByID(ctx context.Context, id int64) (*Observation, error) {
	var out Observation
	err := s.db.WithContext(ctx).First(&out, id).Error
	return &out, notFound(err)
}

// ObservationsByIDs loads the observations with the given ids, in id order.
func (s *Store) ObservationsByIDs(ctx context.Context, ids []int64) ([]Observation, error) {
	return byIDs[Observation](ctx, s, ids)
}

// ObservationFilter narrows an observation listing.
type ObservationFilter struct {
	ListFilter
	Kind         string
	Tool         string
	FailuresOnly bool
	// Signature keeps the failures of this signature (internal/failsig).
	Signature string
	// ByTime orders by the tool calls' own time (then id), as the feed
	// does, rather than by id (the order they were stored in).
	ByTime bool
}

// Observations lists observations newest first (one more than Limit).
func (s *Store) Observations(ctx context.Context, f ObservationFilter) ([]Observation, error) {
	q := s.db.WithContext(ctx).Model(&Observation{})
	if f.Project != "" {
		q = q.Where("project = ?", f.Project)
	}
	if f.SessionID != 0 {
		q = q.Where("session_id = ?", f.SessionID)
	}
	if f.Kind != "" {
		q = q.Where("kind = ?", f.Kind)
	}
	if f.Tool != "" {
		q = q.Where("tool_name = ?", f.Tool)
	}
	if f.FailuresOnly {
		q = q.Where("NOT success")
	}
	if f.Signature != "" {
		q = q.Where("signature = ? AND signature <> ''", f.Signature) // <> '': the partial index's condition
	}
	q = f.byPerson(q)
	order := "id DESC"
	if f.ByTime {
		order = "created_at DESC, id DESC"
	}
	var out []Observation
	err := q.Order(order).Offset(f.Offset).Limit(limitPlusOne(f.Limit)).Find(&out).Error
	return out, err
}

// ObservationsOfSession lists a session's observations in order.
func (s *Store) ObservationsOfSession(ctx context.Context, sessionID int64) ([]Observation, error) {
	var out []Observation
	err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("id").Find(&out).Error
	return out, err
}

// UnclassifiedCommands lists up to limit Bash observations stored before
// command kinds existed (CommandUnclassified), with what classifying them
// needs: tool, kind, title and the head of the input (the command).
func (s *Store) UnclassifiedCommands(ctx context.Context, limit int) ([]Observation, error) {
	var out []Observation
	err := s.db.WithContext(ctx).Model(&Observation{}).
		Select("id, tool_name, kind, title, substr(input, 1, 4000) AS input").
		Where("command_kind = ?", CommandUnclassified).Order("id").Limit(limit).Find(&out).Error
	return out, err
}

// SetCommandFields records an observation's command kind and test outcome.
func (tx *Tx) SetCommandFields(id int64, commandKind, testOutcome string) error {
	return tx.db.Exec(`UPDATE observations SET command_kind = ?, test_outcome = ? WHERE id = ?`, commandKind, testOutcome, id).Error
}
