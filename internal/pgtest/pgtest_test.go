package pgtest_test

import (
	"database/sql"
	"testing"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// TestURL: the throwaway cluster starts and hands out databases that are
// empty and apart.
func TestURL(t *testing.T) {
	a, b := pgtest.URL(t), pgtest.URL(t)
	if a == b {
		t.Fatalf("two calls gave the same database %s", a)
	}
	db, err := sql.Open("pgx", a)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE x (id int)`); err != nil {
		t.Fatal(err)
	}
	db2, err := sql.Open("pgx", b)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	var n int
	if err := db2.QueryRow(`SELECT count(*) FROM pg_tables WHERE tablename = 'x'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("second database sees the first's table: n=%d err=%v", n, err)
	}
}
