package models

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// A key an older mneme stored in the settings row is moved to the key file
// on the first writable load; afterwards no byte of the database or its
// -wal holds it (the row is rewritten with secure_delete and checkpointed).
func TestAPIKeyMovedOutOfOldDatabase(t *testing.T) {
	t.Parallel()
	pgtest.SkipOnPostgres(t, "the bytes of mneme.db and its -wal file")
	dir := t.TempDir()
	path := filepath.Join(dir, "mneme.db")
	const key = "sk-ant-api03-OLD-ROW-KEY-0123456789abcdefghijkl"
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st := DefaultSettings()
	st.Summarizer.Kind, st.Summarizer.APIKey = "anthropic-api", key
	b, _ := json.Marshal(st)
	if err := s.db.Exec(`INSERT INTO settings (key, value, updated_at) VALUES ('runtime', ?, ?)`, string(b), time.Now()).Error; err != nil {
		t.Fatal(err)
	}
	s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	if raw, _ := os.ReadFile(path); !bytes.Contains(raw, []byte(key)) {
		t.Fatal("the old-style row is not in the file: the test proves nothing")
	}

	got, err := s.LoadSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Summarizer.APIKey != key || got.Summarizer.Kind != "anthropic-api" {
		t.Fatalf("loaded %q / %q", got.Summarizer.APIKey, got.Summarizer.Kind)
	}
	if k, _ := s.loadAPIKey(); k != key {
		t.Fatalf("the key file holds %q", k)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if raw, err := os.ReadFile(f); err == nil && bytes.Contains(raw, []byte(key)) {
			t.Errorf("%s still holds the key", filepath.Base(f))
		}
	}
	// A second load reads the file.
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.LoadSettings(context.Background()); err != nil || got.Summarizer.APIKey != key {
		t.Fatalf("second load: %q %v", got.Summarizer.APIKey, err)
	}
}

// SaveSettings never writes the key into the row.
func TestSaveSettingsLeavesTheKeyOut(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	st := DefaultSettings()
	st.Summarizer.APIKey = "sk-ant-api03-NEVER-IN-ROW-0123456789"
	if err := (&Tx{db: s.db}).WriteSettings(st); err != nil {
		t.Fatal(err)
	}
	var value string
	s.db.Raw(`SELECT value FROM settings WHERE key = 'runtime'`).Scan(&value)
	if bytes.Contains([]byte(value), []byte("NEVER-IN-ROW")) {
		t.Errorf("the row holds the key: %s", value)
	}
}
