package models

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Timeline item types.
const (
	TimelinePrompt      = "prompt"
	TimelineObservation = "observation"
	TimelineSummary     = "summary"
)

// TimelineQuery picks a slice of one session's timeline: around an anchor
// observation (Before observations before it, After after it), or a page of
// a session's observations (SessionID with Offset and Limit).
type TimelineQuery struct {
	Anchor        int64
	Before, After int
	SessionID     int64
	Offset, Limit int
}

// TimelineItem is one entry of a timeline; exactly one of Prompt,
// Observation and Summary is set, as Type says.
type TimelineItem struct {
	Type        string       `json:"type"`
	At          time.Time    `json:"at"`
	Prompt      *Prompt      `json:"prompt,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	Summary     *Summary     `json:"summary,omitempty"`
}

// Timeline is a slice of a session in order: its observations with the
// prompts and summaries of the turns they belong to.
type Timeline struct {
	Session *Session       `json:"session"`
	Anchor  int64          `json:"anchor,omitempty"`
	Items   []TimelineItem `json:"items"`
	// HasBefore and HasAfter tell whether the session has observations
	// before and after the slice.
	HasBefore bool `json:"hasBefore"`
	HasAfter  bool `json:"hasAfter"`
}

// Timeline loads the slice of a session's timeline q asks for. The
// observations are chosen by id within the session; the prompts and turn
// summaries are those of the prompt numbers the observations span, and the
// session's final summaries come with a slice that reaches its end.
func (s *Store) Timeline(ctx context.Context, q TimelineQuery) (*Timeline, error) {
	db := s.db.WithContext(ctx)
	var obs []Observation
	tl := &Timeline{Anchor: q.Anchor}
	switch {
	case q.Anchor > 0:
		anchor, err := s.ObservationByID(ctx, q.Anchor)
		if err != nil {
			return nil, err
		}
		q.SessionID = anchor.SessionID
		var before, after []Observation
		if err := db.Where("session_id = ? AND id < ?", anchor.SessionID, anchor.ID).Order("id DESC").Limit(q.Before + 1).Find(&before).Error; err != nil {
			return nil, err
		}
		if err := db.Where("session_id = ? AND id > ?", anchor.SessionID, anchor.ID).Order("id").Limit(q.After + 1).Find(&after).Error; err != nil {
			return nil, err
		}
		if len(before) > q.Before {
			before, tl.HasBefore = before[:q.Before], true
		}
		if len(after) > q.After {
			after, tl.HasAfter = after[:q.After], true
		}
		for i := len(before) - 1; i >= 0; i-- {
			obs = append(obs, before[i])
		}
		obs = append(obs, *anchor)
		obs = append(obs, after...)
	case q.SessionID > 0:
		if err := db.Where("session_id = ?", q.SessionID).Order("id").Offset(q.Offset).Limit(q.Limit + 1).Find(&obs).Error; err != nil {
			return nil, err
		}
		tl.HasBefore = q.Offset > 0
		if len(obs) > q.Limit {
			obs, tl.HasAfter = obs[:q.Limit], true
		}
	default:
		return nil, fmt.Errorf("%w: a timeline needs an anchor observation or a session", ErrInvalid)
	}
	sess, err := s.SessionByID(ctx, q.SessionID)
	if err != nil {
		return nil, err
	}
	tl.Session = sess
	// The turns the slice spans: from the first observation's prompt (or
	// the session's start) to the last one's (or the session's end).
	lo, hi := 0, 1<<30
	if len(obs) > 0 && tl.HasBefore {
		lo = obs[0].PromptNumber
	}
	if len(obs) > 0 && tl.HasAfter {
		hi = obs[len(obs)-1].PromptNumber
	}
	var prompts []Prompt
	if err := db.Where("session_id = ? AND number BETWEEN ? AND ?", sess.ID, lo, hi).Order("number").Find(&prompts).Error; err != nil {
		return nil, err
	}
	var sums []Summary
	sq := db.Where("session_id = ?", sess.ID)
	if tl.HasAfter {
		sq = sq.Where("kind = ? AND prompt_number BETWEEN ? AND ?", SummaryTurn, lo, hi)
	} else {
		sq = sq.Where("(kind != ? OR prompt_number >= ?)", SummaryTurn, lo)
	}
	if err := sq.Order("id").Find(&sums).Error; err != nil {
		return nil, err
	}
	tl.Items = make([]TimelineItem, 0, len(obs)+len(prompts)+len(sums))
	for i := range prompts {
		tl.Items = append(tl.Items, TimelineItem{Type: TimelinePrompt, At: prompts[i].CreatedAt, Prompt: &prompts[i]})
	}
	for i := range obs {
		tl.Items = append(tl.Items, TimelineItem{Type: TimelineObservation, At: obs[i].CreatedAt, Observation: &obs[i]})
	}
	for i := range sums {
		tl.Items = append(tl.Items, TimelineItem{Type: TimelineSummary, At: sums[i].CreatedAt, Summary: &sums[i]})
	}
	order := map[string]int{TimelinePrompt: 0, TimelineObservation: 1, TimelineSummary: 2}
	sort.SliceStable(tl.Items, func(i, j int) bool {
		a, b := tl.Items[i], tl.Items[j]
		if !a.At.Equal(b.At) {
			return a.At.Before(b.At)
		}
		return order[a.Type] < order[b.Type]
	})
	return tl, nil
}
