package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// sqliteTime is how the driver writes a time.Time parameter; rows inserted
// from JSON use it too, so every stored time reads back the same way.
const sqliteTime = "2006-01-02 15:04:05.999999999-07:00"

// queuedObservation is an observation waiting for its transaction's
// batched insert, with the data of the event that announces it.
type queuedObservation struct {
	o     *Observation
	event func(*Observation) any
}

// QueueObservation stores o like InsertObservation followed by AppendEvent
// of kind EventObservation with data event(o), but inside a Writer
// transaction it defers both to the end of the transaction, where every
// queued observation of the group commit goes in with one INSERT.
//
// Why: this SQLite driver prepares each statement anew, and FTS5 flushes
// its pending index at every statement that touches it; one statement per
// observation cost most of the ingest time. A replay (same session and
// tool_use_id) stores nothing and announces nothing, as before.
//
// o must not be used by the caller until the transaction has committed.
func (tx *Tx) QueueObservation(o *Observation, event func(*Observation) any) error {
	if st := txStateOf(tx.db); st != nil {
		st.observations = append(st.observations, queuedObservation{o: o, event: event})
		return nil
	}
	inserted, err := tx.InsertObservation(o)
	if err != nil || !inserted {
		return err
	}
	_, err = tx.AppendEvent(EventObservation, o.Project, o.SessionID, o.ID, event(o))
	return err
}

// obsRow is an observation as one element of the JSON array bound to the
// batched INSERT; short keys keep the parameter small.
type obsRow struct {
	SessionID    int64   `json:"s"`
	Project      string  `json:"p"`
	PromptNumber int     `json:"n"`
	ToolUseID    *string `json:"u"`
	ToolName     string  `json:"t"`
	Kind         string  `json:"k"`
	Title        string  `json:"h"`
	Input        string  `json:"i"`
	Output       string  `json:"o"`
	Files        string  `json:"f"`
	Success      bool    `json:"ok"`
	Importance   float64 `json:"m"`
	DurationMS   int64   `json:"d"`
	ExcludedBy   string  `json:"x"`
	CommandKind  string  `json:"ck"`
	TestOutcome  string  `json:"to"`
	FileCreated  bool    `json:"fc"`
	CreatedAt    string  `json:"c"`
}

// One statement for any number of rows: the rows travel as a single JSON
// parameter, so neither the statement text nor the binding grows with the
// batch (binding N×15 parameters is quadratic in this driver).
const insertObservationsSQL = `INSERT INTO observations (session_id, project, prompt_number, tool_use_id, tool_name,
		kind, title, input, output, files, success, importance, duration_ms, excluded_by, command_kind, test_outcome, file_created, created_at)
	SELECT value->>'s', value->>'p', value->>'n', value->>'u', value->>'t', value->>'k', value->>'h',
		value->>'i', value->>'o', value->>'f', value->>'ok', value->>'m', value->>'d', value->>'x', value->>'ck', value->>'to', value->>'fc', value->>'c'
	FROM json_each(?) ORDER BY key
	ON CONFLICT DO NOTHING RETURNING id, session_id, tool_use_id`

type evRow struct {
	Kind      string `json:"k"`
	Project   string `json:"p"`
	SessionID int64  `json:"s"`
	RefID     int64  `json:"r"`
	Data      string `json:"d"`
	CreatedAt string `json:"c"`
}

const insertEventsSQL = `INSERT INTO events (kind, project, session_id, ref_id, data, created_at)
	SELECT value->>'k', value->>'p', value->>'s', value->>'r', value->>'d', value->>'c'
	FROM json_each(?) ORDER BY key RETURNING id`

