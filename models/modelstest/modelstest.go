// Package modelstest is raw SQL on a models.Store for tests: the rows a
// test checks were (or were not) stored, and the odd state no Store method
// makes (a row aged on purpose, a table renamed to break the indexer,
// events stored but not published); and the store's state a test waits
// on (a vector index loading), which the product never asks.
//
// Only tests import it (and internal/testutil, which only tests import):
// the architecture test in internal/archtest holds that line. Every helper
// fails the test on an error, so no query's failure goes unseen.
package modelstest

import (
	"database/sql"
	"testing"

	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/internal/storedb"
)

// Exec runs a statement and returns how many rows it changed.
func Exec(t testing.TB, s *models.Store, query string, args ...any) int64 {
	t.Helper()
	res := storedb.Of(s).Exec(query, args...)
	if res.Error != nil {
		t.Fatalf("exec %q: %v", query, res.Error)
	}
	return res.RowsAffected
}

// Scan runs a query and scans its rows into dest: a pointer to a value, a
// struct or a slice of either, with columns matched to fields by name as
// GORM does.
func Scan(t testing.TB, s *models.Store, dest any, query string, args ...any) {
	t.Helper()
	if err := storedb.Of(s).Raw(query, args...).Scan(dest).Error; err != nil {
		t.Fatalf("query %q: %v", query, err)
	}
}

// Int runs a query that returns one integer, such as a COUNT(*).
func Int(t testing.TB, s *models.Store, query string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	Row(t, s, []any{&n}, query, args...)
	return n.Int64
}

// Row runs a query and scans its one row's columns into dest, in order.
func Row(t testing.TB, s *models.Store, dest []any, query string, args ...any) {
	t.Helper()
	if err := storedb.Of(s).Raw(query, args...).Row().Scan(dest...); err != nil {
		t.Fatalf("query %q: %v", query, err)
	}
}

// SQLDB is the database/sql handle under s, for benchmarks that time raw
// statements beside the store's own.
func SQLDB(t testing.TB, s *models.Store) *sql.DB {
	t.Helper()
	db, err := storedb.Of(s).DB()
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// RowsText is the text of every row of every table of a PostgreSQL store,
// for tests that a text was never stored or is gone (on SQLite they read
// the database's files instead).
func RowsText(t testing.TB, s *models.Store) []byte {
	t.Helper()
	var tables []string
	Scan(t, s, &tables, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`)
	var all []byte
	for _, tb := range tables {
		var text string
		Scan(t, s, &text, `SELECT COALESCE(string_agg(r::text, E'\n'), '') FROM "`+tb+`" r`)
		all = append(all, text...)
	}
	return all
}

// WriteQuietly runs fn in a transaction of its own, outside the store's
// group commit: the events it appends are stored but not published on the
// live stream (on PostgreSQL, every replica's listener publishes the log
// within its poll interval).
func WriteQuietly(t testing.TB, s *models.Store, fn func(tx *models.Tx) error) {
	t.Helper()
	err := storedb.Of(s).WithContext(t.Context()).Transaction(func(db *gorm.DB) error {
		return fn(storedb.Tx(db).(*models.Tx))
	})
	if err != nil {
		t.Fatalf("write quietly: %v", err)
	}
}

// VectorIndexLoading reports whether a load of s's vector index is under
// way (the worker's warm-up, a search's own load or a background reload).
func VectorIndexLoading(s *models.Store) bool { return storedb.VectorsLoading(s) }
