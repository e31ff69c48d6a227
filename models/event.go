package models

import (
	"context"
	"encoding/json"
	"time"
)

// Event kinds on the live stream.
const (
	EventSessionStarted   = "session_started"
	EventPrompt           = "prompt"
	EventObservation      = "observation"
	EventSummary          = "summary"
	EventSessionCompleted = "session_completed"
	EventSettingsChanged  = "settings_changed"
	// EventImportProgress is where an import started from the viewer is.
	// It is published to the stream as it happens and never logged: it
	// has no id, and a replay does not repeat it.
	EventImportProgress = "import_progress"
)

// Event is one entry of the event log behind the live stream. It is written
// in the same transaction as the data it announces, so its id orders events
// and lets a client replay what it missed with Last-Event-ID.
type Event struct {
	ID        int64           `gorm:"primaryKey" json:"id"`
	Kind      string          `json:"kind"`
	Project   string          `json:"project"`
	SessionID int64           `json:"sessionId"`
	RefID     int64           `json:"refId"`
	Data      json.RawMessage `gorm:"type:text;serializer:json" json:"data"`
	CreatedAt time.Time       `json:"createdAt"`
}

// AppendEvent writes an event to the log inside tx, stamped now. data is
// marshalled to JSON and becomes the SSE payload. Inside a Writer
// transaction the event is also handed to the writer's OnCommit once the
// transaction commits.
func (tx *Tx) AppendEvent(kind, project string, sessionID, refID int64, data any) (*Event, error) {
	return tx.AppendEventAt(time.Time{}, kind, project, sessionID, refID, data)
}

// AppendEventAt is AppendEvent for a row with a time of its own: the event
// carries at (now when at is zero), the time of what it announces, so an
// imported tool call or a summary of last week's turn takes its place in
// the feed (ordered by time, FeedEvents) instead of at the top. Its id
// still orders the stream (Last-Event-ID).
func (tx *Tx) AppendEventAt(at time.Time, kind, project string, sessionID, refID int64, data any) (*Event, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	ev := &Event{Kind: kind, Project: project, SessionID: sessionID, RefID: refID, Data: b, CreatedAt: eventAt(at, time.Now().UTC())}
	err = tx.db.Raw(`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		ev.Kind, ev.Project, ev.SessionID, ev.RefID, string(b), ev.CreatedAt).Row().Scan(&ev.ID)
	if err != nil {
		return nil, err
	}
	if st := txStateOf(tx.db); st != nil {
		st.events = append(st.events, *ev)
	}
	return ev, nil
}

// eventAt is at in UTC, or now when at is zero.
func eventAt(at, now time.Time) time.Time {
	if at.IsZero() {
		return now
	}
	return at.UTC()
}

// EventsAfter returns up to limit events with id > after, oldest first,
// restricted to project when it is not empty (settings changes and
// forgotten rows are for every project).
func (s *Store) EventsAfter(ctx context.Context, after int64, project string, limit int) ([]Event, error) {
	q := s.db.WithContext(ctx).Where("id > ?", after)
	if project != "" {
		q = q.Where("project = ? OR kind IN ?", project, []string{EventSettingsChanged, EventForgotten})
	}
	var out []Event
	err := q.Order("id").Limit(limit).Find(&out).Error
	return out, err
}

// LastEventID is the id of the newest event, 0 when there is none.
func (s *Store) LastEventID(ctx context.Context) (int64, error) {
	var id int64
	err := s.db.WithContext(ctx).Raw(`SELECT COALESCE(MAX(id), 0) FROM events`).Row().Scan(&id)
	return id, err
}
