package models

import (
	"context"
)

// FeedKinds are the event kinds the viewer's feed shows as rows.
var FeedKinds = []string{EventSessionStarted, EventPrompt, EventObservation, EventSummary, EventSessionCompleted}

// FeedEvents lists the feed's events newest first: what happened, in commit
// order, across prompts, observations, summaries and session starts and ends.
// It fetches one row more than limit so callers can tell whether more follow.
func (s *Store) FeedEvents(ctx context.Context, project string, offset, limit int) ([]Event, error) {
	q := s.DB.WithContext(ctx).Where("kind IN ?", FeedKinds)
	if project != "" {
		q = q.Where("project = ?", project)
	}
	var out []Event
	err := q.Order("id DESC").Offset(offset).Limit(limitPlusOne(limit)).Find(&out).Error
	return out, err
}

// EventByID loads one event of the log.
func (s *Store) EventByID(ctx context.Context, id int64) (*Event, error) {
	var out Event
	err := s.DB.WithContext(ctx).First(&out, id).Error
	return &out, notFound(err)
}

// PromptsByIDs loads the prompts with the given ids, in id order.
func (s *Store) PromptsByIDs(ctx context.Context, ids []int64) ([]Prompt, error) {
	var out []Prompt
	if len(ids) == 0 {
		return out, nil
	}
	err := s.DB.WithContext(ctx).Where("id IN ?", ids).Order("id").Find(&out).Error
	return out, err
}

// SummariesByIDs loads the summaries with the given ids, in id order.
func (s *Store) SummariesByIDs(ctx context.Context, ids []int64) ([]Summary, error) {
	var out []Summary
	if len(ids) == 0 {
		return out, nil
	}
	err := s.DB.WithContext(ctx).Where("id IN ?", ids).Order("id").Find(&out).Error
	return out, err
}

// Facets are the distinct values the viewer offers as filters.
type Facets struct {
	Projects []string
	Tools    []string
	Kinds    []string
}

// FeedFacets lists the projects, tools and observation kinds recorded so
// far, each sorted.
func (s *Store) FeedFacets(ctx context.Context) (Facets, error) {
	var f Facets
	db := s.DB.WithContext(ctx)
	if err := db.Raw(`SELECT project FROM sessions WHERE project != '' GROUP BY project ORDER BY project`).Scan(&f.Projects).Error; err != nil {
		return f, err
	}
	if err := db.Raw(`SELECT tool_name FROM observations WHERE tool_name != '' GROUP BY tool_name ORDER BY tool_name`).Scan(&f.Tools).Error; err != nil {
		return f, err
	}
	err := db.Raw(`SELECT kind FROM observations WHERE kind != '' GROUP BY kind ORDER BY kind`).Scan(&f.Kinds).Error
	return f, err
}
