package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/hooks"
)

// minFreeBytes is the free space under which the worker reports a problem.
const minFreeBytes = 64 << 20

// healthWatch checks the data directory every few seconds and replays the
// spool when something was spooled while the worker was busy.
type healthWatch struct {
	dir     string
	problem atomic.Value // string
}

func newHealthWatch(dir string) *healthWatch {
	w := &healthWatch{dir: dir}
	w.check()
	return w
}

// Problem is the current problem with the data directory, "" when healthy.
func (w *healthWatch) Problem() string {
	s, _ := w.problem.Load().(string)
	return s
}

func (w *healthWatch) check() {
	problem := ""
	probe := filepath.Join(w.dir, ".write-probe")
	if err := os.WriteFile(probe, []byte("ok"), 0o600); err != nil {
		problem = fmt.Sprintf("data directory %s is not writable: %v", w.dir, err)
	} else {
		os.Remove(probe)
		var st syscall.Statfs_t
		if syscall.Statfs(w.dir, &st) == nil {
			if free := st.Bavail * uint64(st.Bsize); free < minFreeBytes {
				problem = fmt.Sprintf("disk almost full: %d MiB free under %s", free>>20, w.dir)
			}
		}
	}
	w.problem.Store(problem)
}

// Run re-checks every five seconds until ctx ends.
func (w *healthWatch) Run(ctx context.Context, spool hooks.Spool, replay func(context.Context) (int, error)) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.check()
			if spool.Pending() {
				replay(ctx)
			}
		}
	}
}
