package models

import (
	"errors"

	"github.com/glebarez/go-sqlite"
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
