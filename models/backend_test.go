package models

import (
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil/seed"
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
		url = pgTemplate.URL(t)
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
var schemaTemplate = seed.Template(func(path string) error {
	s, err := Open(path)
	if err != nil {
		return err
	}
	return s.Close()
})

// pgTemplate is schemaTemplate on PostgreSQL: a database with every
// migration applied, made once per test binary, which openTestStoreIn's
// databases are copies of.
var pgTemplate = pgtest.NewTemplate(func(url, dir string) error {
	s, err := OpenURL(url, dir)
	if err != nil {
		return err
	}
	return s.Close()
})

// seedSchema copies schemaTemplate to dir's mneme.db when there is none
// yet; where it cannot, the store migrates as it would.
func seedSchema(dir string) { seed.Copy(filepath.Join(dir, "mneme.db"), schemaTemplate) }
