package models

import (
	"context"
	neturl "net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// TestOpenPostgres: a PostgreSQL store migrates an empty database, and a
// second open of the same database (a second replica, a restart) finds it
// migrated and applies nothing again.
func TestOpenPostgres(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
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
	if err := b.db.Raw(`SELECT COUNT(*) FROM schema_version`).Scan(&n).Error; err != nil || n != len(pgMigrations) {
		t.Fatalf("schema_version rows = %d, %v; want %d", n, err, len(pgMigrations))
	}
	if !a.Postgres() || a.Dialect() != DialectPostgres {
		t.Fatalf("dialect %q", a.Dialect())
	}
}

// TestInsertExplicitIDsPostgres: rows inserted with their ids (fixtures,
// imports of history) leave the id sequence past them, so the next row
// without an id gets a free one instead of a duplicate-key error.
func TestInsertExplicitIDsPostgres(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	s, err := OpenURL(pgtest.URL(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Now().UTC()
	err = s.writeQuietly(context.Background(), func(tx *Tx) error {
		return tx.Insert(&[]Session{{ID: 7, ClaudeSessionID: "a", StartedAt: at}, {ID: 9, ClaudeSessionID: "b", StartedAt: at}})
	})
	if err != nil {
		t.Fatal(err)
	}
	var next Session
	err = s.writeQuietly(context.Background(), func(tx *Tx) error {
		next = Session{ClaudeSessionID: "c", StartedAt: at}
		return tx.Insert(&next)
	})
	if err != nil || next.ID != 10 {
		t.Fatalf("the next session got id %d, %v; want 10", next.ID, err)
	}
}

// TestOpenPostgresNeedsUTF8: a database whose character type does not
// know non-ASCII letters is refused with what to do, not migrated into a
// search that silently misses such words.
func TestOpenPostgresNeedsUTF8(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	admin, err := OpenURL(url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := "c_ctype_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	err = admin.db.Exec(`CREATE DATABASE ` + name + ` TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`).Error
	admin.Close()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := neturl.Parse(url)
	u.Path = "/" + name
	_, err = OpenURL(u.String(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "LC_CTYPE 'C.UTF-8'") {
		t.Fatalf("open on a C-ctype database: %v, want the UTF-8 advice", err)
	}
}
