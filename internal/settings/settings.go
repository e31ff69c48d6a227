// Package settings owns the settings in force: it loads them and holds
// them compiled (the privacy policy every part of the worker reads),
// turns an edit into the settings to store (the rules every edit obeys),
// stores them with their settings_changed event, puts them in force, and
// runs what follows a change — the hook's rules file, a retention run,
// the embeddings following their endpoint — for a save here and for another replica's
// save on PostgreSQL. Handlers decode an edit and call it; nothing else
// stores settings.
package settings

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// Service is the one owner of the settings in force.
type Service struct {
	store  *models.Store
	idKey  []byte // keys the hash of cleaned identifiers (privacy.LoadIDKey)
	policy atomic.Pointer[shape.Policy]
	// mu is held while settings are stored and applied, here or from
	// another replica, so that a save is applied once; it guards after.
	mu    sync.Mutex
	after []func(models.Settings)
}

// Load reads the stored settings and compiles them into the policy in
// force; idKey keys the hash of cleaned identifiers (nil hashes them
// without a key).
func Load(ctx context.Context, store *models.Store, idKey []byte) (*Service, error) {
	st, err := store.LoadSettings(ctx)
	if err != nil {
		return nil, err
	}
	s := &Service{store: store, idKey: idKey}
	s.use(st)
	return s, nil
}

// OnChange adds a follow-up of every change applied (a save here, or
// another replica's): the hook's rules file, a retention run, the
// embeddings following their endpoint. Follow-ups run in the order added.
func (s *Service) OnChange(f func(models.Settings)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.after = append(s.after, f)
}

// Policy is the compiled settings in force: the privacy pipeline every
// stored string goes through, and the settings themselves.
func (s *Service) Policy() *shape.Policy { return s.policy.Load() }

// use compiles st into the policy in force; it applies to the next event.
func (s *Service) use(st models.Settings) {
	p := shape.NewPolicy(st)
	if key := s.idKey; key != nil {
		p.Redactor = p.Redactor.WithIDKey(func() []byte { return key })
	}
	s.policy.Store(p)
}

// apply puts st in force and runs the follow-ups; mu is held.
func (s *Service) apply(st models.Settings) {
	s.use(st)
	for _, f := range s.after {
		f(st)
	}
}

// Current returns the settings in force, secrets included: never hand
// them to a client as they are.
func (s *Service) Current() models.Settings { return s.Policy().Settings }

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
// puts it in force and runs the follow-ups.
func (s *Service) Save(ctx context.Context, cur, next models.Settings) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.store.SaveSettings(ctx, cur, next); err != nil {
		return err
	}
	s.apply(next)
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
func (s *Service) Changed(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.store.LoadSettings(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil // the worker is stopping
		}
		return fmt.Errorf("another replica changed the settings; reading them failed: %w", err)
	}
	cur := s.Current()
	var errs []error
	if st.Embeddings.URL != cur.Embeddings.URL && st.Embeddings.APIKey != "" {
		st.Embeddings.APIKey = ""
		if err := s.store.SaveEmbeddingsKey(""); err != nil {
			errs = append(errs, fmt.Errorf("another replica moved the embeddings endpoint; dropping this replica's key failed: %w", err))
		}
	}
	if st.Summarizer.BaseURL != cur.Summarizer.BaseURL && st.Summarizer.APIKey != "" {
		st.Summarizer.APIKey = ""
		if err := s.store.SaveAPIKey(""); err != nil {
			errs = append(errs, fmt.Errorf("another replica moved the summarizer's endpoint; dropping this replica's key failed: %w", err))
		}
	}
	if reflect.DeepEqual(st, cur) {
		return errors.Join(errs...) // this replica's own save, applied already by Save
	}
	s.apply(st)
	return errors.Join(errs...)
}
