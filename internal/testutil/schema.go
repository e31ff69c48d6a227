package testutil

import (
	"path/filepath"

	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil/seed"
	"github.com/mneme-dev/mneme/models"
)

// schemaTemplate is a SQLite database with every migration applied and no
// rows, made once per test binary. A test worker on a fresh data directory
// starts from a copy of it: running the migrations was most of a worker's
// boot (0.7-1.6 s of CPU under -race, ~250 tests boot one), and a copy
// holds exactly what they would have made, so app.New finds the schema
// current and applies nothing. The migrations themselves are tested in
// models, on databases of their own.
var schemaTemplate = seed.Template(func(path string) error {
	s, err := models.Open(path)
	if err != nil {
		return err
	}
	return s.Close()
})

// seedSchema copies schemaTemplate to dataDir's mneme.db when there is
// none yet; where it cannot, the worker migrates as it would.
func seedSchema(dataDir string) { seed.Copy(filepath.Join(dataDir, "mneme.db"), schemaTemplate) }

// pgTemplate is schemaTemplate on PostgreSQL (MNEME_TEST_BACKEND=postgres):
// a database with every migration applied, made once per test binary;
// each test worker's database is a copy of it (CREATE DATABASE …
// TEMPLATE), so a worker's boot applies no migration there either.
var pgTemplate = pgtest.NewTemplate(func(url, dir string) error {
	s, err := models.OpenURL(url, dir)
	if err != nil {
		return err
	}
	return s.Close()
})
