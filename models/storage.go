package models

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/glebarez/go-sqlite"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLite primary result codes that mean the storage, not the request, is at
// fault (https://sqlite.org/rescode.html).
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteFull     = 13
	sqliteCantOpen = 14
)

// StorageProblem explains an error that comes from the database file or the
// disk under it (full, read-only, locked by another process, I/O error) in
// words a user can act on. It returns "" for any other error. The worker
// answers such errors with 503, so hooks spool the event and retry later.
func StorageProblem(err error) string {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return ""
	}
	switch se.Code() & 0xff {
	case sqliteBusy, sqliteLocked:
		return "the database is locked by another process (" + se.Error() + "); mneme keeps the event in the hook spool and retries"
	case sqliteReadOnly:
		return "the database is read-only (" + se.Error() + "); check the permissions of the data directory"
	case sqliteFull:
		return "the disk holding the database is full (" + se.Error() + "); free some space"
	case sqliteIOErr:
		return "the database could not be written (" + se.Error() + "); the data directory may be read-only or the disk full"
	case sqliteCantOpen:
		return "the database file cannot be opened (" + se.Error() + ")"
	}
	return ""
}

// ErrSessionGone is returned by a write naming a session that is no longer
// stored: it was forgotten (on this worker or, on PostgreSQL, on another
// replica) after the caller looked it up. It matches ErrNotFound. Capture
// then looks the session up again, which records it anew.
var ErrSessionGone = fmt.Errorf("%w: the session is no longer stored", ErrNotFound)

// SQLite result codes of a refused value (https://sqlite.org/rescode.html).
const (
	sqliteTooBig     = 18
	sqliteConstraint = 19
	sqliteMismatch   = 20
	sqliteRange      = 25
	// sqliteForeignKey is the extended code of a foreign key violation.
	sqliteForeignKey = 787
)

// Refused reports an error of the database refusing the data itself: a
// constraint it breaks, a value out of range or of the wrong type (SQLite's
// CONSTRAINT, MISMATCH, TOOBIG and RANGE; PostgreSQL's classes 22, data
// exception, and 23, integrity constraint violation). The same write fails
// the same way however often it is retried, unlike a StorageProblem: the
// worker tells the hook not to keep such an event in its spool.
func Refused(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteTooBig, sqliteConstraint, sqliteMismatch, sqliteRange:
			return true
		}
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "22") || strings.HasPrefix(pe.Code, "23")
	}
	return false
}

// goneIfForeignKey turns a foreign key violation, the one error a row of a
// session just forgotten meets, into ErrSessionGone (wrapping err).
func goneIfForeignKey(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	var pe *pgconn.PgError
	if errors.As(err, &se) && se.Code() == sqliteForeignKey || errors.As(err, &pe) && pe.Code == "23503" {
		return fmt.Errorf("%w (%w)", ErrSessionGone, err)
	}
	return err
}

// IsReadOnly reports SQLite's SQLITE_READONLY: the database was opened
// read-only (its files or directory could not be written at open) or its
// shared memory could not be.
func IsReadOnly(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 8
}

// CannotWrite reports an error of Open that a read-only open may avoid:
// SQLite could not open (14) or write (8) the database, or the data
// directory could not be made (a read-only file system, no permission).
func CannotWrite(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code() & 0xff
		return code == 8 || code == 14
	}
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}