// encodeJSON marshals v without HTML escaping (SQLite decodes either).
func encodeJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// flushObservations inserts the queued observations and their events.
func flushObservations(tx *gorm.DB, st *txState) error {
	queued := st.observations
	st.observations = nil
	if len(queued) == 0 {
		return nil
	}
	rows := make([]obsRow, len(queued))
	for i, q := range queued {
		o := q.o
		o.normalize()
		files, err := json.Marshal(o.Files)
		if err != nil {
			return err
		}
		for _, f := range []*string{&o.Project, &o.ToolName, &o.Kind, &o.Title, &o.Input, &o.Output, &o.ExcludedBy, &o.CommandKind, &o.TestOutcome} {
			*f = jsonSafe(*f)
		}
		rows[i] = obsRow{o.SessionID, o.Project, o.PromptNumber, o.ToolUseID, o.ToolName, o.Kind, o.Title,
			o.Input, o.Output, string(files), o.Success, o.Importance, o.DurationMS, o.ExcludedBy,
			o.CommandKind, o.TestOutcome, o.FileCreated, o.CreatedAt.Format(sqliteTime)}
	}
	param, err := encodeJSON(rows)
	if err != nil {
		return err
	}
	type stored struct {
		id        int64
		sessionID int64
		toolUseID *string
	}
	res, err := tx.Raw(insertObservationsSQL, param).Rows()
	if err != nil {
		return fmt.Errorf("insert observations: %w", err)
	}
	var got []stored
	for res.Next() {
		var s stored
		if err := res.Scan(&s.id, &s.sessionID, &s.toolUseID); err != nil {
			res.Close()
			return err
		}
		got = append(got, s)
	}
	res.Close()
	if err := res.Err(); err != nil {
		return fmt.Errorf("insert observations: %w", err)
	}
	// Rows are inserted in array order, so ids ascend along the input; a
	// replayed row (a conflict) is simply absent. Walk both in order.
	sort.Slice(got, func(i, j int) bool { return got[i].id < got[j].id })
	var inserted []*queuedObservation
	for i := range queued {
		if len(got) == 0 {
			break
		}
		o, g := queued[i].o, got[0]
		if g.sessionID != o.SessionID || !sameToolUse(g.toolUseID, o.ToolUseID) {
			continue
		}
		o.ID = g.id
		got = got[1:]
		inserted = append(inserted, &queued[i])
	}
	if len(got) != 0 {
		return fmt.Errorf("insert observations: %d stored rows matched no queued observation", len(got))
	}
	return appendObservationEvents(tx, st, inserted)
}

// jsonSafe is s as it survives the trip through a JSON parameter: SQLite's
// JSON functions end a string at a NUL byte, and JSON cannot carry invalid
// UTF-8. The capture pipeline already drops NULs and replaces invalid
// UTF-8 (ingest.Policy); this keeps the store from truncating if a caller
// did not, and keeps o equal to what was stored.
func jsonSafe(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

func sameToolUse(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// appendObservationEvents logs one event per inserted observation, in order.
func appendObservationEvents(tx *gorm.DB, st *txState, inserted []*queuedObservation) error {
	if len(inserted) == 0 {
		return nil
	}
	now := time.Now().UTC()
	evs := make([]Event, len(inserted))
	rows := make([]evRow, len(inserted))
	for i, q := range inserted {
		data, err := json.Marshal(q.event(q.o))
		if err != nil {
			return err
		}
		evs[i] = Event{Kind: EventObservation, Project: q.o.Project, SessionID: q.o.SessionID, RefID: q.o.ID, Data: data, CreatedAt: now}
		rows[i] = evRow{EventObservation, q.o.Project, q.o.SessionID, q.o.ID, string(data), now.Format(sqliteTime)}
	}
	param, err := encodeJSON(rows)
	if err != nil {
		return err
	}
	res, err := tx.Raw(insertEventsSQL, param).Rows()
	if err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	ids := make([]int64, 0, len(evs))
	for res.Next() {
		var id int64
		if err := res.Scan(&id); err != nil {
			res.Close()
			return err
		}
		ids = append(ids, id)
	}
	res.Close()
	if err := res.Err(); err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	if len(ids) != len(evs) {
		return fmt.Errorf("append events: %d of %d stored", len(ids), len(evs))
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i := range evs {
		evs[i].ID = ids[i]
	}
	st.events = append(st.events, evs...)
	return nil
}
