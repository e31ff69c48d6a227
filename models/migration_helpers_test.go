package models

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// openOldStore makes a database at schema version (the first version
// migrations), runs the statements in it (each given the current time for
// every ?), and opens it with this mneme, which migrates it.
func openOldStore(t *testing.T, version int, stmts ...string) *Store {
	t.Helper()
	pgtest.SkipOnPostgres(t, "migrating a database made by an older mneme's SQLite schema")
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := raw.Exec(`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at DATETIME NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for v := 0; v < version; v++ {
		if err := applyMigration(ctx, raw, v+1, migrations[v]); err != nil {
			t.Fatalf("migration %d: %v", v+1, err)
		}
	}
	now := time.Now().UTC()
	for _, stmt := range stmts {
		if _, err := raw.Exec(stmt, now); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	raw.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runFollowUp runs migration follow-up fn on s in a transaction of its
// own, as the migration would.
func runFollowUp(t *testing.T, s *Store, fn func(context.Context, *sql.Tx, bool) error) {
	t.Helper()
	ctx := context.Background()
	db, err := s.db.DB()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := fn(ctx, tx, s.Postgres()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// observationColumn is col of every observation of s, by id.
func observationColumn(t *testing.T, s *Store, col string) map[int64]string {
	t.Helper()
	var got []struct {
		ID    int64
		Value string
	}
	if err := s.db.Raw(`SELECT id, ` + col + ` AS value FROM observations ORDER BY id`).Scan(&got).Error; err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, g := range got {
		out[g.ID] = g.Value
	}
	return out
}

// insertSteps stores retitleBatch+10 failed Bash calls `./step-N` as an
// older mneme did (title "`./step-N` failed: exit 2", no signature), in
// session 1 of project p, with ids after after.
func insertSteps(t *testing.T, s *Store, after int) {
	t.Helper()
	for i := 0; i < retitleBatch+10; i++ {
		if err := s.db.Exec(`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, success, command_kind, created_at)
			VALUES (?, 1, 'p', 'Bash', ?, ?, ?, ?, '[]', false, ?, ?)`, after+i+1, KindFailure, fmt.Sprintf("`./step-%d` failed: exit 2", i),
			fmt.Sprintf("./step-%d", i), fmt.Sprintf("Exit code 2\nstep %d: error: disk full", i), CommandShell, time.Now().UTC()).Error; err != nil {
			t.Fatal(err)
		}
	}
}

// checkRederived runs follow-up fn on s twice: after the first run, column
// col of each observation of want holds its value there; the second run
// changes nothing. It returns col of every observation after the first.
func checkRederived(t *testing.T, s *Store, fn func(context.Context, *sql.Tx, bool) error, col string, want map[int64]string) map[int64]string {
	t.Helper()
	runFollowUp(t, s, fn)
	first := observationColumn(t, s, col)
	for id, w := range want {
		if first[id] != w {
			t.Errorf("row %d: %s %q, want %q", id, col, first[id], w)
		}
	}
	runFollowUp(t, s, fn)
	for id, v := range observationColumn(t, s, col) {
		if first[id] != v {
			t.Errorf("row %d changed on a second run: %q, then %q", id, first[id], v)
		}
	}
	return first
}

// oldTscFailure is a store made at schema version, with a failed `tsc` of
// an older mneme (its title "`tsc` failed: exit 2"), upgraded: it returns
// the store and column col of that row.
func oldTscFailure(t *testing.T, version int, col string) (*Store, string) {
	t.Helper()
	s := openOldStore(t, version,
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (1, 's', 'p', ?)`,
		`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, success, command_kind, created_at) VALUES (1, 1, 'p', 'Bash', 'failure', '`+"`tsc`"+` failed: exit 2', 'tsc', 'Exit code 2
src/a.ts(12,5): error TS2322: Type ''string'' is not assignable to type ''number''.', '[]', false, 'shell', ?)`,
	)
	var v string
	if err := s.db.Raw(`SELECT ` + col + ` FROM observations WHERE id = 1`).Scan(&v).Error; err != nil {
		t.Fatal(err)
	}
	return s, v
}
