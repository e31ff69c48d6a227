package benchdb

import (
	"context"
	"database/sql"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/internal/storedb"
)

// PostgresDB is the synthetic database copied into a PostgreSQL database
// of the test cluster (internal/pgtest), for the team-mode benchmarks.
type PostgresDB struct {
	*DB
	URL    string
	Copied time.Duration
}

var pgDBs sync.Map // rows → *pgOnce

type pgOnce struct {
	once sync.Once
	db   *PostgresDB
	err  error
}

// BuildPostgres is Build, then the same rows copied into a fresh
// PostgreSQL database with COPY (ids kept), sequences moved past them and
// the tables analysed: both backends then hold byte-identical data, so
// their figures compare. The copy is made once per test process, on the
// test cluster (internal/pgtest) — or, when MNEME_BENCH_POSTGRES names a
// server (postgres://user@host:port/db, a role that may create
// databases), kept there as database mneme_bench_<rows> and reused by
// later runs, as MNEME_BENCH_CACHE keeps the SQLite file: at 1M rows the
// copy takes 5 to 15 minutes.
func BuildPostgres(tb testing.TB, rows int) *PostgresDB {
	tb.Helper()
	src := Build(tb, rows)
	v, _ := pgDBs.LoadOrStore(rows, &pgOnce{})
	o := v.(*pgOnce)
	o.once.Do(func() {
		if server := os.Getenv("MNEME_BENCH_POSTGRES"); server != "" {
			o.db, o.err = cachedPostgres(server, src)
			return
		}
		url, _, err := pgtest.NewDatabase()
		if err != nil {
			o.err = err
			return
		}
		start := time.Now()
		if o.err = CopyToPostgres(filepath.Join(src.Dir, "mneme.db"), url); o.err == nil {
			o.db = &PostgresDB{DB: src, URL: url, Copied: time.Since(start)}
		}
	})
	if o.err != nil {
		if pgtest.OnPostgres() {
			tb.Fatal(o.err)
		}
		tb.Skipf("PostgreSQL: %v", o.err)
	}
	return o.db
}

// cachedPostgres is BuildPostgres's copy kept on server: database
// mneme_bench_<rows>, reused when it holds every row of src (a copy cut
// short is made again).
func cachedPostgres(server string, src *DB) (*PostgresDB, error) {
	u, err := neturl.Parse(server)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("mneme_bench_%d", src.Observations)
	u.Path = "/" + name
	ctx := context.Background()
	if conn, err := pgx.Connect(ctx, u.String()); err == nil {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM observations`).Scan(&n)
		conn.Close(ctx)
		if err == nil && n == src.Observations {
			return &PostgresDB{DB: src, URL: u.String()}, nil
		}
	}
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		return nil, err
	}
	defer admin.Close(ctx)
	for _, stmt := range []string{`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`,
		`CREATE DATABASE ` + name + ` TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	if err := CopyToPostgres(filepath.Join(src.Dir, "mneme.db"), u.String()); err != nil {
		return nil, err
	}
	return &PostgresDB{DB: src, URL: u.String(), Copied: time.Since(start)}, nil
}

// CopyToPostgres copies the data tables of the SQLite database at path
// into the PostgreSQL database at url (migrated first by OpenPostgres).
func CopyToPostgres(path, url string) error {
	dst, err := models.OpenPostgres(url, filepath.Dir(path))
	if err != nil {
		return err
	}
	dst.Close()
	src, err := models.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	sdb, err := storedb.Of(src).DB()
	if err != nil {
		return err
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	// The full-text indexes are built once after the copy, as a CREATE
	// INDEX does, rather than row by row (the same index either way).
	var indexes []string
	if err := pgxRows(ctx, conn, `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname IN ('prompts_fts', 'observations_fts', 'summaries_fts')`, &indexes); err != nil {
		return err
	}
	for _, name := range []string{"prompts_fts", "observations_fts", "summaries_fts"} {
		if _, err := conn.Exec(ctx, `DROP INDEX `+name); err != nil {
			return err
		}
	}
	for _, table := range []string{"sessions", "prompts", "observations", "summaries"} {
		if err := copyTable(ctx, sdb, conn, table); err != nil {
			return fmt.Errorf("copy %s: %w", table, err)
		}
		if _, err := conn.Exec(ctx, `SELECT setval(pg_get_serial_sequence('`+table+`', 'id'), (SELECT COALESCE(MAX(id), 1) FROM `+table+`))`); err != nil {
			return err
		}
	}
	if _, err := conn.Exec(ctx, `SET maintenance_work_mem = '256MB'`); err != nil {
		return err
	}
	for _, def := range indexes {
		if _, err := conn.Exec(ctx, def); err != nil {
			return err
		}
	}
	// VACUUM sets the visibility map, as autovacuum does on a live
	// database: without it every count and ranking reads the heap for
	// each row, and searches measured 3 to 5 times slower.
	_, err = conn.Exec(ctx, `VACUUM ANALYZE`)
	return err
}

// pgxRows scans the one text column of query's rows into out.
func pgxRows(ctx context.Context, conn *pgx.Conn, query string, out *[]string) error {
	rows, err := conn.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return err
		}
		*out = append(*out, v)
	}
	return rows.Err()
}

// copyTable streams table's rows from SQLite into PostgreSQL's COPY,
// column by column as PostgreSQL names and types them (the generated
// tsvector column is left out: PostgreSQL computes it).
func copyTable(ctx context.Context, sdb *sql.DB, conn *pgx.Conn, table string) error {
	rows, err := conn.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`, table)
	if err != nil {
		return err
	}
	var cols, types []string
	for rows.Next() {
		var c, t string
		if err := rows.Scan(&c, &t); err != nil {
			return err
		}
		cols, types = append(cols, c), append(types, t)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	src, err := sdb.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+table+` ORDER BY id`)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = conn.CopyFrom(ctx, pgx.Identifier{table}, cols, &sqliteRows{rows: src, types: types})
	return err
}

// sqliteRows adapts SQLite rows to pgx.CopyFromSource, converting what
// SQLite stores differently: 0/1 for booleans, text for times.
type sqliteRows struct {
	rows  *sql.Rows
	types []string
}

func (r *sqliteRows) Next() bool { return r.rows.Next() }

func (r *sqliteRows) Values() ([]any, error) {
	raw := make([]any, len(r.types))
	ptrs := make([]any, len(raw))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if err := r.rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	for i, t := range r.types {
		switch t {
		case "boolean":
			switch v := raw[i].(type) {
			case int64:
				raw[i] = v != 0
			}
		case "timestamp with time zone":
			switch v := raw[i].(type) {
			case string:
				raw[i] = parseTime(v)
			case []byte:
				raw[i] = parseTime(string(v))
			}
		case "text":
			if b, ok := raw[i].([]byte); ok {
				raw[i] = string(b)
			}
		}
	}
	return raw, nil
}

func (r *sqliteRows) Err() error { return r.rows.Err() }

func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
