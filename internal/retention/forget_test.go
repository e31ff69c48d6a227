package retention_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/privacy"
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
	testutil.RecordSession(t, s, "s", []models.Observation{
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

// Re-applying the redaction rules leaves no trace of the text they
// rewrite: not in the database file, its -wal or -shm, nor anywhere else
// in the data directory, read as they are (nothing checkpointed by the
// test), and on PostgreSQL in no row of any table.
func TestReapplyLeavesNoTrace(t *testing.T) {
	dir := t.TempDir()
	s := testutil.OpenStore(t, dir)
	defer s.Close()
	ctx := context.Background()
	const mark = "Reapply4418OldText"
	now := time.Now().UTC()
	err := s.Writer.Do(ctx, func(tx *models.Tx) error {
		sess := models.Session{ClaudeSessionID: "s", Project: "p", StartedAt: now, Status: models.StatusActive, LastAssistantMessage: "saw " + mark}
		if err := tx.Insert(&sess); err != nil {
			return err
		}
		p := models.Prompt{SessionID: sess.ID, Project: "p", Number: 1, Text: "keep " + mark + " safe", CreatedAt: now}
		if err := tx.Insert(&p); err != nil {
			return err
		}
		for i := range 50 { // enough pages for the -wal to matter
			o := models.Observation{SessionID: sess.ID, Project: "p", PromptNumber: 1, ToolName: "Bash", Kind: "bash",
				Title: fmt.Sprintf("call %d %s", i, mark), Output: strings.Repeat("out "+mark+" ", 20), Success: true, CreatedAt: now}
			if _, err := tx.InsertObservation(&o); err != nil {
				return err
			}
			if _, err := tx.AppendEvent(models.EventObservation, "p", sess.ID, o.ID, map[string]any{"title": o.Title}); err != nil {
				return err
			}
		}
		sum := models.Summary{SessionID: sess.ID, Project: "p", PromptNumber: 1, Kind: models.SummaryTurn, Request: "keep " + mark, CreatedAt: now}
		return tx.InsertSummary(&sum)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FlushSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.Postgres() && len(testutil.FilesHolding(t, dir, mark)) == 0 {
		t.Fatal("the text is not on disk: the test proves nothing")
	}
	r := privacy.New([]privacy.Rule{{Name: "old", Pattern: `Reapply\d+OldText`, Enabled: true}})
	res, err := retention.Reapply(ctx, s, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed["observations"] != 50 || res.Scrub == nil || !res.Scrub.Vacuumed {
		t.Fatalf("reapply: %+v, want 50 observations rewritten and the files scrubbed", res)
	}
	for _, part := range []string{mark, "4418OldText"} {
		if files := testutil.FilesHolding(t, dir, part); len(files) > 0 {
			t.Errorf("after re-applying the rules, %v still hold %q", files, part)
		}
		if s.Postgres() && bytes.Contains(bytes.ToLower(testutil.StoredBytes(t, s)), bytes.ToLower([]byte(part))) {
			t.Errorf("after re-applying the rules, a row of the PostgreSQL database still holds %q", part)
		}
	}
	if hits, err := s.Search(ctx, models.SearchQuery{Q: mark}); err != nil || len(hits) > 0 {
		t.Errorf("search for the old text: %d hits, %v", len(hits), err)
	}
}
