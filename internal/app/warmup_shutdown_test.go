package app_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// warmRows is how many stored vectors the warm-up of
// TestShutdownWaitsForVectorWarmUp loads: enough for a load long enough
// to be caught under way (a few thousand rows take tens of milliseconds).
const warmRows = 3000

// seedVectors stores warmRows observations of project wp with their
// vectors of model m (as the indexer would have stored them), and the
// embeddings settings pointing at url, in the store of dataDir.
func seedVectors(t *testing.T, dataDir, url string) {
	t.Helper()
	s := testutil.OpenStore(t, dataDir)
	defer s.Close()
	ctx := context.Background()
	at := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	err := s.Writer.Do(ctx, func(tx *models.Tx) error {
		sess, err := tx.EnsureSession(&models.Session{ClaudeSessionID: "warm", Project: "wp", StartedAt: at})
		if err != nil {
			return err
		}
		items := make([]models.EmbedItem, 0, warmRows)
		vecs := make([][]float32, 0, warmRows)
		for i := range warmRows {
			title := fmt.Sprintf("ran check %d of the warm-up", i)
			o := &models.Observation{SessionID: sess.ID, Project: "wp", ToolName: "Bash", Kind: models.KindBash, Title: title,
				Input: "{}", Output: "ok", Files: []string{}, Success: true, Importance: 0.5, CreatedAt: at.Add(time.Duration(i) * time.Second)}
			if _, err := tx.InsertObservation(o); err != nil {
				return err
			}
			items = append(items, models.EmbedItem{Type: models.SearchObservation, ID: o.ID})
			vecs = append(vecs, embedtest.Vector(title, 64))
		}
		return tx.SaveEmbeddings("m", items, vecs)
	})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := s.LoadSettings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := cur
	next.Embeddings = models.EmbeddingsSettings{URL: url, Model: "m", Dimensions: 64}
	if err := s.SaveSettings(ctx, cur, next); err != nil {
		t.Fatal(err)
	}
}

// TestShutdownWaitsForVectorWarmUp: a worker starting with embeddings
// on warms its vector index in the background; shut down while
// that load is under way, it cancels the load and waits for it before
// closing the store: once Shutdown returns no load runs on, and nothing
// failed (no warning or error logged: the load never read a closed
// store).
func TestShutdownWaitsForVectorWarmUp(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	dir := t.TempDir()
	seedVectors(t, dir, fake.URL)
	// Each start warms the index again: try a few starts until one is
	// caught with its load under way (a load that ends before the test
	// looks proves nothing).
	for attempt := 1; attempt <= 5; attempt++ {
		logs := &testutil.SyncBuffer{}
		srv := testutil.NewServerIn(t, dir, testutil.FastEmbed, func(o *app.Options) {
			o.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
		})
		caught := false
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			if modelstest.VectorIndexLoading(srv.Store) {
				caught = true
				break
			}
			if strings.Contains(logs.String(), "vector index loaded") {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if err := srv.Shutdown(10 * time.Second); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		if !caught {
			t.Logf("attempt %d: the warm-up ended before the test saw it", attempt)
			continue
		}
		if modelstest.VectorIndexLoading(srv.Store) {
			t.Error("a load of the vector index runs on after Shutdown returned")
		}
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				t.Errorf("logged at shutdown: %s", line)
			}
		}
		if strings.Contains(logs.String(), "vector index loaded") {
			t.Logf("the warm-up ended before it was cancelled:\n%s", logs.String())
		}
		return
	}
	t.Fatal("no start was caught with its warm-up under way")
}
