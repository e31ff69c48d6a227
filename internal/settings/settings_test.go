package settings

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

// TestChangedAppliesOnlyNews: a settings_changed event whose
// stored settings are those in force (a replica hearing its own save,
// which its handler applied) applies nothing again; stored settings that
// differ (another replica's save) are applied once, follow-up included.
func TestChangedAppliesOnlyNews(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := models.Open(filepath.Join(dir, "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	conf, err := Load(ctx, store, nil)
	if err != nil {
		t.Fatal(err)
	}
	var applied []models.Settings
	conf.OnChange(func(st models.Settings) { applied = append(applied, st) })

	mustChange(t, conf)
	if len(applied) != 0 {
		t.Fatalf("the settings in force were applied again: %d times", len(applied))
	}
	cur := conf.Current()
	next := cur
	next.Retention.ObservationDays = cur.Retention.ObservationDays + 30
	if err := store.SaveSettings(ctx, cur, next); err != nil { // as another replica would
		t.Fatal(err)
	}
	mustChange(t, conf)
	if len(applied) != 1 || applied[0].Retention.ObservationDays != next.Retention.ObservationDays {
		t.Fatalf("another replica's change applied %d times: %+v", len(applied), applied)
	}
	if got := conf.Current().Retention.ObservationDays; got != next.Retention.ObservationDays {
		t.Errorf("capture holds retention %d days, want %d", got, next.Retention.ObservationDays)
	}
	mustChange(t, conf) // heard again: nothing new
	if len(applied) != 1 {
		t.Errorf("the same change applied %d times", len(applied))
	}

	// Its own save, as the settings handler makes it (Save: stored, then
	// applied); the event it hears after is no news.
	cur = conf.Current()
	own := cur
	own.Privacy.RedactionRules = append(slices.Clone(cur.Privacy.RedactionRules), privacy.Rule{Name: "ticket", Pattern: `TCK-[0-9]{6}`, Enabled: true})
	own.Privacy.ExcludedProjects = append(slices.Clone(cur.Privacy.ExcludedProjects), "scratch")
	own.Embeddings = models.EmbeddingsSettings{URL: "http://127.0.0.1:9/", Model: "m", Dimensions: 8}
	if err := conf.Save(ctx, cur, own); err != nil {
		t.Fatal(err)
	}
	if len(applied) != 2 || !slices.Equal(applied[1].Privacy.ExcludedProjects, own.Privacy.ExcludedProjects) {
		t.Fatalf("Save ran the follow-ups %d times, want once more", len(applied))
	}
	mustChange(t, conf)
	if len(applied) != 2 {
		t.Errorf("this replica's own save applied again (%d applications)", len(applied))
	}
}

// TestPrepareClearsKeys: an edit that clears the embeddings key clears it
// whatever was sent for it, and a summarizer key whose endpoint moved is
// dropped and said so; the built-in rules stay.
func TestPrepareClearsKeys(t *testing.T) {
	cur := models.DefaultSettings()
	cur.Summarizer.BaseURL, cur.Summarizer.APIKey = "https://a.example/v1", "sk-old"
	cur.Embeddings = models.EmbeddingsSettings{URL: "http://127.0.0.1:9/", Model: "m", Dimensions: 8, APIKey: "ek-old"}
	conf := &Service{}

	proposed := cur
	proposed.Summarizer.BaseURL, proposed.Summarizer.APIKey = "https://b.example/v1", models.APIKeySet
	proposed.Privacy.RedactionRules = nil
	next, dropped := conf.Prepare(cur, Edit{Proposed: proposed, ClearEmbeddingsKey: true})
	if !dropped || next.Summarizer.APIKey != "" {
		t.Errorf("a key sent to a new endpoint: dropped %v, key %q; want dropped", dropped, next.Summarizer.APIKey)
	}
	if next.Embeddings.APIKey != "" {
		t.Errorf("the embeddings key = %q after clearing it", next.Embeddings.APIKey)
	}
	if len(next.Privacy.RedactionRules) != len(cur.Privacy.RedactionRules) {
		t.Errorf("%d redaction rules after an edit that sent none, want the %d built-in", len(next.Privacy.RedactionRules), len(cur.Privacy.RedactionRules))
	}
	next, dropped = conf.Prepare(cur, Edit{Proposed: cur})
	if dropped || next.Summarizer.APIKey != "sk-old" || next.Embeddings.APIKey != "ek-old" {
		t.Errorf("an edit that changes no endpoint kept keys %q %q (dropped %v)", next.Summarizer.APIKey, next.Embeddings.APIKey, dropped)
	}
}

func mustChange(t *testing.T, conf *Service) {
	t.Helper()
	if err := conf.Changed(context.Background()); err != nil {
		t.Fatal(err)
	}
}
