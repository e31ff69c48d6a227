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

// TestTemplate: a template is prepared once, and each URL is a database
// of its own holding what the template held.
func TestTemplate(t *testing.T) {
	prepared := 0
	tmpl := pgtest.NewTemplate(func(url, _ string) error {
		prepared++
		db, err := sql.Open("pgx", url)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.Exec(`CREATE TABLE x (id int); INSERT INTO x VALUES (7)`)
		return err
	})
	a, b := tmpl.URL(t), tmpl.URL(t)
	if a == b || prepared != 1 {
		t.Fatalf("urls %s, %s; prepared %d times, want once", a, b, prepared)
	}
	for i, u := range []string{a, b} {
		db, err := sql.Open("pgx", u)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if i == 0 {
			if _, err := db.Exec(`INSERT INTO x VALUES (8)`); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM x`).Scan(&n); err != nil || n != 2-i {
			t.Fatalf("database %d holds %d rows, %v; want %d", i, n, err, 2-i)
		}
	}
}
