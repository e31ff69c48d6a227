package models

import (
	"context"
)

// feedKinds are the event kinds the viewer's feed shows as rows.
var feedKinds = []string{EventSessionStarted, EventPrompt, EventObservation, EventSummary, EventSessionCompleted}

// FeedQuery narrows the feed's events.
type FeedQuery struct {
	Project string
	// Kinds keeps the events of these kinds (of feedKinds); empty is all
	// of feedKinds.
	Kinds  []string
	Offset int
	Limit  int
}

// FeedEvents lists the feed's events newest first: what happened across
// prompts, observations, summaries and session starts and ends, by the
// time of what each announces (an imported turn of last month sits under
// today's work, however recently it was imported), then by id. It fetches
// one row more than Limit so callers can tell whether more follow.
func (s *Store) FeedEvents(ctx context.Context, f FeedQuery) ([]Event, error) {
	kinds := feedKinds
	if len(f.Kinds) > 0 {
		kinds = f.Kinds
	}
	q := s.db.WithContext(ctx).Select(s.eventColumns()).Where("kind IN ?", kinds)
	if f.Project != "" {
		q = q.Where("project = ?", f.Project)
	}
	var out []Event
	err := q.Order("created_at DESC, id DESC").Offset(f.Offset).Limit(limitPlusOne(f.Limit)).Find(&out).Error
	return out, err
}

// EventByID loads one event of the log.
func (s *Store) EventByID(ctx context.Context, id int64) (*Event, error) {
	var out Event
	err := s.db.WithContext(ctx).Select(s.eventColumns()).First(&out, id).Error
	return &out, notFound(err)
}

// eventColumns reads data as a BLOB (bytea on PostgreSQL), so it scans
// into json.RawMessage whether it was stored as text or as bytes.
func (s *Store) eventColumns() string {
	if s.Postgres() {
		return "id, kind, project, session_id, ref_id, convert_to(data, 'UTF8') AS data, created_at"
	}
	return "id, kind, project, session_id, ref_id, CAST(data AS BLOB) AS data, created_at"
}

// PromptsByIDs loads the prompts with the given ids, in id order.
func (s *Store) PromptsByIDs(ctx context.Context, ids []int64) ([]Prompt, error) {
	return byIDs[Prompt](ctx, s, ids)
}

// SummariesByIDs loads the summaries with the given ids, in id order.
func (s *Store) SummariesByIDs(ctx context.Context, ids []int64) ([]Summary, error) {
	return byIDs[Summary](ctx, s, ids)
}

// byIDs loads the rows of T's table with the given ids, in id order.
func byIDs[T any](ctx context.Context, s *Store, ids []int64) ([]T, error) {
	var out []T
	if len(ids) == 0 {
		return out, nil
	}
	err := s.db.WithContext(ctx).Where("id IN ?", ids).Order("id").Find(&out).Error
	return out, err
}

// Facets are the values the viewer offers as filters.
type Facets struct {
	Projects []string
	Tools    []string
	Kinds    []string
}

// ObservationKinds lists every observation kind, for filters.
var ObservationKinds = []string{KindAgent, KindBash, KindExcluded, KindFailure, KindFileChange, KindMCP, KindRead, KindSearch, KindTest, KindToolUse, KindWeb}

// facetToolWindow is how many recent observations the tool filter's
// choices come from: a bounded read however large the database is.
const facetToolWindow = 5000

// FeedFacets lists the projects (from the sessions table, by its index),
// the tools seen among the latest observations, and the observation kinds,
// each sorted. It stays cheap on a database of millions of rows.
func (s *Store) FeedFacets(ctx context.Context) (Facets, error) {
	f := Facets{Kinds: ObservationKinds}
	db := s.db.WithContext(ctx)
	if err := db.Raw(`SELECT DISTINCT project FROM sessions WHERE project != '' ORDER BY project`).Scan(&f.Projects).Error; err != nil {
		return f, err
	}
	err := db.Raw(`SELECT DISTINCT tool_name FROM (SELECT tool_name FROM observations ORDER BY id DESC LIMIT ?) AS recent
		WHERE tool_name != '' ORDER BY tool_name`, facetToolWindow).Scan(&f.Tools).Error
	return f, err
}
