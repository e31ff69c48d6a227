package models_test

import (
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/benchdb"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// openPGBenchStore opens the synthetic database of BenchmarkSearch
// (benchdb.Rows: 1M observations, 20k under -short) copied row for row
// into a PostgreSQL database (benchdb.BuildPostgres), so both backends
// are measured on the same data.
func openPGBenchStore(b *testing.B) (*models.Store, *benchdb.DB) {
	b.Helper()
	pg := benchdb.BuildPostgres(b, benchdb.Rows(b))
	if pg.Copied > 0 {
		b.Logf("copied %d observations, %d prompts, %d summaries into PostgreSQL in %s", pg.Observations, pg.Prompts, pg.Summaries, pg.Copied.Round(time.Second))
	}
	s, err := models.OpenURL(pg.URL, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, pg.DB
}

// BenchmarkSearchPostgres is BenchmarkSearch on PostgreSQL: the same
// query shapes over the same synthetic rows, at the same size. The
// baseline is the cheapest GIN lookup: 20 ids of a rare word.
func BenchmarkSearchPostgres(b *testing.B) {
	s, db := openPGBenchStore(b)
	baseline := rareWordBaseline(b, s, `SELECT id FROM observations WHERE fts @@ to_tsquery('english', $1) LIMIT 20`)
	benchSearch(b, s, db, baseline, pgServerCPU(b, s))
}

// pgServerCPU returns what reads the CPU time of s's PostgreSQL server
// (its postmaster and every backend: testutil.ProcessTreeCPU), or nil
// when the server's processes cannot be read (not on this machine, not
// Linux).
func pgServerCPU(b *testing.B, s *models.Store) func() time.Duration {
	var backend int
	if err := modelstest.SQLDB(b, s).QueryRow(`SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	postmaster := testutil.ParentPID(backend)
	if postmaster <= 0 || testutil.ProcessTreeCPU(postmaster) == 0 {
		return nil
	}
	return func() time.Duration { return testutil.ProcessTreeCPU(postmaster) }
}
