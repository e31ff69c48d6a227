package models

import (
	"testing"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// TestOpenPostgres: a PostgreSQL store migrates an empty database, and a
// second open of the same database (a second replica, a restart) finds it
// migrated and applies nothing again.
func TestOpenPostgres(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	a, err := OpenURL(url, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenURL(url, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var n int
	if err := b.DB.Raw(`SELECT COUNT(*) FROM schema_version`).Scan(&n).Error; err != nil || n != len(pgMigrations) {
		t.Fatalf("schema_version rows = %d, %v; want %d", n, err, len(pgMigrations))
	}
	if !a.Postgres() || a.Dialect() != DialectPostgres {
		t.Fatalf("dialect %q", a.Dialect())
	}
}
