// Package pgtest runs a real, throwaway PostgreSQL for tests: one cluster
// per test process, made with initdb in a temp dir and started on a free
// loopback port, and one fresh database per caller.
//
// The server comes from Debian's packages (`apt-get install postgresql`,
// which .ci/run does). Where no PostgreSQL can be found, URL skips the
// test with a message saying so, unless MNEME_TEST_BACKEND=postgres asks
// for it: then a missing server fails the test, so a CI run that means to
// test PostgreSQL cannot pass by skipping.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Backend is the backend the test matrix runs on: "postgres" when
// MNEME_TEST_BACKEND says so, else "sqlite".
func Backend() string {
	if os.Getenv("MNEME_TEST_BACKEND") == "postgres" {
		return "postgres"
	}
	return "sqlite"
}

// OnPostgres reports that the matrix runs on PostgreSQL.
func OnPostgres() bool { return Backend() == "postgres" }

// SkipOnPostgres skips a test of something only the SQLite store has.
func SkipOnPostgres(t testing.TB, why string) {
	t.Helper()
	if OnPostgres() {
		t.Skip("SQLite only: " + why)
	}
}

// PostgresLegRuns is the variable make test sets on its SQLite leg, which
// runs PG_PACKAGES (the Makefile's list) before the PostgreSQL leg runs
// them again with MNEME_TEST_BACKEND=postgres.
const PostgresLegRuns = "MNEME_TEST_POSTGRES_LEG_RUNS"

// PostgresOnly is for a test that runs on PostgreSQL whatever the matrix's
// backend, in a package of the Makefile's PG_PACKAGES: on make test's
// SQLite leg (PostgresLegRuns set) it skips, as the PostgreSQL leg that
// follows runs it, with the race detector too; run once, not twice. Run
// any other way (go test, make test-quick) it runs as before.
func PostgresOnly(t testing.TB) {
	t.Helper()
	if !OnPostgres() && os.Getenv(PostgresLegRuns) != "" {
		t.Skip("PostgreSQL only: make test's PostgreSQL leg runs it")
	}
}

type cluster struct {
	dir  string
	port int
	err  error
	cmd  *exec.Cmd
}

var (
	once sync.Once
	the  cluster
	seq  atomic.Int64
)

// URL returns the URL of a new, empty database on the test cluster,
// dropped when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	return newDatabase(t, "template0")
}

// startCluster starts the test cluster at its first call; where it cannot be
// started it skips t, or fails it when MNEME_TEST_BACKEND=postgres.
func startCluster(t testing.TB) {
	t.Helper()
	once.Do(func() { the.err = the.start() })
	if the.err != nil {
		if OnPostgres() {
			t.Fatalf("MNEME_TEST_BACKEND=postgres but no PostgreSQL could be started: %v", the.err)
		}
		t.Skipf("PostgreSQL is not available (%v); install Debian's postgresql package (.ci/run does) to run this test", the.err)
	}
}

// newDatabase makes a database on the test cluster as a copy of template,
// dropped when the test ends, and returns its URL.
func newDatabase(t testing.TB, template string) string {
	t.Helper()
	startCluster(t)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), seq.Add(1))
	admin := the.url("postgres")
	if err := exec1(admin, createDatabase(name, template)); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if err := exec1(admin, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	return the.url(name)
}

func createDatabase(name, template string) string {
	return `CREATE DATABASE ` + name + ` TEMPLATE ` + template + ` ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`
}

// A Template is a database prepared once per test process (the store's
// migrations applied), which URL copies for each caller with CREATE
// DATABASE … TEMPLATE instead of each caller migrating an empty one: the
// PostgreSQL counterpart of the SQLite schema template
// (internal/testutil/seed). The migrations themselves are tested by the
// tests that open an empty database (URL).
type Template struct {
	prepare func(url, dir string) error
	once    sync.Once
	name    string
	err     error
}

// NewTemplate returns the template that prepare makes, on the first call
// of its URL, in an empty database of the test cluster, with a scratch
// directory (removed after) for what a store keeps beside its database.
// prepare must close every connection it opened to it: a database is
// copied only when no one is connected to it.
func NewTemplate(prepare func(url, dir string) error) *Template {
	return &Template{prepare: prepare}
}

// URL returns the URL of a new database on the test cluster, a copy of
// the template, dropped when the test ends; it skips or fails t as
// pgtest.URL does when there is no PostgreSQL.
func (tp *Template) URL(t testing.TB) string {
	t.Helper()
	startCluster(t)
	tp.once.Do(func() {
		name := fmt.Sprintf("tmpl%d_%d", os.Getpid(), seq.Add(1))
		if tp.err = exec1(the.url("postgres"), createDatabase(name, "template0")); tp.err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "mneme-pgschema-")
		if tp.err = err; err != nil {
			return
		}
		defer os.RemoveAll(dir)
		if tp.err = tp.prepare(the.url(name), dir); tp.err == nil {
			tp.name = name
		}
	})
	if tp.err != nil {
		t.Fatalf("prepare the template database: %v", tp.err)
	}
	return newDatabase(t, tp.name)
}

// NewDatabase is URL for callers outside a test (benchmarks' setup
// helpers, soak runs): it returns an error instead of skipping.
func NewDatabase() (string, func(), error) {
	once.Do(func() { the.err = the.start() })
	if the.err != nil {
		return "", nil, the.err
	}
	name := fmt.Sprintf("b%d_%d", os.Getpid(), seq.Add(1))
	admin := the.url("postgres")
	if err := exec1(admin, createDatabase(name, "template0")); err != nil {
		return "", nil, err
	}
	return the.url(name), func() { exec1(admin, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`) }, nil
}

func (c *cluster) url(db string) string {
	return "postgres://postgres@127.0.0.1:" + strconv.Itoa(c.port) + "/" + db + "?sslmode=disable"
}

func exec1(url, stmt string) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, stmt)
	return err
}

// BinDir is where PostgreSQL's server programs are: PG_BINDIR, else the
// newest /usr/lib/postgresql/<v>/bin holding initdb, else the directory
// of an initdb on PATH.
func BinDir() (string, error) {
	if d := os.Getenv("PG_BINDIR"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return filepath.Dir(p), nil
	}
	return "", errors.New("no initdb found (looked in PG_BINDIR, /usr/lib/postgresql/*/bin and PATH)")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
