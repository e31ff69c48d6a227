package models

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// eventInsertColumns are the columns of an event row, in the order
// appendObservationEvents binds them.
const eventInsertColumns = `kind, project, session_id, ref_id, data, created_at`

// queuedObservation is an observation waiting for its transaction's
// batched insert, with the data of the event that announces it.
type queuedObservation struct {
	o     *Observation
	event func(*Observation) any
}

// QueueObservation stores o like InsertObservation followed by AppendEvent
// of kind EventObservation with data event(o), but inside a Writer
// transaction it defers both to the end of the transaction, where the
// queued observations of the group commit go in with a few multi-row
// INSERTs (flushObservations).
//
// Why: this SQLite driver prepares each statement anew; one statement per
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
	_, err = tx.AppendEventAt(o.CreatedAt, EventObservation, o.Project, o.SessionID, o.ID, event(o))
	return err
}

// observationColumns are the columns a batched insert binds, one row of
// parameters per observation (observationArgs).
const observationColumns = `session_id, project, prompt_number, tool_use_id, tool_name, kind, title,
	input, output, files, success, importance, duration_ms, excluded_by, command_kind, test_outcome, file_created, created_at, signature`

// observationParams is how many columns observationColumns names.
const observationParams = 19

// rowsPerStatement bounds the rows of one multi-row INSERT. This driver
// prepares every statement anew (so fewer, longer statements win), but
// binds parameter i by scanning the arguments for ordinal i (quadratic in
// the parameters of one statement): 16 rows of 19 columns balance the two.
const rowsPerStatement = 16

// observationArgs appends o's values in observationColumns order.
func observationArgs(args []any, o *Observation, files string) []any {
	return append(args, o.SessionID, o.Project, o.PromptNumber, o.ToolUseID, o.ToolName, o.Kind, o.Title,
		o.Input, o.Output, files, o.Success, o.Importance, o.DurationMS, o.ExcludedBy,
		o.CommandKind, o.TestOutcome, o.FileCreated, o.CreatedAt, o.Signature)
}

// valuesSQL is "INSERT INTO table (columns) VALUES (?, …), (?, …)…" for
// rows rows of ncols parameters each, followed by tail.
func valuesSQL(table, columns string, ncols, rows int, tail string) string {
	one := "(?" + strings.Repeat(", ?", ncols-1) + ")"
	var b strings.Builder
	b.Grow(len(columns) + rows*(len(one)+2) + len(tail) + 40)
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (")
	b.WriteString(columns)
	b.WriteString(") VALUES ")
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(one)
	}
	b.WriteString(tail)
	return b.String()
}

// flushObservations inserts the queued observations and their events, in
// multi-row INSERTs of rowsPerStatement rows.
//
// Why not one statement per observation: this driver prepares every
// statement anew, so the parse, not the insert, was most of the cost.
func flushObservations(tx *gorm.DB, st *txState) error {
	queued := st.observations
	st.observations = nil
	if len(queued) == 0 {
		return nil
	}
	type stored struct {
		id        int64
		sessionID int64
		toolUseID *string
	}
	var got []stored
	args := make([]any, 0, observationParams*min(len(queued), rowsPerStatement))
	for lo := 0; lo < len(queued); lo += rowsPerStatement {
		chunk := queued[lo:min(lo+rowsPerStatement, len(queued))]
		args = args[:0]
		for _, q := range chunk {
			o := q.o
			o.normalize()
			for _, f := range []*string{&o.Project, &o.ToolName, &o.Kind, &o.Title, &o.Input, &o.Output, &o.ExcludedBy, &o.CommandKind, &o.TestOutcome, &o.Signature} {
				*f = textSafe(*f)
			}
			files, err := json.Marshal(o.Files)
			if err != nil {
				return err
			}
			args = observationArgs(args, o, string(files))
		}
		query := valuesSQL("observations", observationColumns, observationParams, len(chunk), " ON CONFLICT DO NOTHING RETURNING id, session_id, tool_use_id")
		if err := queryRows(tx, query, args, func(rows *sql.Rows) error {
			var s stored
			err := rows.Scan(&s.id, &s.sessionID, &s.toolUseID)
			got = append(got, s)
			return err
		}); err != nil {
			return fmt.Errorf("insert observations: %w", err)
		}
	}
	// Rows are inserted in order, so ids ascend along the input; a
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

// queryRows runs query and calls scan for each row it returns.
func queryRows(tx *gorm.DB, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := tx.Raw(query, args...).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// textSafe is s without NUL bytes and with invalid UTF-8 replaced: what
// every text column holds. The capture pipeline already drops NULs and
// replaces invalid UTF-8 (shape.Policy); this keeps a caller that did not
// from storing text that FTS5 and the JSON of the live stream would cut or
// mangle, and keeps o equal to what was stored.
func textSafe(s string) string {
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
	for i, q := range inserted {
		data, err := json.Marshal(q.event(q.o))
		if err != nil {
			return err
		}
		// The event carries the tool call's own time (an imported one's is
		// days ago), so the feed orders it among its peers.
		evs[i] = Event{Kind: EventObservation, Project: q.o.Project, SessionID: q.o.SessionID, RefID: q.o.ID, Data: data, CreatedAt: eventAt(q.o.CreatedAt, now)}
	}
	ids := make([]int64, 0, len(evs))
	args := make([]any, 0, 6*min(len(evs), rowsPerStatement))
	for lo := 0; lo < len(evs); lo += rowsPerStatement {
		chunk := evs[lo:min(lo+rowsPerStatement, len(evs))]
		args = args[:0]
		for _, ev := range chunk {
			args = append(args, ev.Kind, ev.Project, ev.SessionID, ev.RefID, string(ev.Data), ev.CreatedAt)
		}
		if err := queryRows(tx, valuesSQL("events", eventInsertColumns, 6, len(chunk), " RETURNING id"), args, func(rows *sql.Rows) error {
			var id int64
			err := rows.Scan(&id)
			ids = append(ids, id)
			return err
		}); err != nil {
			return fmt.Errorf("append events: %w", err)
		}
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
