package testutil

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/mneme-dev/mneme/models"
)

// schemaTemplate is a SQLite database with every migration applied and no
// rows, made once per test binary. A test worker on a fresh data directory
// starts from a copy of it: running the migrations was most of a worker's
// boot (0.7-1.6 s of CPU under -race, ~250 tests boot one), and a copy
// holds exactly what they would have made, so app.New finds the schema
// current and applies nothing. The migrations themselves are tested in
// models, on databases of their own.
var schemaTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "mneme-schema-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mneme.db")
	s, err := models.Open(path)
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	// The last connection's close checkpoints the WAL into the file and
	// removes it; a -wal left would hold part of the schema.
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil, errors.New("schema template: the WAL was not checkpointed")
	}
	return os.ReadFile(path)
})

// seedSchema copies schemaTemplate to dataDir's mneme.db when there is
// none yet. It does nothing where it cannot (a read-only directory, a
// template that could not be made): the worker then migrates as it would.
func seedSchema(dataDir string) {
	path := filepath.Join(dataDir, "mneme.db")
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return
	}
	b, err := schemaTemplate()
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
