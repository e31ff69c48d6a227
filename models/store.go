// Package models is mneme's storage layer: the GORM models, the Store that
// wraps the database (embedded SQLite, or PostgreSQL in team mode), its
// migrations and the sentinel errors.
//
// It is the leaf of the dependency graph: it imports GORM, the SQLite and
// PostgreSQL drivers (and pgx itself, for the one connection that LISTENs:
// pgnotify.go) and the standard library. From mneme it imports only
// internal/privacy (standard library only), because the settings carry
// its redaction rules (privacy.Rule) and validate them by its compiler:
// the rules the worker stores and the rules the hook reads from
// <data>/redaction.json are one type, checked one way.
//
// It is also the only package that speaks SQL: the *gorm.DB is
// unexported, and the packages under models/ that need it (the test
// helpers of models/modelstest, the benchmark databases of models/benchdb)
// get it through models/internal/storedb, which nothing else can import.
// Its SQL follows docs/architecture.md's "SQL style": GORM's builder for
// simple CRUD on one entity, raw SQL with ? placeholders for the rest,
// and dynamic SQL only from named builders (sqlbuild.go) that keep every
// value an argument. internal/archtest holds these lines.
package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/mneme-dev/mneme/models/internal/settingsrules"
	"github.com/mneme-dev/mneme/models/internal/storedb"
)

// The test helpers and benchmark databases under models/ reach the handle
// (and what tests look at beside it) through storedb; no other package
// can import it.
func init() {
	storedb.Of = func(store any) *gorm.DB { return store.(*Store).db }
	storedb.Tx = func(db *gorm.DB) any { return &Tx{db: db} }
	storedb.VectorsLoading = func(store any) bool { return store.(*Store).vectorIndexLoading() }
}

// Sentinel errors returned by the Store. Handlers map them to HTTP statuses.
var (
	ErrNotFound = errors.New("not found")
	// ErrInvalid is the settings rules' own value, so that a settings
	// ValidationError, which cannot import models, matches it.
	ErrInvalid = settingsrules.ErrInvalid
	// ErrForbidden is a request the caller may make, about something that
	// is not theirs (a person's event for another person's session): 403.
	ErrForbidden = errors.New("forbidden")
)

// Store is the handle on mneme's database. It is safe for concurrent use.
// Writes that must be acknowledged quickly go through Writer (group commit);
// reads use the database directly.
type Store struct {
	db     *gorm.DB
	Writer *Writer
	// SearchOptions bound the cost of one search; zero fields take the
	// defaults. Set them before the store is used.
	SearchOptions SearchOptions
	path          string
	readOnly      bool   // opened by OpenReadOnly
	dialect       string // "" (SQLite) or DialectPostgres
	url           string // the PostgreSQL URL (team mode)

	ckptStop, ckptDone chan struct{} // ckptStop stops the indexer too
	idxDone            chan struct{}
	ckptOnce           sync.Once
	idxErrs            errorCount   // the background indexer's
	vecs               vecIndex     // the in-memory vectors (vecindex.go)
	pending            pendingMarks // where PendingEmbeddings looks (embedding_pending.go)
	commonAt           atomic.Int64 // PostgreSQL: when a search last asked for mneme_common's refresh (UnixNano)

	// Ranking weighs ranked search hits (nil: DefaultRanking). Set it
	// before the store is used.
	Ranking *SearchRanking
}

// checkpointEvery is how often the WAL is copied back into the database,
// off the commit path (see checkpointer).
const checkpointEvery = 250 * time.Millisecond

// commonPragmas are the connection settings of both the read-write and the
// read-only open.
func commonPragmas() url.Values {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "temp_store(MEMORY)")
	// 4 MB of page cache per connection (8 connections), not 16: at 1M
	// rows with semantic search on, the worker's RSS was 28–32 MB lower
	// and full-text, hybrid and ingest figures the same (docs/performance.md,
	// 2026-11-29); the OS keeps the file's pages cached either way.
	q.Add("_pragma", "cache_size(-4000)")
	return q
}

// DSN builds the SQLite connection string for path. The pragmas were measured
// on this stack: _txlock=immediate removes SQLITE_BUSY under concurrent
// writers; _time_format must not be added (the driver then ignores _txlock).
func DSN(path string) string {
	q := commonPragmas()
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Checkpoints run in the background (Store.checkpointer); a commit
	// checkpoints itself only as a backstop, past 10,000 pages (~40 MB).
	// The default, 1,000, made one commit in ~70 stall 5-14 ms copying
	// the WAL, which was most of the ingest and live-stream p99.
	q.Add("_pragma", "wal_autocheckpoint(10000)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// openDB opens a GORM handle on dsn with the store's settings and pool.
func openDB(dsn string) (*gorm.DB, *sql.DB, error) {
	db, err := gorm.Open(sqlite.Open(dsn), &gorm.Config{
		Logger:                 logger.Discard,
		PrepareStmt:            true,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, nil, err
	}
	sqlDB.SetMaxOpenConns(8)
	sqlDB.SetMaxIdleConns(8)
	sqlDB.SetConnMaxLifetime(0)
	return db, sqlDB, nil
}

// Open opens (creating if needed) the database at path, applies pending
// migrations and starts the group-commit writer.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	db, sqlDB, err := openDB(DSN(path))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := sqlDB.Ping(); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.migrate(context.Background()); err != nil {
		sqlDB.Close()
		return nil, err
	}
	// The WAL and shared-memory files hold data too: owner-only, like
	// the database, whatever the umask.
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		_ = os.Chmod(f, 0o600)
	}
	s.Writer = newWriter(db)
	s.ckptStop, s.ckptDone, s.idxDone = make(chan struct{}), make(chan struct{}), make(chan struct{})
	go s.checkpointer()
	go s.indexer()
	return s, nil
}

