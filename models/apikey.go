package models

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gorm.io/gorm"
)

// apiKeyFile is the file, in the data directory beside the database, that
// holds the summarizer's API key: owner-only (0600), written atomically.
// The key is never stored in the database, so a copy of mneme.db (a
// backup, an export, a file attached to a bug report) carries no key.
const apiKeyFile = "apikey"

// apiKeyPath is where the store keeps the API key.
func (s *Store) apiKeyPath() string { return filepath.Join(filepath.Dir(s.path), apiKeyFile) }

// embeddingsKeyFile is the file, beside apiKeyFile, that holds the
// embeddings endpoint's key, kept the same way.
const embeddingsKeyFile = "embeddings-key"

// loadAPIKey reads the API key; a missing file is no key.
func (s *Store) loadAPIKey() (string, error) { return loadKeyFile(s.apiKeyPath()) }

// SaveAPIKey replaces the API key, or removes the file for an empty key.
func (s *Store) SaveAPIKey(key string) error { return saveKeyFile(s.apiKeyPath(), key) }

// loadEmbeddingsKey reads the embeddings endpoint's key; a missing file
// is no key.
func (s *Store) loadEmbeddingsKey() (string, error) { return loadKeyFile(s.embeddingsKeyPath()) }

// SaveEmbeddingsKey replaces the embeddings endpoint's key, or removes
// its file for an empty key.
func (s *Store) SaveEmbeddingsKey(key string) error { return saveKeyFile(s.embeddingsKeyPath(), key) }

func (s *Store) embeddingsKeyPath() string {
	return filepath.Join(filepath.Dir(s.path), embeddingsKeyFile)
}

// loadKeyFile reads a key file; a missing file is no key.
func loadKeyFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the API key: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// saveKeyFile replaces a key file, or removes it for an empty key. The
// file is written to a private temporary name, synced and renamed, so a
// crash leaves the old key or the new one, never a part.
func saveKeyFile(path, key string) error {
	if key == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the API key: %w", err)
		}
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".key-*")
	if err != nil {
		return fmt.Errorf("store the API key: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing to remove
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("store the API key: %w", err)
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("store the API key: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("store the API key: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("store the API key: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("store the API key: %w", err)
	}
	return nil
}

// moveAPIKeyOut moves a key that an older mneme stored in the settings row
// to the key file (unless that already holds one), then rewrites the row
// without it, with secure_delete on so the freed bytes are zeroed, and
// checkpoints so the -wal does not keep the old page either.
func (s *Store) moveAPIKeyOut(ctx context.Context, st Settings) error {
	if cur, err := s.loadAPIKey(); err != nil {
		return err
	} else if cur == "" {
		if err := s.SaveAPIKey(st.Summarizer.APIKey); err != nil {
			return err
		}
	}
	return s.db.WithContext(ctx).Connection(func(conn *gorm.DB) error {
		if err := conn.Exec(`PRAGMA secure_delete = ON`).Error; err != nil {
			return err
		}
		defer conn.Exec(`PRAGMA secure_delete = OFF`)
		if err := conn.Transaction(func(tx *gorm.DB) error { return (&Tx{db: tx}).WriteSettings(st) }); err != nil {
			return err
		}
		return conn.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`).Error
	})
}
