package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Dialects of a Store.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// IsPostgresURL reports whether u names a PostgreSQL database
// (postgres:// or postgresql://), as MNEME_DATABASE_URL may.
func IsPostgresURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

// RedactURL is u without its password, for logs and pages.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable database URL)"
	}
	if _, ok := p.User.Password(); ok {
		p.User = url.UserPassword(p.User.Username(), "xxxxx")
	}
	q := p.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		p.RawQuery = q.Encode()
	}
	return p.String()
}

// OpenURL opens the store a worker is configured with: the PostgreSQL
// database at databaseURL when it is one (team mode), else the SQLite
// file mneme.db in dataDir. dataDir holds the files kept beside the
// database either way (the summarizer's API key).
func OpenURL(databaseURL, dataDir string) (*Store, error) {
	if databaseURL == "" {
		return Open(filepath.Join(dataDir, "mneme.db"))
	}
	if !IsPostgresURL(databaseURL) {
		return nil, fmt.Errorf("%w: database URL %s: only postgres:// and postgresql:// URLs are supported (leave it empty for the embedded SQLite database)", ErrInvalid, RedactURL(databaseURL))
	}
	return OpenPostgres(databaseURL, dataDir)
}

// OpenPostgres opens the PostgreSQL database at databaseURL, applies its
// pending migrations (pgMigrations) and starts the group-commit writer.
func OpenPostgres(databaseURL, dataDir string) (*Store, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	dsn, err := pgDSN(databaseURL)
	if err != nil {
		return nil, err
	}
	db, err := gorm.Open(postgres.New(postgres.Config{DSN: dsn}), &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", RedactURL(databaseURL), err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(16)
	sqlDB.SetMaxIdleConns(8)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open %s: %w", RedactURL(databaseURL), err)
	}
	s := &Store{db: db, path: filepath.Join(dataDir, "mneme.db"), dialect: DialectPostgres, url: databaseURL}
	// No deadline for the migrations: one may build an index over every
	// row (migration 9: minutes at a million observations), and a replica
	// started meanwhile waits on the lock until it is done.
	if err := s.migratePostgres(context.Background(), sqlDB); err != nil {
		sqlDB.Close()
		return nil, err
	}
	s.Writer = newWriter(db)
	// Committed events reach OnCommit through LISTEN/NOTIFY, every
	// replica's alike (pgnotify.go).
	s.Writer.listener = newEventListener(s)
	return s, nil
}

// pgDSN is databaseURL with the session settings mneme relies on: UTC
// (day buckets and stored times never depend on the server's zone) and an
// application name that shows in pg_stat_activity.
func pgDSN(databaseURL string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", fmt.Errorf("%w: database URL: %v", ErrInvalid, err)
	}
	q := u.Query()
	q.Set("timezone", "UTC")
	// JIT compilation pays off on long analytic queries, never on mneme's
	// short ones: at 1M observations it added 60-65 ms to a search that
	// otherwise takes a few (LLVM emission, measured with EXPLAIN ANALYZE).
	if !q.Has("jit") {
		q.Set("jit", "off")
	}
	if !q.Has("application_name") {
		q.Set("application_name", "mneme")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// pgMigrateLock is the advisory lock replicas take while migrating, so two
// starting at once do not both apply a migration.
const pgMigrateLock = 7736636

func (s *Store) migratePostgres(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, pgMigrateLock); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, pgMigrateLock)
	// The search columns cut text into words with [[:alnum:]], which
	// follows the database's character type: under LC_CTYPE C, é or 日
	// are not letters, and every non-ASCII word would silently become
	// unsearchable. Refuse such a database with what to do instead.
	var utf8Letters bool
	if err := conn.QueryRowContext(ctx, `SELECT current_setting('server_encoding') = 'UTF8' AND 'é日' ~ '^[[:alnum:]]+$'`).Scan(&utf8Letters); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if !utf8Letters {
		return fmt.Errorf("%w: the database must use the UTF8 encoding with a UTF-8 character type, or search cannot find non-ASCII words: create it with CREATE DATABASE mneme ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' TEMPLATE template0", ErrInvalid)
	}
	for _, stmt := range []string{
		pgPrelude,
		`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	var current int
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: read version: %w", err)
	}
	if current > len(pgMigrations) {
		return fmt.Errorf("migrate: database schema version %d is newer than this mneme (%d); upgrade mneme", current, len(pgMigrations))
	}
	for v := current; v < len(pgMigrations); v++ {
		if err := applyPGMigration(ctx, conn, v+1, pgMigrations[v]); err != nil {
			return fmt.Errorf("migrate to version %d: %w", v+1, err)
		}
	}
	return nil
}

func applyPGMigration(ctx context.Context, conn *sql.Conn, version int, stmt string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return err
	}
	if f := pgMigrationFollowUps[version]; f != nil {
		if err := f(ctx, tx, true); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)`, version, time.Now().UTC()); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion is the schema version this binary migrates the store to:
// the length of its own dialect's migration list.
func (s *Store) SchemaVersion() int {
	if s.Postgres() {
		return len(pgMigrations)
	}
	return len(migrations)
}

// Dialect is DialectSQLite or DialectPostgres.
func (s *Store) Dialect() string {
	if s.dialect == "" {
		return DialectSQLite
	}
	return s.dialect
}

// Postgres reports that the store is on PostgreSQL (team mode).
func (s *Store) Postgres() bool { return s.dialect == DialectPostgres }

// URL is the PostgreSQL URL the store was opened with ("" for SQLite).
// It may hold a password: show RedactURL(URL()).
func (s *Store) URL() string { return s.url }

// ErrNotOnPostgres is an operation only the embedded SQLite store has
// (a file backup, VACUUM); PostgreSQL has its own tools for them.
var ErrNotOnPostgres = errors.New("not available on PostgreSQL: use the database's own tools (pg_dump, VACUUM)")

// syncSequence moves table's id sequence past its largest id (PostgreSQL).
func syncSequence(db *gorm.DB, table string) error {
	err := db.Exec(`SELECT setval(pg_get_serial_sequence('` + table + `', 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM ` + table + `), 1), (SELECT COUNT(*) > 0 FROM ` + table + `))`).Error
	if err != nil {
		return fmt.Errorf("sync %s id sequence: %w", table, err)
	}
	return nil
}
