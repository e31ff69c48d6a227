package app_test

import (
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
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
	if free, ok := app.FreeBytes(dir); ok && free < app.MinFreeBytes {
		t.Skipf("less than %d MiB free under %s: the worker rightly reports it", app.MinFreeBytes>>20, dir)
	}
}

func health(t *testing.T, srv *testutil.Server) api.Health {
	t.Helper()
	var h api.Health
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
	// A fallback spool open to others (someone made it first) is refused
	// by the hook: the problem says events are lost, not spooled there.
	os.Mkdir(srv.Fallback.Dir, 0o700)
	os.Chmod(srv.Fallback.Dir, 0o777)
	if p := srv.CheckHealth(); !strings.Contains(p, "the fallback spool is refused") || strings.Contains(p, "are spooled to") {
		t.Errorf("with the fallback spool open to others, problem %q", p)
	} else {
		t.Logf("problem with a planted fallback: %s", p)
	}
	os.Remove(srv.Fallback.Dir)
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
	pgtest.SkipOnPostgres(t, "the database files in the data directory")
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
	pgtest.SkipOnPostgres(t, "the read-only fallback of a database file that cannot be written")
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

// TestStartReadOnlyAfterCleanShutdown: after a clean shutdown the database
// has no -wal and -shm files, and in a data directory that cannot be
// written SQLite cannot create them, so the normal open fails with
// "unable to open database file (14)". The worker opens the database
// read-only instead (models.OpenReadOnly) and runs degraded as above: it
// serves what is stored, reports the directory on /api/health and in the
// viewer, answers events with 503 so hooks spool them, refuses writes with
// SQLite's read-only error, and asks for a restart once the directory is
// writable again.
func TestStartReadOnlyAfterCleanShutdown(t *testing.T) {
	pgtest.SkipOnPostgres(t, "the read-only fallback of a database file that cannot be written")
	first := newWorker(t)
	enoughRoom(t, first.DataDir)
	first.SeedFixture(t)
	dir := first.DataDir
	if err := first.Shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "mneme.db")
	// A clean stop leaves no -shm, and no -wal or an empty one.
	if _, err := os.Stat(db + "-shm"); err == nil {
		t.Fatalf("%s-shm is still there after a clean shutdown", db)
	}
	if info, err := os.Stat(db + "-wal"); err == nil && info.Size() > 0 {
		t.Fatalf("%s-wal still holds %d bytes after a clean shutdown", db, info.Size())
	}

	undo := readOnly(t, dir)
	// The failure this is about, as it was.
	if s, err := models.Open(db); err == nil {
		s.Close()
		t.Fatal("the database opened for writing in a read-only directory")
	} else {
		t.Logf("models.Open in the read-only directory: %v", err)
	}

	srv := testutil.NewServerIn(t, dir)
	if !srv.ReadOnly() || !srv.Store.ReadOnly() {
		t.Fatalf("read-only: worker %v, store %v", srv.ReadOnly(), srv.Store.ReadOnly())
	}
	p := srv.Problem()
	t.Logf("problem: %s", p)
	if !strings.Contains(p, "The data directory "+dir+" is not writable") {
		t.Errorf("problem %q does not name the data directory", p)
	}
	if h := health(t, srv); h.Status != "degraded" || h.Problem != p || h.Counts.Sessions != 1 || h.Counts.Observations == 0 {
		t.Errorf("health: %s %q, %+v", h.Status, h.Problem, h.Counts)
	}
	status, body := srv.Do(t, http.MethodGet, "/", nil, http.Header{"Accept": {"text/html"}})
	if status != 200 || !strings.Contains(string(body), `class="banner-problem">The data directory `) {
		t.Errorf("feed page: %d, no banner", status)
	}
	ev := map[string]any{"session_id": "ro-clean", "cwd": "/tmp/ro", "hook_event_name": "UserPromptSubmit", "prompt": "stored later"}
	if status, body := srv.Post(t, "/api/hooks/user-prompt-submit", ev); status != http.StatusServiceUnavailable {
		t.Errorf("ingest into the read-only database: %d %s, want 503 (the hook spools)", status, body)
	}
	werr := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		_, err := tx.AppendEvent(models.EventSettingsChanged, "", 0, 0, map[string]any{})
		return err
	})
	if models.StorageProblem(werr) == "" || !strings.Contains(werr.Error(), "readonly") {
		t.Errorf("a write through the read-only store: %v, want SQLite's read-only error", werr)
	}
	select {
	case <-srv.RestartNeeded():
		t.Fatal("restart asked for while the directory is still read-only")
	default:
	}

	undo()
	if p := srv.CheckHealth(); !strings.Contains(p, "restarts itself") {
		t.Errorf("problem once writable %q does not say a restart is needed", p)
	}
	select {
	case <-srv.RestartNeeded():
	default:
		t.Fatal("no restart asked for once the directory is writable")
	}
	srv.Shutdown(5 * time.Second)

	again := testutil.NewServerIn(t, dir)
	if again.ReadOnly() || again.Store.ReadOnly() || again.Problem() != "" {
		t.Fatalf("after the restart: read-only %v, problem %q", again.ReadOnly(), again.Problem())
	}
	again.Hook(t, "user-prompt-submit", ev)
}

// TestStartNoDatabaseReadOnlyDir: with no database yet and a data
// directory that cannot be written there is nothing to serve: the worker
// fails to start, and says both why the open failed and why the read-only
// open did.
func TestStartNoDatabaseReadOnlyDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	readOnly(t, dir)
	_, err := app.New(t.Context(), app.Options{DataDir: dir, Secret: "test-secret", Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err == nil || !strings.Contains(err.Error(), "nor could it be opened read-only") {
		t.Fatalf("worker on an empty read-only directory: %v", err)
	}
	t.Logf("error: %v", err)
}
