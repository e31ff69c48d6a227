// Package settings owns the settings in force: it turns an edit into the
// settings to store (the rules every edit obeys), stores them with their
// settings_changed event, applies them to capture, and runs what follows
// a change — the hook's rules file, a retention run, semantic recall
// following its endpoint — for a save here and for another replica's
// save on PostgreSQL. Handlers decode an edit and call it; nothing else
// stores settings.
package settings

import (
	"context"
	"log/slog"
	"reflect"
	"sync"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/models"
)

// Service is the one owner of the settings in force.
type Service struct {
	store   *models.Store
	capture *capture.Service
	after   func(models.Settings)
	log     *slog.Logger
	// mu is held while settings are stored and applied, here or from
	// another replica, so that a save is applied once.
	mu sync.Mutex
}

// New returns the service over store; capture holds the settings in
// force, and after runs the follow-ups of a change (nil: none).
func New(store *models.Store, capture *capture.Service, after func(models.Settings), log *slog.Logger) *Service {
	if after == nil {
		after = func(models.Settings) {}
	}
	return &Service{store: store, capture: capture, after: after, log: log}
}

// Current returns the settings in force, secrets included: never hand
// them to a client as they are.
func (s *Service) Current() models.Settings { return s.capture.Policy().Settings }

// Edit is a user's change to the settings: the settings in force with the
// edit applied, and the endpoint keys to remove.
type Edit struct {
	Proposed                               models.Settings
	ClearSummarizerKey, ClearEmbeddingsKey bool
}

// Prepare returns the settings to store for edit over cur, by the rules
// every edit obeys (models.UpdateSettings: built-in redaction rules stay,
// keys are write-only and belong to their endpoint), and whether a key
// was dropped because its endpoint changed.
func (s *Service) Prepare(cur models.Settings, edit Edit) (next models.Settings, keyDropped bool) {
	next, keyDropped = models.UpdateSettings(cur, edit.Proposed, edit.ClearSummarizerKey)
	if edit.ClearEmbeddingsKey {
		next.Embeddings.APIKey = ""
	}
	return next, keyDropped
}

// Save validates next, stores it over cur (models.Store.SaveSettings:
// keys in their files, the settings and their event in one transaction),
// applies it to capture and runs the follow-ups.
func (s *Service) Save(ctx context.Context, cur, next models.Settings) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.store.SaveSettings(ctx, cur, next); err != nil {
		return err
	}
	s.capture.SetSettings(next)
	s.after(next)
	return nil
}

// Changed applies the settings stored now, on a settings_changed event of
// any replica of a PostgreSQL store: another replica's change of the
// embeddings endpoint, the privacy rules or retention takes effect here
// without a restart. This replica's own save is heard too; under mu the
// settings read are those Save applied already, so nothing is applied
// twice. The keys are each replica's own (files in its data directory):
// as when one saves settings, a key is dropped rather than sent to an
// endpoint whose address changed.
func (s *Service) Changed(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.store.LoadSettings(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("another replica changed the settings; reading them failed", "err", err)
		}
		return
	}
	cur := s.Current()
	if st.Embeddings.URL != cur.Embeddings.URL && st.Embeddings.APIKey != "" {
		st.Embeddings.APIKey = ""
		if err := s.store.SaveEmbeddingsKey(""); err != nil {
			s.log.Warn("another replica moved the embeddings endpoint; dropping this replica's key failed", "err", err)
		}
	}
	if st.Summarizer.BaseURL != cur.Summarizer.BaseURL && st.Summarizer.APIKey != "" {
		st.Summarizer.APIKey = ""
		if err := s.store.SaveAPIKey(""); err != nil {
			s.log.Warn("another replica moved the summarizer's endpoint; dropping this replica's key failed", "err", err)
		}
	}
	if reflect.DeepEqual(st, cur) {
		return // this replica's own save, applied already by Save
	}
	s.capture.SetSettings(st)
	s.after(st)
}
