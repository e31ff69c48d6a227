package models

import "time"

// The few SQL fragments that differ between SQLite and PostgreSQL. Every
// other statement is written once, in the SQL both accept (GORM turns '?'
// into $n for PostgreSQL); these helpers keep the differences in one
// place instead of two copies of each query.

// timeBound is t as a bound for created_at comparisons (see the
// package-level timeBound for SQLite's stored text). PostgreSQL stores
// real timestamps, so it gets the time itself, cut to the second as on
// SQLite.
func (s *Store) timeBound(t time.Time) any {
	if s.Postgres() {
		return t.UTC().Truncate(time.Second)
	}
	return timeBound(t)
}

// dayOf is the SQL of the UTC day (YYYY-MM-DD) of the timestamp column col.
func (s *Store) dayOf(col string) string {
	if s.Postgres() {
		return "to_char(" + col + " AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
	}
	return "substr(" + col + ", 1, 10)"
}

// filesOf is the FROM item listing the paths of the JSON array column
// col, one row per path in column alias.value, strings only.
func (s *Store) filesOf(col, alias string) (from, where string) {
	if s.Postgres() {
		// files is always a JSON array of strings (Observation.Files).
		return "jsonb_array_elements_text(" + col + "::jsonb) AS " + alias + "(value)", "TRUE"
	}
	return "json_each(" + col + ") " + alias, alias + ".type = 'text'"
}

// insertOrder is the column that orders rows of alias as inserted, for
// tables without an id in SQLite: its rowid; PostgreSQL's schema gives
// them an id column (see pgMigrations).
func (s *Store) insertOrder(alias string) string {
	if s.Postgres() {
		return alias + ".id"
	}
	return alias + ".rowid"
}

// rowID is the column that identifies a row of any data table for
// ReadTexts and RewriteTexts: rowid on SQLite, id on PostgreSQL.
func rowID(postgres bool) string {
	if postgres {
		return "id"
	}
	return "rowid"
}

// postgres reports that the transaction is on a PostgreSQL store.
func (tx *Tx) postgres() bool { return tx.db.Dialector.Name() == "postgres" }
