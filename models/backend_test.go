package models

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// openTestStore opens a fresh store for a test of what the store does:
// the SQLite file mneme.db in a temp dir, or, when the matrix runs on
// PostgreSQL (MNEME_TEST_BACKEND=postgres), a new database of the test
// cluster. Tests of SQLite's files and internals open with Open and skip
// on PostgreSQL (pgtest.SkipOnPostgres).
func openTestStore(t testing.TB) *Store {
	t.Helper()
	return openTestStoreIn(t, t.TempDir())
}

// openTestStoreIn is openTestStore with the data directory chosen, for a
// test that looks at what is left in it.
func openTestStoreIn(t testing.TB, dir string) *Store {
	t.Helper()
	url := ""
	if pgtest.OnPostgres() {
		url = pgtest.URL(t)
	} else {
		seedSchema(dir)
	}
	s, err := OpenURL(url, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// schemaTemplate is a SQLite database with every migration applied and no
// rows, made once per test binary; openTestStoreIn starts a fresh data
// directory from a copy of it, so the store finds its schema current.
// Applying the migrations was most of opening a store (about a second of
// CPU under -race). The migrations are tested by the tests that open
// their own databases (Open, old schemas).
var schemaTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "mneme-schema-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mneme.db")
	s, err := Open(path)
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	// The last connection's close checkpoints the WAL into the file and
	// removes it; a -wal left would hold part of the schema.
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil, errors.New("schema template: the WAL was not checkpointed")
	}
	return os.ReadFile(path)
})

// seedSchema copies schemaTemplate to dir's mneme.db when there is none
// yet; where it cannot, the store migrates as it would.
func seedSchema(dir string) {
	path := filepath.Join(dir, "mneme.db")
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return
	}
	b, err := schemaTemplate()
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
}