// checkpointer copies committed WAL frames back into the database every
// checkpointEvery when something was committed, in PASSIVE mode: it never
// waits for, or blocks, the writer, so no acknowledged write pays for it.
func (s *Store) checkpointer() {
	defer close(s.ckptDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var done uint64
	for {
		select {
		case <-s.ckptStop:
			return
		case <-t.C:
			if n := s.Writer.batches.Load(); n != done {
				if err := s.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`).Error; err == nil {
					done = n
				}
			}
		}
	}
}

// readOnlyDSN is the connection string of a database that cannot be
// written: mode=ro, no pragma that writes (journal_mode), no BEGIN
// IMMEDIATE. With immutable, SQLite also takes no locks and needs no -shm
// file: a WAL database opened read-only otherwise needs its -shm file to
// exist or to be creatable, and after a clean shutdown (no -wal, no -shm)
// in a read-only directory it is neither, so the open fails with "unable
// to open database file (14)". An immutable open does not read a -wal
// file: see OpenReadOnly.
func readOnlyDSN(path string, immutable bool) string {
	q := commonPragmas()
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	return "file:" + path + "?" + q.Encode()
}

// OpenReadOnly opens the existing database at path for reading only, for
// a worker that must serve what is stored (and say what is wrong) while
// the database or its directory cannot be written. It runs no migration:
// the schema must be this mneme's. Every write through the Writer fails
// with SQLite's "attempt to write a readonly database (8)", which
// StorageProblem explains (the worker answers it with 503, so hooks spool
// the event).
//
// It tries mode=ro first, which reads a -wal file as usual but needs -shm
// (see readOnlyDSN), then mode=ro with immutable=1. The latter does not see
// what a -wal file holds; after a clean shutdown there is none, and
// otherwise those commits are still in the file for the next writable open.
func OpenReadOnly(path string) (*Store, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("open %s read-only: not a regular file", path)
	}
	var errs []error
	for _, immutable := range []bool{false, true} {
		s, err := openReadOnly(path, immutable)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("open %s read-only: %w", path, errors.Join(errs...))
}

func openReadOnly(path string, immutable bool) (*Store, error) {
	db, sqlDB, err := openDB(readOnlyDSN(path, immutable))
	if err != nil {
		return nil, err
	}
	// Reading the schema version is the first real read: it is where a
	// read-only WAL database without its -shm file fails.
	var version int
	if err := sqlDB.QueryRow(`SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&version); err != nil {
		sqlDB.Close()
		return nil, err
	}
	if version != len(migrations) {
		sqlDB.Close()
		return nil, fmt.Errorf("database schema version %d, this mneme's is %d: it can only be migrated once the database is writable", version, len(migrations))
	}
	s := &Store{db: db, path: path, readOnly: true}
	s.Writer = newWriter(db)
	return s, nil
}

// ReadOnly reports that the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// Close stops the writer (after it has committed what it holds) and closes
// the database.
func (s *Store) Close() error {
	s.closeVectors()
	if s.ckptStop != nil {
		s.ckptOnce.Do(func() { close(s.ckptStop) })
		<-s.ckptDone
		<-s.idxDone
	}
	if s.Writer != nil {
		s.Writer.Close()
	}
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	return err
}

// Counts are the row counts shown on /api/health and the stats page.
type Counts struct {
	Sessions     int64 `json:"sessions"`
	Prompts      int64 `json:"prompts"`
	Observations int64 `json:"observations"`
	Summaries    int64 `json:"summaries"`
	Memories     int64 `json:"memories"`
}

// Counts counts the rows of each table.
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	err := s.db.WithContext(ctx).Raw(`SELECT
		(SELECT COUNT(*) FROM sessions),
		(SELECT COUNT(*) FROM prompts),
		(SELECT COUNT(*) FROM observations),
		(SELECT COUNT(*) FROM summaries),
		(SELECT COUNT(*) FROM memories)`).Row().Scan(&c.Sessions, &c.Prompts, &c.Observations, &c.Summaries, &c.Memories)
	return c, err
}

// CheckpointTruncate moves every commit from the -wal file into the
// database file and empties the -wal.
func (s *Store) CheckpointTruncate() error {
	if s.Postgres() {
		return nil // no -wal file of ours: PostgreSQL manages its own WAL
	}
	return s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`).Error
}
