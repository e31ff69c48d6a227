//go:build unix

package soak

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/glebarez/go-sqlite"
)

// bin is the mneme binary built once for every test of the package.
var bin string

func TestMain(m *testing.M) {
	// MNEME_SOAK_BIN names a binary built beforehand (make soak builds one).
	if bin = os.Getenv("MNEME_SOAK_BIN"); bin != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "mneme-soak-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin, err = Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// parallel lets the short tests overlap (go test runs GOMAXPROCS of them
// at once): each has its own worker process, data directory and port, and
// most of its time is spent waiting on that worker (health checks,
// replays, restarts) or on hook processes. make soak (MNEME_SOAK=1) runs
// them one at a time: its figures (RSS curves, latencies) are of one test
// alone.
func parallel(t *testing.T) {
	if !Long() {
		t.Parallel()
	}
}

// startWorker runs `mneme serve` on dataDir and stops it when the test ends.
func startWorker(t testing.TB, dataDir string, env ...string) *Proc {
	t.Helper()
	p, err := NewProc(bin, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	p.Env = env
	if err := startOnFreePort(p, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// startOnFreePort starts p, on another free port when something else took
// its port in the meantime (a free port is only free when it is looked
// up: on a machine running other tests, any process's next connection may
// take it). With samePortFirst, p's own port is tried again for a few
// seconds first, as a restart wants.
func startOnFreePort(p *Proc, samePortFirst bool) error {
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		if _, err = p.Start(20 * time.Second); err == nil || !strings.Contains(err.Error(), "is in use") {
			return err
		}
		if samePortFirst && attempt < 10 {
			time.Sleep(500 * time.Millisecond)
			continue
		}
		port, perr := FreePort()
		if perr != nil {
			return perr
		}
		p.Port, p.URL = port, "http://127.0.0.1:"+strconv.Itoa(port)
	}
	return err
}

// restart starts a new worker process on the same data directory, on the
// same port unless another program keeps it (then p.Port and p.URL say
// where it went).
func restart(t testing.TB, old *Proc) *Proc {
	t.Helper()
	p := &Proc{Bin: old.Bin, DataDir: old.DataDir, Port: old.Port, URL: old.URL, Env: old.Env, Token: old.Token, log: &lockedBuffer{}}
	if err := startOnFreePort(p, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// openDB opens the worker's database read-write through the plain SQL
// driver, as another process would.
func openDB(t testing.TB, dataDir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "mneme.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// integrity runs PRAGMA integrity_check and fails unless it says ok.
func integrity(t testing.TB, db *sql.DB) {
	t.Helper()
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil {
		t.Fatalf("integrity_check: %v", err)
	}
	if res != "ok" {
		t.Fatalf("integrity_check: %s", res)
	}
}

// toolUseIDs counts the stored observations per tool_use_id.
func toolUseIDs(t testing.TB, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.Query(`SELECT tool_use_id FROM observations WHERE tool_use_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out[id]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// duplicates lists ids stored more than once.
func duplicates(ids map[string]int) []string {
	var out []string
	for id, n := range ids {
		if n > 1 {
			out = append(out, fmt.Sprintf("%s×%d", id, n))
		}
	}
	return out
}

// hook runs the built `mneme hook` against p's port and data directory.
func hook(t testing.TB, port int, dataDir, slug string, body []byte, env ...string) HookResult {
	t.Helper()
	r, err := tryHook(port, dataDir, slug, body, env...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tryHook is hook for a goroutine other than the test's (which must not
// call t.Fatal): it returns what went wrong instead.
func tryHook(port int, dataDir, slug string, body []byte, env ...string) (HookResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := Hook(ctx, bin, port, dataDir, slug, body, env...)
	if r.Err != nil {
		return r, fmt.Errorf("mneme hook %s: %v\nstderr: %s", slug, r.Err, r.Stderr)
	}
	out := strings.TrimSpace(string(r.Stdout))
	if !strings.HasPrefix(out, "{") || !strings.HasSuffix(out, "}") {
		return r, fmt.Errorf("mneme hook %s printed %q, want JSON", slug, out)
	}
	return r, nil
}

// scale picks the short or the long (MNEME_SOAK=1) figure.
func scale[T any](short, long T) T {
	if Long() {
		return long
	}
	return short
}
