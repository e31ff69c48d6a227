package models_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/benchdb"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/models"
)

// pgBenchRows is the size of BenchmarkSearchPostgres' database unless
// MNEME_BENCH_ROWS says otherwise: small enough to load in seconds.
const pgBenchRows = 20_000

// openPGBenchStore loads the synthetic SQLite database (benchdb) of the
// same size into a fresh PostgreSQL database, row for row, so both
// backends are measured on the same data: multi-row INSERTs of the
// tables' own columns (the fts columns are generated as the rows go in),
// then VACUUM ANALYZE: the steady state autovacuum keeps a live database
// in. Without the visibility map a vacuum sets, every match count and
// ranking visits the heap for each row and searches are 3 to 5 times
// slower (measured right after the load: p50 16 ms against 4 ms).
func openPGBenchStore(b *testing.B) (*models.Store, *benchdb.DB) {
	b.Helper()
	rows := pgBenchRows
	if os.Getenv("MNEME_BENCH_ROWS") != "" {
		rows = benchdb.Rows(b)
	}
	db := benchdb.Build(b, rows)
	src, err := models.Open(filepath.Join(db.Dir, "mneme.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	pg, err := models.OpenURL(pgtest.URL(b), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pg.Close() })
	from, err := src.DB.DB()
	if err != nil {
		b.Fatal(err)
	}
	to, err := pg.DB.DB()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	for _, t := range []struct{ table, cols string }{
		{"sessions", "id, claude_session_id, project, cwd, status, started_at, prompt_counter"},
		{"observations", "id, session_id, project, prompt_number, tool_use_id, tool_name, kind, title, input, output, files, success, importance, duration_ms, created_at"},
		{"prompts", "id, session_id, project, number, text, created_at"},
		{"summaries", "id, session_id, project, kind, request, investigated, learned, completed, next_steps, created_at"},
	} {
		if err := copyRows(from, to, t.table, t.cols); err != nil {
			b.Fatalf("copy %s: %v", t.table, err)
		}
	}
	if _, err := to.Exec(`VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d observations, %d prompts, %d summaries into PostgreSQL in %s", db.Observations, db.Prompts, db.Summaries, time.Since(t0).Round(time.Millisecond))
	return pg, db
}

// copyRows copies table's cols from SQLite to PostgreSQL, 500 rows a
// statement. SQLite's booleans (integers) and times (text, for some
// drivers) are converted for pgx.
func copyRows(from, to *sql.DB, table, cols string) error {
	rows, err := from.Query(`SELECT ` + cols + ` FROM ` + table + ` ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	names := strings.Split(cols, ", ")
	const batch = 500
	var args []any
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		var b strings.Builder
		for r := 0; r < len(args)/len(names); r++ {
			if r > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			for c := range names {
				if c > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "$%d", r*len(names)+c+1)
			}
			b.WriteByte(')')
		}
		_, err := to.Exec(`INSERT INTO `+table+` (`+cols+`) VALUES `+b.String(), args...)
		args = args[:0]
		return err
	}
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, n := range names {
			switch {
			case n == "success":
				vals[i] = vals[i] != int64(0) && vals[i] != false
			case strings.HasSuffix(n, "_at"):
				vals[i] = benchTime(vals[i])
			}
		}
		args = append(args, vals...)
		if len(args) == batch*len(names) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

// benchTime reads a time as the SQLite driver returns it.
func benchTime(v any) any {
	var s string
	switch v := v.(type) {
	case time.Time:
		return v
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return v
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return v
}

// BenchmarkSearchPostgres is BenchmarkSearch on PostgreSQL: the same
// query shapes over the same synthetic rows (pgBenchRows observations
// unless MNEME_BENCH_ROWS; run BenchmarkSearch with -short, or the same
// MNEME_BENCH_ROWS, to compare at the same size). The baseline is the
// cheapest GIN lookup: 20 ids of a rare word.
func BenchmarkSearchPostgres(b *testing.B) {
	s, db := openPGBenchStore(b)
	sqlDB, err := s.DB.DB()
	if err != nil {
		b.Fatal(err)
	}
	base, err := sqlDB.Prepare(`SELECT id FROM observations WHERE fts @@ to_tsquery('english', $1) LIMIT 20`)
	if err != nil {
		b.Fatal(err)
	}
	defer base.Close()
	baseline := func(i int) time.Duration {
		t0 := time.Now()
		rows, err := base.Query(benchdb.Word(3000 + (i%50)*37))
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
		return time.Since(t0)
	}
	benchSearch(b, s, db, baseline)
}
