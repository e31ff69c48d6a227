package models

import (
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
	}
	s, err := OpenURL(url, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
