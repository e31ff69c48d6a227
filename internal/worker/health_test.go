package worker_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/handlers"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/worker"
)

// readOnly makes paths unwritable the real way and returns the undo: the
// immutable attribute as root (chmod does not stop root), chmod otherwise.
// It skips the test where neither works.
func readOnly(t *testing.T, paths ...string) func() {
	t.Helper()
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", append([]string{"+i"}, paths...)...).CombinedOutput(); err != nil {
			t.Skipf("running as root and chattr +i is unavailable here: %v: %s", err, out)
		}
		undo := func() { exec.Command("chattr", append([]string{"-i"}, paths...)...).Run() }
		t.Cleanup(undo)
		return undo
	}
	for _, p := range paths {
		os.Chmod(p, 0o500)
	}
	undo := func() {
		for _, p := range paths {
			os.Chmod(p, 0o700)
		}
	}
	t.Cleanup(undo)
	return undo
}

func enoughRoom(t *testing.T, dir string) {
	t.Helper()
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) == nil && st.Bavail*uint64(st.Bsize) < worker.MinFreeBytes {
		t.Skipf("less than %d MiB free under %s: the worker rightly reports it", worker.MinFreeBytes>>20, dir)
	}
}

func health(t *testing.T, srv *testutil.Server) handlers.Health {
	t.Helper()
	var h handlers.Health
	srv.GetJSON(t, "/api/health", &h)
	return h
}

// TestHealthReadOnlyDataDir: a data directory that cannot be written is
// found by the real check, reported on /api/health with where new events
// go meanwhile (the spool while it still takes writes, else the fallback
// spool), and cleared once it is writable again.
func TestHealthReadOnlyDataDir(t *testing.T) {
	srv := newWorker(t)
	enoughRoom(t, srv.DataDir)
	if p := srv.CheckHealth(); p != "" {
		t.Fatalf("problem with a fresh data directory: %q", p)
	}
	if h := health(t, srv); h.Status != "ok" || h.Problem != "" {
		t.Fatalf("health: %s %q", h.Status, h.Problem)
	}
	os.MkdirAll(srv.Spool.Dir, 0o700)

	undo := readOnly(t, srv.DataDir)
	p := srv.CheckHealth()
	t.Logf("problem: %s", p)
	for _, want := range []string{"The data directory " + srv.DataDir + " is not writable", "are spooled to " + srv.Spool.Dir} {
		if !strings.Contains(p, want) {
			t.Errorf("problem %q does not say %q", p, want)
		}
	}
	if h := health(t, srv); h.Status != "degraded" || h.Problem != p {
		t.Errorf("health: %s %q, want degraded %q", h.Status, h.Problem, p)
	}
	undo()

	undo = readOnly(t, srv.DataDir, srv.Spool.Dir)
	if p := srv.CheckHealth(); !strings.Contains(p, "are spooled to "+srv.Fallback.Dir) {
		t.Errorf("with the spool unwritable too, problem %q does not name the fallback spool %s", p, srv.Fallback.Dir)
	}
	undo()

	if p := srv.CheckHealth(); p != "" {
		t.Errorf("problem after the fix: %q", p)
	}
	if h := health(t, srv); h.Status != "ok" {
		t.Errorf("health after the fix: %s %q", h.Status, h.Problem)
	}
}

// TestHealthImmutableDatabase: a database file made immutable (chattr +i)
// in a data directory that is still writable is reported by name. The
// main file is safe to make immutable under a running worker (SQLite reads
// it with pread); the -shm file is not (see soak/faults_test.go).
func TestHealthImmutableDatabase(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for chattr +i")
	}
	srv := newWorker(t)
	enoughRoom(t, srv.DataDir)
	db := filepath.Join(srv.DataDir, "mneme.db")
	undo := readOnly(t, db)
	p := srv.CheckHealth()
	t.Logf("problem: %s", p)
	if !strings.Contains(p, "The database file "+db+" is immutable") || !strings.Contains(p, "chattr -i") {
		t.Errorf("problem %q does not name the immutable database file", p)
	}
	undo()
	if p := srv.CheckHealth(); p != "" {
		t.Errorf("problem after chattr -i: %q", p)
	}
}

// TestStartReadOnly: a worker started while its database cannot be written
// (here the database file is immutable, or read-only for a non-root user)
// still starts: it serves what is stored, says what is wrong on
// /api/health and in the viewer, and refuses events with 503 so hooks
// spool them. Once the file is writable again it asks for a restart (SQLite
// keeps a database it opened read-only), and the restarted worker stores
// events again.
func TestStartReadOnly(t *testing.T) {
	first := newWorker(t)
	enoughRoom(t, first.DataDir)
	first.SeedFixture(t)
	dir := first.DataDir
	first.Shutdown(5 * time.Second)

	db := filepath.Join(dir, "mneme.db")
	undo := readOnly(t, db)
	srv := testutil.NewServerIn(t, dir)
	if !srv.ReadOnly() {
		t.Fatal("the worker did not notice it cannot write its database")
	}
	p := srv.Problem()
	t.Logf("problem: %s", p)
	if !strings.Contains(p, "The database file "+db) {
		t.Errorf("problem %q does not name the database file", p)
	}
	if h := health(t, srv); h.Status != "degraded" || h.Counts.Sessions != 1 {
		t.Errorf("health: %s, %+v", h.Status, h.Counts)
	}
	status, body := srv.Do(t, http.MethodGet, "/", nil, http.Header{"Accept": {"text/html"}})
	if status != 200 || !strings.Contains(string(body), `class="banner-problem">The database file `) {
		t.Errorf("feed page: %d, no banner", status)
	}
	ev := map[string]any{"session_id": "ro", "cwd": "/tmp/ro", "hook_event_name": "UserPromptSubmit", "prompt": "stored later"}
	if status, body := srv.Post(t, "/api/hooks/user-prompt-submit", ev); status != http.StatusServiceUnavailable {
		t.Errorf("ingest into a read-only database: %d %s, want 503 (the hook spools)", status, body)
	}
	select {
	case <-srv.RestartNeeded():
		t.Fatal("restart asked for while the database is still read-only")
	default:
	}

	undo()
	p = srv.CheckHealth()
	if !strings.Contains(p, "restarts itself") {
		t.Errorf("problem once writable %q does not say a restart is needed", p)
	}
	select {
	case <-srv.RestartNeeded():
	default:
		t.Fatal("no restart asked for once the database is writable")
	}
	srv.Shutdown(5 * time.Second)

	again := testutil.NewServerIn(t, dir)
	if again.ReadOnly() || again.Problem() != "" {
		t.Fatalf("after the restart: read-only %v, problem %q", again.ReadOnly(), again.Problem())
	}
	again.Hook(t, "user-prompt-submit", ev)
}
