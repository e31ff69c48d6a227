// Package seed makes a database file once per test binary and copies it
// into fresh directories: a SQLite database with every migration applied
// and no rows, so that a test's store or worker finds its schema current
// instead of migrating (most of a test worker's boot under -race). It is
// the standard library only, so the store's own tests (package models)
// use it as internal/testutil does.
package seed

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// Template returns the bytes of the database file build makes at path,
// made on the first call and kept. build must leave no -wal beside the
// file (closing the last connection checkpoints it).
func Template(build func(path string) error) func() ([]byte, error) {
	return sync.OnceValues(func() ([]byte, error) {
		dir, err := os.MkdirTemp("", "mneme-schema-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "mneme.db")
		if err := build(path); err != nil {
			return nil, err
		}
		if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
			return nil, errors.New("schema template: the WAL was not checkpointed")
		}
		return os.ReadFile(path)
	})
}

// Copy writes template's bytes to path when there is no file there yet.
// It does nothing where it cannot (a read-only directory, a template that
// could not be made): the store then migrates as it would.
func Copy(path string, template func() ([]byte, error)) {
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return
	}
	b, err := template()
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
}
