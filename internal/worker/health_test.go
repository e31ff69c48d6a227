package worker_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
