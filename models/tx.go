package models

import (
	"context"
	"reflect"

	"gorm.io/gorm"
)

// Tx is a write transaction of the store: Writer.Do hands one to each
// operation of a group commit. Its methods are the writes mneme makes
// (EnsureSession, RecordPrompt, QueueObservation, AppendEvent, …), so
// callers outside this package never see SQL or the ORM.
type Tx struct {
	db *gorm.DB
}

// Insert stores model values (a *Session, *Prompt, *Summary, … or a
// slice of them) exactly as given, with no event on the live stream: for
// fixtures and imports that write history rather than capture it.
//
// On PostgreSQL, rows given with their ids leave the table's id sequence
// behind them, so it is moved past the largest id after the insert (SQLite
// needs nothing: its next id is always past the largest).
func (tx *Tx) Insert(rows any) error {
	explicit := false
	if tx.postgres() {
		var err error
		if explicit, err = hasIDs(tx.db, rows); err != nil {
			return err
		}
	}
	if err := tx.db.Create(rows).Error; err != nil {
		return err
	}
	if !explicit {
		return nil
	}
	stmt := &gorm.Statement{DB: tx.db}
	if err := stmt.Parse(rows); err != nil {
		return err
	}
	return syncSequence(tx.db, stmt.Schema.Table)
}

// hasIDs reports whether rows (a pointer to a model or to a slice of
// them) holds a row whose primary key is set.
func hasIDs(db *gorm.DB, rows any) (bool, error) {
	stmt := &gorm.Statement{DB: db}
	if err := stmt.Parse(rows); err != nil {
		return false, err
	}
	pk := stmt.Schema.PrioritizedPrimaryField
	if pk == nil {
		return false, nil
	}
	v := reflect.Indirect(reflect.ValueOf(rows))
	if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		_, zero := pk.ValueOf(context.Background(), v)
		return !zero, nil
	}
	for i := 0; i < v.Len(); i++ {
		if _, zero := pk.ValueOf(context.Background(), reflect.Indirect(v.Index(i))); !zero {
			return true, nil
		}
	}
	return false, nil
}

// secureDelete turns SQLite's secure_delete on for the transaction's
// connection, so the bytes of what it deletes or rewrites are zeroed in
// the file; the returned func turns it off again.
//
// PostgreSQL has no such setting: there, what a delete frees is reclaimed
// by VACUUM (see Scrub), and this is a no-op.
func (tx *Tx) secureDelete() (func(), error) {
	if tx.postgres() {
		return func() {}, nil
	}
	if err := tx.db.Exec(`PRAGMA secure_delete = ON`).Error; err != nil {
		return nil, err
	}
	return func() { tx.db.Exec(`PRAGMA secure_delete = OFF`) }, nil
}
