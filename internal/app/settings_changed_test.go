package app

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

// TestSettingsChangedAppliesOnlyNews: a settings_changed event whose
// stored settings are those in force (a replica hearing its own save,
// which its handler applied) applies nothing again; stored settings that
// differ (another replica's save) are applied once, follow-up included.
func TestSettingsChangedAppliesOnlyNews(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := models.Open(filepath.Join(dir, "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	log := slog.New(slog.DiscardHandler)
	svc, err := capture.New(ctx, store, capture.Deps{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	var applied []models.Settings
	after := func(st models.Settings) { applied = append(applied, st) }
	mu := &sync.Mutex{}

	settingsChanged(ctx, store, svc, mu, after, log)
	if len(applied) != 0 {
		t.Fatalf("the settings in force were applied again: %d times", len(applied))
	}
	cur := svc.Policy().Settings
	next := cur
	next.Retention.ObservationDays = cur.Retention.ObservationDays + 30
	if err := store.SaveSettings(ctx, cur, next); err != nil { // as another replica would
		t.Fatal(err)
	}
	settingsChanged(ctx, store, svc, mu, after, log)
	if len(applied) != 1 || applied[0].Retention.ObservationDays != next.Retention.ObservationDays {
		t.Fatalf("another replica's change applied %d times: %+v", len(applied), applied)
	}
	if got := svc.Policy().Settings.Retention.ObservationDays; got != next.Retention.ObservationDays {
		t.Errorf("capture holds retention %d days, want %d", got, next.Retention.ObservationDays)
	}
	settingsChanged(ctx, store, svc, mu, after, log) // heard again: nothing new
	if len(applied) != 1 {
		t.Errorf("the same change applied %d times", len(applied))
	}

	// Its own save, as the settings handler makes it: stored, then
	// applied; the event it hears after is no news.
	cur = svc.Policy().Settings
	own := cur
	own.Privacy.RedactionRules = append(slices.Clone(cur.Privacy.RedactionRules), privacy.Rule{Name: "ticket", Pattern: `TCK-[0-9]{6}`, Enabled: true})
	own.Privacy.ExcludedProjects = append(slices.Clone(cur.Privacy.ExcludedProjects), "scratch")
	own.Embeddings = models.EmbeddingsSettings{URL: "http://127.0.0.1:9/", Model: "m", Dimensions: 8}
	if err := store.SaveSettings(ctx, cur, own); err != nil {
		t.Fatal(err)
	}
	svc.SetSettings(own)
	settingsChanged(ctx, store, svc, mu, after, log)
	if len(applied) != 1 {
		t.Errorf("this replica's own save applied again (%d applications)", len(applied))
	}
}
