//go:build unix

package soak

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sample is one point of the worker's resource curve.
type sample struct {
	at         time.Duration
	rssKiB     int64
	goroutines int
	events     int64
}

// TestParallelSessions runs 8 simulated Claude Code sessions at once, every
// event through the built `mneme hook` (MNEME_DEBUG=1), for a bounded time
// (15 s; 3 min under MNEME_SOAK=1). No SQLITE_BUSY may surface in the
// worker's log or the hooks' stderr; every event ends up stored; the
// worker's RSS and goroutine count must not grow (the curve is printed).
func TestParallelSessions(t *testing.T) {
	parallel(t)
	duration := scale(15*time.Second, 3*time.Minute)
	every := scale(time.Second, 10*time.Second)
	dir := t.TempDir()
	p := startWorker(t, dir)
	// Warm up (one session through the hook, then idle) so lazily started
	// parts (connection pool, server workers) are in the baseline.
	for _, ev := range Session(SessionSpec{SessionID: "par-warmup", Cwd: "/home/dev/projects/warm", Events: 20}) {
		hook(t, p.Port, dir, ev.Slug, ev.Body, "MNEME_NO_AUTOSTART=1")
	}
	time.Sleep(2 * time.Second) // the idle time the baseline is taken after, not a wait for an event
	idle, err := p.Health()
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var mu sync.Mutex
	var stderr bytes.Buffer
	var sent, spooled atomic.Int64
	var latencies []time.Duration
	var wantIDs []string
	var wg sync.WaitGroup
	for s := 0; s < 8; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			for round := 0; ctx.Err() == nil; round++ {
				events := Session(SessionSpec{SessionID: fmt.Sprintf("par-%d-%03d", s, round), Cwd: fmt.Sprintf("/home/dev/projects/par%d", s), Events: 40})
				for _, ev := range events {
					if ctx.Err() != nil && ev.Slug != "session-end" {
						continue // finish the session cleanly, skip the rest
					}
					r := Hook(context.Background(), bin, p.Port, dir, ev.Slug, ev.Body, "MNEME_NO_AUTOSTART=1", "MNEME_DEBUG=1")
					sent.Add(1)
					mu.Lock()
					latencies = append(latencies, r.Elapsed)
					if ev.ToolUseID != "" {
						wantIDs = append(wantIDs, ev.ToolUseID)
					}
					if len(r.Stderr) > 0 {
						stderr.Write(r.Stderr)
						if bytes.Contains(r.Stderr, []byte("spooling")) || bytes.Contains(r.Stderr, []byte("not reachable")) {
							spooled.Add(1)
						}
					}
					mu.Unlock()
					if r.Err != nil || !bytes.HasPrefix(bytes.TrimSpace(r.Stdout), []byte("{")) {
						t.Errorf("hook %s: %v, printed %q", ev.Slug, r.Err, r.Stdout)
					}
				}
			}
		}(s)
	}

	var curve []sample
	begin := time.Now()
	tick := time.NewTicker(every)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			rss, _ := RSSKiB(p.PID())
			h, _ := p.Health()
			curve = append(curve, sample{time.Since(begin), rss, h.Goroutines, sent.Load()})
		}
	}
	tick.Stop()
	wg.Wait()
	waitSpoolEmpty(t, dir, 15*time.Second)
	// fasthttp keeps idle server workers for 10 s before it reaps them:
	// give the count that long to come back down to the idle baseline.
	var after Health
	for deadline := time.Now().Add(25 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if after, _ = p.Health(); after.Goroutines <= idle.Goroutines+2 {
			break
		}
	}
	rssAfter, _ := RSSKiB(p.PID())

	var b strings.Builder
	fmt.Fprintf(&b, "worker curve (8 parallel sessions through mneme hook):\n%8s %10s %10s %8s\n", "t", "RSS MiB", "goroutines", "events")
	for _, s := range curve {
		fmt.Fprintf(&b, "%8s %10.1f %10d %8d\n", s.at.Round(time.Second), float64(s.rssKiB)/1024, s.goroutines, s.events)
	}
	fmt.Fprintf(&b, "%8s %10.1f %10d %8d  (after the load, idle)\n", "end", float64(rssAfter)/1024, after.Goroutines, sent.Load())
	t.Log(b.String())
	t.Logf("%d hook runs, spawn→exit %s; %d answered without reaching the worker in budget (spooled, replayed later)", sent.Load(), Summarize(latencies), spooled.Load())

	for _, bad := range []string{"SQLITE_BUSY", "database is locked"} {
		if strings.Contains(p.Log(), bad) {
			t.Errorf("worker log mentions %s:\n%s", bad, p.Log())
		}
		if strings.Contains(stderr.String(), bad) {
			t.Errorf("hook stderr mentions %s", bad)
		}
	}
	if after.Goroutines > idle.Goroutines+2 {
		t.Errorf("goroutines grew: %d idle before, %d idle after", idle.Goroutines, after.Goroutines)
	}
	if n := len(curve); n >= 6 {
		first, last := maxRSS(curve[:n/3]), maxRSS(curve[n-n/3:])
		if last > first*3/2+10*1024 {
			t.Errorf("RSS grew from %d KiB (first third) to %d KiB (last third)", first, last)
		}
	}

	p.Stop()
	db := openDB(t, dir)
	integrity(t, db)
	got := toolUseIDs(t, db)
	if d := duplicates(got); len(d) > 0 {
		t.Errorf("stored twice: %v", d)
	}
	missing := 0
	for _, id := range wantIDs {
		if got[id] == 0 {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d tool events missing", missing, len(wantIDs))
	}
}

func maxRSS(s []sample) int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.rssKiB)
	}
	return m
}
