package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/models/internal/settingsrules"
)

// Setting is one row of the settings table. mneme keeps its runtime settings
// as one JSON document under the key "runtime", validated as a whole. The
// settings' shape, defaults, validation and the rules of an edit are
// models/internal/settingsrules'; models names them and keeps the row.
type Setting struct {
	Key       string `gorm:"primaryKey"`
	Value     string
	UpdatedAt time.Time
}

// The settings and their sections (see settingsrules).
type (
	Settings           = settingsrules.Settings
	PrivacySettings    = settingsrules.PrivacySettings
	CaptureSettings    = settingsrules.CaptureSettings
	InjectionSettings  = settingsrules.InjectionSettings
	RetentionSettings  = settingsrules.RetentionSettings
	SummarizerSettings = settingsrules.SummarizerSettings
	EmbeddingsSettings = settingsrules.EmbeddingsSettings
	MemorySettings     = settingsrules.MemorySettings
)

// FieldError is a validation problem with one setting, ValidationError
// every problem Settings.Validate found; it matches ErrInvalid.
type (
	FieldError      = settingsrules.FieldError
	ValidationError = settingsrules.ValidationError
)

// Read-tool capture modes (Read, Grep, Glob, LS, NotebookRead).
const (
	ReadsOff      = settingsrules.ReadsOff      // not recorded at all
	ReadsMetadata = settingsrules.ReadsMetadata // title, path and counts only: no file content
	ReadsFull     = settingsrules.ReadsFull     // like any other tool, content included
)

// TrustAll in MemorySettings.Trust trusts every teammate.
const TrustAll = settingsrules.TrustAll

// Status words of the write-only API key: the key is shown as one of
// these, never as its value, and sending one back keeps the stored key.
const (
	APIKeySet    = settingsrules.APIKeySet
	APIKeyNotSet = settingsrules.APIKeyNotSet
)

// MaxInjectBytes is Claude Code's limit on additionalContext; beyond it the
// text is silently truncated.
const MaxInjectBytes = settingsrules.MaxInjectBytes

// ErrMalformedSettings is the error of a settings document that is not
// JSON of the settings' shape.
var ErrMalformedSettings = settingsrules.ErrMalformed

// DefaultSettings are the settings of a new install.
func DefaultSettings() Settings { return settingsrules.Defaults() }

// UpdateSettings returns the settings to store for proposed (the settings
// in force, cur, with an edit applied), by the rules every edit obeys:
// built-in redaction rules stay, keys are write-only and belong to their
// endpoint (keyDropped: one was dropped as its endpoint changed);
// clearKey removes the summarizer's key. See settingsrules.Update.
func UpdateSettings(cur, proposed Settings, clearKey bool) (next Settings, keyDropped bool) {
	return settingsrules.Update(cur, proposed, clearKey)
}

// PatchSettings decodes a JSON settings document over cur (fields left
// out keep their value, a list or map sent replaces the stored one) into
// the proposed settings for UpdateSettings, and whether the summarizer's
// key is to be cleared. See settingsrules.Patch.
func PatchSettings(cur Settings, body []byte) (proposed Settings, clearKey bool, err error) {
	return settingsrules.Patch(cur, body)
}

// PatchEmbeddingsClear reports whether a settings document asks to clear
// the embeddings endpoint's key ({"embeddings": {"clearApiKey": true}}).
func PatchEmbeddingsClear(body []byte) bool { return settingsrules.ClearsEmbeddingsKey(body) }

const runtimeKey = "runtime"

// LoadSettings reads the runtime settings, falling back to the defaults for
// a new install. Fields missing from a stored document keep their defaults.
func (s *Store) LoadSettings(ctx context.Context) (Settings, error) {
	out := DefaultSettings()
	var row Setting
	err := s.db.WithContext(ctx).Where("key = ?", runtimeKey).First(&row).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
	case err != nil:
		return out, err
	default:
		if out, err = settingsrules.Decode([]byte(row.Value)); err != nil {
			return out, fmt.Errorf("stored settings are unreadable: %w", err)
		}
	}
	if out.Summarizer.APIKey != "" {
		// An older mneme kept the key in the row. A read-only store uses
		// it as it is; the next writable open moves it out.
		if s.readOnly {
			return out, nil
		}
		if err := s.moveAPIKeyOut(ctx, out); err != nil {
			return out, fmt.Errorf("move the API key out of the database: %w", err)
		}
	}
	key, err := s.loadAPIKey()
	if err != nil {
		return out, err
	}
	out.Summarizer.APIKey = key
	if out.Embeddings.APIKey, err = s.loadEmbeddingsKey(); err != nil {
		return out, err
	}
	return out, nil
}

// WriteSettings validates and stores the runtime settings inside tx, all
// but the API key, which lives in its own file (Store.SaveAPIKey).
func (tx *Tx) WriteSettings(st Settings) error {
	b, err := settingsrules.Encode(st)
	if err != nil {
		return err
	}
	return tx.db.Exec(`INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		runtimeKey, string(b), time.Now().UTC()).Error
}

// SaveSettings validates next and stores it: the API key in its file
// (first, and put back if the rest cannot be stored), the settings and
// their settings_changed event in one transaction. The event names the
// sections that changed, never their values; it is published after the
// commit.
func (s *Store) SaveSettings(ctx context.Context, cur, next Settings) error {
	if err := next.Validate(); err != nil {
		return err
	}
	keyChanged := next.Summarizer.APIKey != cur.Summarizer.APIKey
	if keyChanged {
		if err := s.SaveAPIKey(next.Summarizer.APIKey); err != nil {
			return err
		}
	}
	embKeyChanged := next.Embeddings.APIKey != cur.Embeddings.APIKey
	if embKeyChanged {
		if err := s.SaveEmbeddingsKey(next.Embeddings.APIKey); err != nil {
			if keyChanged {
				err = errors.Join(err, putBack("the summarizer's", s.SaveAPIKey(cur.Summarizer.APIKey)))
			}
			return err
		}
	}
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		if err := tx.WriteSettings(next); err != nil {
			return err
		}
		_, err := tx.AppendEvent(EventSettingsChanged, "", 0, 0, map[string]any{
			"sections": settingsrules.Changed(cur, next), "updatedAt": time.Now().UTC(),
		})
		return err
	})
	if err != nil && keyChanged {
		err = errors.Join(err, putBack("the summarizer's", s.SaveAPIKey(cur.Summarizer.APIKey)))
	}
	if err != nil && embKeyChanged {
		err = errors.Join(err, putBack("the embeddings endpoint's", s.SaveEmbeddingsKey(cur.Embeddings.APIKey)))
	}
	return err
}

// putBack names a failure to put a key file back after a failed save
// (nil when it was put back): the key on disk is then the new one while
// the settings stored are the old.
func putBack(whose string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("putting %s key back: %w", whose, err)
}
