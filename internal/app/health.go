package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models"
)

// MinFreeBytes is the free space under the data directory below which the
// worker reports a problem.
const MinFreeBytes = 64 << 20

// Problem is what is wrong with the data directory, as found by the last
// CheckHealth: a sentence saying what and one saying what happens to new
// events meanwhile. It is "" when all is well. /api/health and the viewer's
// banner show it.
func (w *Worker) Problem() string {
	s, _ := w.problem.Load().(string)
	return s
}

// CheckHealth looks at the data directory now and records what is wrong
// with it (see Problem).
func (w *Worker) CheckHealth() string {
	p := w.diagnose()
	switch {
	case p != "" || !w.ReadOnly():
	case w.readOnlyCause == "":
		// Read-only for a reason not found here: say so, and do not
		// restart (a new process would find the same).
		p = fmt.Sprintf("The database cannot be written (%v); mneme serves what is stored. %s", w.readOnlyErr, w.spoolAdvice())
	default:
		p = "The data directory can be written again, but mneme opened its database read-only while it could not be: mneme serve restarts itself to store events again (restart it if this stays). " + w.spoolAdvice()
		w.restartOnce.Do(func() { close(w.restart) })
	}
	w.problem.Store(p)
	return p
}

// diagnose finds the first problem of: a data directory that cannot be
// written, database files that are immutable, append-only or not writable
// by this user, a disk almost full. It opens none of the database's files: closing a descriptor of a
// file releases every POSIX lock this process holds on it, SQLite's too.
func (w *Worker) diagnose() string {
	dir := w.dataDir
	if err := probeWrite(dir); err != nil {
		return fmt.Sprintf("The data directory %s is not writable (%s). %s", dir, reason(err), w.spoolAdvice())
	}
	for _, name := range []string{"mneme.db", "mneme.db-wal", "mneme.db-shm"} {
		path := filepath.Join(dir, name)
		if attr, fix := lockedAttr(path); attr != "" {
			return fmt.Sprintf("The database file %s is %s, so SQLite cannot write it. Run %s. %s",
				path, attr, fix, w.spoolAdvice())
		}
		if err := writeDenied(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("The database file %s is not writable (%v). %s", path, err, w.spoolAdvice())
		}
	}
	if free, ok := FreeBytes(dir); ok {
		if free < MinFreeBytes {
			return fmt.Sprintf("Disk almost full: %d MiB free under %s. Free some space: once it is full, new events are spooled to %s and stored when there is room again.",
				free>>20, dir, w.Fallback.Dir)
		}
	}
	return ""
}

// spoolAdvice says where `mneme hook` puts new events while the data
// directory is not writable: the spool if it still takes writes, else the
// fallback spool.
func (w *Worker) spoolAdvice() string {
	where := w.Fallback.Dir
	if os.MkdirAll(w.Spool.Dir, 0o700) == nil && probeWrite(w.Spool.Dir) == nil {
		where = w.Spool.Dir
	} else if err := hookwire.CheckPrivateDir(where); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// Someone else's directory, or one open to others: the hook
		// neither writes nor replays it.
		return fmt.Sprintf("New events cannot be spooled either, so they are lost until this is fixed: the fallback spool is refused (%v). Have it removed, or give mneme a private XDG_RUNTIME_DIR.", err)
	}
	return fmt.Sprintf("New events that cannot be stored now are spooled to %s and will be stored when this is fixed.", where)
}

// probeWrite creates and removes a small file in dir.
func probeWrite(dir string) error {
	probe := filepath.Join(dir, ".write-probe")
	if err := os.WriteFile(probe, []byte("ok"), 0o600); err != nil {
		return err
	}
	return os.Remove(probe)
}

// reason is an error without the path it names (the message says it).
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Watch re-checks the data directory and replays the spools (events `mneme
// hook` set aside while the worker was busy or could not store them) every
// interval, until ctx ends.
func (w *Worker) Watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	lastErr := ""
	var seen backgroundSeen
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.CheckHealth()
		w.logBackgroundErrors(&seen)
		n, err := w.ReplaySpool(ctx)
		if n > 0 {
			w.log.Info("spool replayed", "events", n)
		}
		// While the problem lasts each attempt fails the same way: say it
		// once, not every few seconds.
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != "" && msg != lastErr {
			w.log.Warn("spool replay stopped; the rest stays spooled", "err", err)
		}
		lastErr = msg
	}
}

// backgroundSeen is how many errors of the store's background loops the
// worker has logged.
type backgroundSeen struct{ indexer, listener int64 }

// logBackgroundErrors logs, once per check, what the store's background
// loops (the search indexer, the PostgreSQL event listener) failed to do
// since the last check: how many errors, and the last one.
func (w *Worker) logBackgroundErrors(seen *backgroundSeen) {
	report := func(what string, e models.BackgroundErrors, seen *int64) {
		if e.Errors > *seen {
			w.log.Warn(what, "errors", e.Errors, "new", e.Errors-*seen, "last", e.LastError, "at", e.LastErrorAt)
			*seen = e.Errors
		}
	}
	if w.Store.Postgres() {
		report("the event listener failed (the live stream lags until it recovers)", w.Store.ListenerStats().BackgroundErrors, &seen.listener)
	} else {
		report("the search indexer failed (it tries again; searches index what waits first)", w.Store.IndexerStats().BackgroundErrors, &seen.indexer)
	}
}
