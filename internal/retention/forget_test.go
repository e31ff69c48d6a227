package retention_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/retention"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// Retention deletion gives the forget guarantee: an old observation
// holding a secret is gone from search, the event log and every byte of
// the data directory, and the recent one stays.
func TestRetentionLeavesNoTrace(t *testing.T) {
	dir := t.TempDir()
	s, err := models.Open(filepath.Join(dir, "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const secret = "ghp_Zq8vKx3RetentionOldSecret0123456789"
	now := time.Now().UTC()
	recordSession(t, s, "s", []models.Observation{
		{Title: "old call " + secret, Output: "token " + secret, CreatedAt: now.Add(-40 * 24 * time.Hour)},
		{Title: "recent call", CreatedAt: now},
	})
	if err := s.FlushSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckpointTruncate(); err != nil { // the secret is in the database file itself
		t.Fatal(err)
	}
	if len(testutil.FilesHolding(t, dir, secret)) == 0 {
		t.Fatal("the seeded secret is not on disk: the test proves nothing")
	}
	n, err := retention.Apply(ctx, s, 30, now)
	if err != nil || n != 1 {
		t.Fatalf("Apply = %d, %v; want 1", n, err)
	}
	if files := testutil.FilesHolding(t, dir, secret); len(files) > 0 {
		t.Fatalf("after retention, %v still hold the secret", files)
	}
	if files := testutil.FilesHolding(t, dir, "RetentionOldSecret"); len(files) > 0 {
		t.Fatalf("after retention, %v still hold part of the secret", files)
	}
	hits, err := s.Search(ctx, models.SearchQuery{Q: "old"})
	if err != nil || len(hits) != 0 {
		t.Fatalf("search after retention: %d hits, %v", len(hits), err)
	}
	events, err := s.EventsAfter(ctx, 0, "s", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[0].Kind != models.EventObservation || events[1].Kind != models.EventForgotten {
		t.Fatalf("event log after retention: %+v", events)
	}
}

// recordSession stores a session (its Claude id and project are name)
// with obs, each a Bash call of its own prompt number unless it has one,
// and their events, as capture does; it returns the session's id.
func recordSession(t *testing.T, s *models.Store, name string, obs []models.Observation) int64 {
	t.Helper()
	var id int64
	err := s.Writer.Do(context.Background(), func(tx *models.Tx) error {
		sess := models.Session{ClaudeSessionID: name, Project: name, StartedAt: time.Now().UTC(), Status: models.StatusActive}
		if err := tx.Insert(&sess); err != nil {
			return err
		}
		id = sess.ID
		for i := range obs {
			o := &obs[i]
			o.SessionID, o.Project, o.ToolName, o.Kind = sess.ID, name, "Bash", "bash"
			if o.PromptNumber == 0 {
				o.PromptNumber = i + 1
			}
			if _, err := tx.InsertObservation(o); err != nil {
				return err
			}
			if _, err := tx.AppendEvent(models.EventObservation, name, sess.ID, o.ID, map[string]any{"title": o.Title}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
