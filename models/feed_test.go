package models

import (
	"context"
	"testing"
	"time"
)

// TestFeedEventsByTime: the feed lists events by the time of what they
// announce, newest first, whatever order they were written in (an import
// of last week's work after today's), and keeps only the kinds asked for.
func TestFeedEventsByTime(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	now := time.Now().UTC().Truncate(time.Second)
	type row struct {
		kind string
		at   time.Time
	}
	written := []row{
		{EventPrompt, now.Add(-time.Minute)},          // today
		{EventObservation, now},                       // today
		{EventPrompt, now.Add(-7 * 24 * time.Hour)},   // imported afterwards
		{EventSummary, now.Add(-7*24*time.Hour + 60)}, // its summary
		{EventSessionCompleted, time.Time{}},          // now: no time of its own
	}
	err := s.Writer.Do(context.Background(), func(tx *Tx) error {
		for i, r := range written {
			if _, err := tx.AppendEventAt(r.at, r.kind, "p", 1, int64(i+1), map[string]int{"i": i}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := s.FeedEvents(context.Background(), FeedQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, ev := range evs {
		got = append(got, ev.RefID)
	}
	if want := []int64{5, 2, 1, 4, 3}; !equalIDs(got, want) {
		t.Errorf("feed order by ref %v, want %v", got, want)
	}
	evs, err = s.FeedEvents(context.Background(), FeedQuery{Kinds: []string{EventPrompt}, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].RefID != 1 || evs[1].RefID != 3 {
		t.Errorf("prompts only, limit 1 (+1): %+v", evs)
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
