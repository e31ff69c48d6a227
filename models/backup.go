package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Backups and restores: a consistent copy of the live database, taken
// while the worker goes on writing, and putting such a copy back.

// BackupTo writes a consistent snapshot of the database to path (which
// must not exist), mode 0600, with VACUUM INTO: one read transaction, so
// it holds every write committed before it started and none after, and
// the writer goes on meanwhile (WAL). The copy is compact (no free pages)
// and checked with CheckFile.
func (s *Store) BackupTo(ctx context.Context, path string) (FileCheck, error) {
	if s.Postgres() {
		return FileCheck{}, fmt.Errorf("backup: %w", ErrNotOnPostgres)
	}
	// The file is made first, empty and private: VACUUM INTO writes into
	// an empty file, and would otherwise create it with the umask's mode.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return FileCheck{}, err
	}
	f.Close()
	if err := s.db.WithContext(ctx).Exec(`VACUUM INTO ?`, path).Error; err != nil {
		os.Remove(path)
		return FileCheck{}, fmt.Errorf("backup: %w", err)
	}
	return CheckFile(path)
}

// FileCheck is what CheckFile found in a database file.
type FileCheck struct {
	// SchemaVersion is the file's schema version (migrations applied).
	SchemaVersion int `json:"schemaVersion"`
	// Integrity is PRAGMA integrity_check's answer: "ok" or its findings.
	Integrity string `json:"integrity"`
	Counts    Counts `json:"counts"`
	Bytes     int64  `json:"bytes"`
}

// ErrDamaged is a database file that fails its integrity check.
var ErrDamaged = errors.New("database file damaged")

// CheckFile opens the database file at path read-only (taking no lock and
// leaving no -wal or -shm beside it), runs PRAGMA integrity_check, and
// reads its schema version and row counts. A file that fails the check
// is ErrDamaged; one that is not a mneme database (no schema version) is
// ErrInvalid.
func CheckFile(path string) (FileCheck, error) {
	var fc FileCheck
	info, err := os.Stat(path)
	if err != nil {
		return fc, err
	}
	if !info.Mode().IsRegular() {
		return fc, fmt.Errorf("%w: %s is not a regular file", ErrInvalid, path)
	}
	fc.Bytes = info.Size()
	db, sqlDB, err := openDB(readOnlyDSN(path, true))
	if err != nil {
		return fc, fmt.Errorf("%w: %s: %v", ErrDamaged, path, err)
	}
	defer sqlDB.Close()
	rows, err := sqlDB.Query(`PRAGMA integrity_check`)
	if err != nil {
		return fc, fmt.Errorf("%w: %s: %v", ErrDamaged, path, err)
	}
	var found []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fc, err
		}
		found = append(found, line)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fc, fmt.Errorf("%w: %s: %v", ErrDamaged, path, err)
	}
	fc.Integrity = strings.Join(found, "; ")
	if fc.Integrity != "ok" {
		return fc, fmt.Errorf("%w: %s: %s", ErrDamaged, path, fc.Integrity)
	}
	if err := sqlDB.QueryRow(`SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&fc.SchemaVersion); err != nil || fc.SchemaVersion == 0 {
		return fc, fmt.Errorf("%w: %s is not a mneme database (no schema version)", ErrInvalid, path)
	}
	fc.Counts, err = (&Store{db: db}).Counts(context.Background())
	return fc, err
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	FileCheck
	// Previous is where the database that was replaced is kept ("" when
	// there was none).
	Previous string `json:"previous,omitempty"`
}

// Restore puts the database file src in place of the one at dbPath. No
// worker may have dbPath open (the caller makes sure: see `mneme
// restore`). src is copied beside dbPath first, synced and checked
// (integrity, and a schema version this mneme can open: older ones are
// migrated at the next start, newer ones refused); the current database
// has its -wal folded in and is kept as dbPath+".bak" (a hard link, or a
// copy); then the copy is renamed over dbPath, which is atomic: a crash
// leaves either the old database or the new one, never a mix.
func Restore(src, dbPath string) (RestoreResult, error) {
	var res RestoreResult
	tmp := dbPath + ".restore"
	os.Remove(tmp)
	if err := copyFile(src, tmp); err != nil {
		return res, err
	}
	defer os.Remove(tmp) // a no-op once renamed
	fc, err := CheckFile(tmp)
	if err != nil {
		return res, err
	}
	if fc.SchemaVersion > SchemaVersion() {
		return res, fmt.Errorf("%w: %s has schema version %d, newer than this mneme's %d: upgrade mneme first", ErrInvalid, src, fc.SchemaVersion, SchemaVersion())
	}
	res.FileCheck = fc
	if _, err := os.Stat(dbPath); err == nil {
		if err := foldWAL(dbPath); err != nil {
			return res, fmt.Errorf("the current database: %w", err)
		}
		res.Previous = dbPath + ".bak"
		os.Remove(res.Previous)
		if err := os.Link(dbPath, res.Previous); err != nil {
			if err := copyFile(dbPath, res.Previous); err != nil {
				return res, fmt.Errorf("keep the current database: %w", err)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	for _, f := range []string{dbPath + "-wal", dbPath + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return res, err
		}
	}
	if err := os.Rename(tmp, dbPath); err != nil {
		return res, err
	}
	return res, syncDir(filepath.Dir(dbPath))
}

// foldWAL checkpoints the -wal file of the database at path into it and
// removes it, so the file alone is the whole database.
func foldWAL(path string) error {
	if info, err := os.Stat(path + "-wal"); err != nil || info.Size() == 0 {
		return nil
	}
	_, sqlDB, err := openDB(DSN(path))
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	_, err = sqlDB.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// copyFile copies src to a new file dst, mode 0600, synced.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	return out.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// SessionsAfter lists up to limit sessions with id > after, in id order:
// a full export walks every session with it.
func (s *Store) SessionsAfter(ctx context.Context, after int64, limit int) ([]Session, error) {
	var out []Session
	err := s.db.WithContext(ctx).Where("id > ?", after).Order("id").Limit(limit).Find(&out).Error
	return out, err
}

// QuickCheck runs PRAGMA quick_check on the SQLite database file at path,
// opened read-only (it takes no write lock, so a worker may be running and
// writing meanwhile; a -wal file is read as usual), and returns its
// answer: "ok", or its findings joined by "; ". `mneme doctor` uses it.
func QuickCheck(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	_, sqlDB, err := openDB(readOnlyDSN(path, false))
	if err != nil {
		return "", err
	}
	defer sqlDB.Close()
	rows, err := sqlDB.Query(`PRAGMA quick_check`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		found = append(found, line)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return strings.Join(found, "; "), nil
}
