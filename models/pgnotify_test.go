package models

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// collector gathers what a store's OnCommit publishes.
type collector struct {
	mu  sync.Mutex
	ids []int64
}

func (c *collector) add(ev Event) {
	c.mu.Lock()
	c.ids = append(c.ids, ev.ID)
	c.mu.Unlock()
}

func (c *collector) snapshot() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int64(nil), c.ids...)
}

// waitFor waits until c holds n ids.
func (c *collector) waitFor(t *testing.T, n int, timeout time.Duration) []int64 {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ids := c.snapshot()
		if len(ids) >= n || time.Now().After(deadline) {
			return ids
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openReplica opens a store on url with a collector as its OnCommit.
func openReplica(t *testing.T, url string) (*Store, *collector) {
	t.Helper()
	s, err := OpenURL(url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &collector{}
	s.Writer.OnCommit(c.add)
	return s, c
}

// appendN writes n events in one writer operation.
func appendN(ctx context.Context, s *Store, tag string, n int) error {
	return s.Writer.Do(ctx, func(tx *Tx) error {
		for i := range n {
			if _, err := tx.AppendEvent(EventPrompt, "p", 1, 0, map[string]string{"tag": fmt.Sprintf("%s-%d", tag, i)}); err != nil {
				return err
			}
		}
		return nil
	})
}

// logIDs is every event id in the log, in order.
func logIDs(t *testing.T, s *Store) []int64 {
	t.Helper()
	var ids []int64
	if err := s.db.Raw(`SELECT id FROM events ORDER BY id`).Scan(&ids).Error; err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkSequence fails unless got is want: every event once, in id order.
func checkSequence(t *testing.T, name string, got, want []int64) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("%s: id %d published after %d (position %d)", name, got[i], got[i-1], i)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d events published, the log holds %d", name, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: position %d is id %d, the log's is %d", name, i, got[i], want[i])
		}
	}
}

// TestNotifyTwoReplicas: two stores on one database, written concurrently
// and alternately (16 writers, each op 1 to 3 events, group commit
// batching them): each store's OnCommit gets every event of both, once,
// in id order, the same sequence as the log.
func TestNotifyTwoReplicas(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	a, ca := openReplica(t, url)
	b, cb := openReplica(t, url)
	const writers, ops = 16, 40
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ops {
				s := a
				if (w+i)%2 == 1 {
					s = b
				}
				if err := appendN(ctx, s, fmt.Sprintf("w%d-%d", w, i), 1+i%3); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := logIDs(t, a)
	if n := writers * (ops/3*6 + ops%3); len(want) != n {
		t.Fatalf("log holds %d events, want %d", len(want), n)
	}
	checkSequence(t, "replica A", ca.waitFor(t, len(want), 10*time.Second), want)
	checkSequence(t, "replica B", cb.waitFor(t, len(want), 10*time.Second), want)
	// Nothing more comes (a poll or a late notification repeats nothing):
	// the sleep lets the listeners' backstop poll (every listenPoll) run,
	// the thing under test.
	time.Sleep(listenPoll + 200*time.Millisecond)
	checkSequence(t, "replica A later", ca.snapshot(), want)
	checkSequence(t, "replica B later", cb.snapshot(), want)
	sa, sb := a.ListenerStats(), b.ListenerStats()
	t.Logf("%d events; A %+v B %+v; A's writer %+v", len(want), sa, sb, a.Writer.Stats())
	if sa.Connects != 1 || sb.Connects != 1 {
		t.Fatalf("listeners reconnected: A %d, B %d connections", sa.Connects, sb.Connects)
	}
	if sa.Errors != 0 || sb.Errors != 0 {
		t.Fatalf("listeners that never lost their connection counted errors: A %+v, B %+v", sa, sb)
	}
}

// TestNotifyStartsAtTail: a replica that starts publishes what is
// committed from then on, not the history before it (its clients replay
// that from the log with Last-Event-ID).
func TestNotifyStartsAtTail(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	a, ca := openReplica(t, url)
	ctx := context.Background()
	if err := appendN(ctx, a, "before", 5); err != nil {
		t.Fatal(err)
	}
	ca.waitFor(t, 5, 30*time.Second)
	_, cb := openReplica(t, url)
	if err := appendN(ctx, a, "after", 2); err != nil {
		t.Fatal(err)
	}
	want := logIDs(t, a)
	checkSequence(t, "replica A", ca.waitFor(t, 7, 30*time.Second), want)
	checkSequence(t, "replica B", cb.waitFor(t, 2, 30*time.Second), want[5:])
}

// TestNotifyRollback: events of a failed operation are not published,
// those of its batch neighbours are, once (the batch is rolled back and
// re-run operation by operation).
func TestNotifyRollback(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	a, ca := openReplica(t, url)
	_, cb := openReplica(t, url)
	ctx := context.Background()
	boom := errors.New("boom")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := a.Writer.Do(ctx, func(tx *Tx) error {
				if _, err := tx.AppendEvent(EventPrompt, "p", 1, int64(i), nil); err != nil {
					return err
				}
				if i%4 == 0 {
					return boom
				}
				return nil
			})
			if (err != nil) != (i%4 == 0) {
				t.Errorf("op %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	want := logIDs(t, a)
	if len(want) != 15 {
		t.Fatalf("log holds %d events, want 15", len(want))
	}
	checkSequence(t, "replica A", ca.waitFor(t, 15, 30*time.Second), want)
	checkSequence(t, "replica B", cb.waitFor(t, 15, 30*time.Second), want)
	// Nothing more of them comes: one event written now is the next each
	// publishes (in id order, so a repeat would come before it).
	if err := appendN(ctx, a, "after", 1); err != nil {
		t.Fatal(err)
	}
	want = logIDs(t, a)
	checkSequence(t, "replica A later", ca.waitFor(t, len(want), 30*time.Second), want)
	checkSequence(t, "replica B later", cb.waitFor(t, len(want), 30*time.Second), want)
}

// TestNotifyReconnect: when the listening connection is killed, the
// listener connects again and publishes what was committed meanwhile, in
// order, with nothing repeated.
func TestNotifyReconnect(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	a, ca := openReplica(t, url)
	b, cb := openReplica(t, url)
	ctx := context.Background()
	if err := appendN(ctx, a, "first", 3); err != nil {
		t.Fatal(err)
	}
	cb.waitFor(t, 3, 30*time.Second)
	// Both listen before the first kill: a kill that meets a listener
	// still connecting for the first time (it can, on a loaded machine)
	// would count as its reconnection.
	for deadline := time.Now().Add(30 * time.Second); a.ListenerStats().Connects < 1 || b.ListenerStats().Connects < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not listening: A %+v, B %+v", a.ListenerStats(), b.ListenerStats())
		}
	}
	for round := range 3 {
		var killed int
		if err := a.db.Raw(`SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()`, listenAppName).Scan(&killed).Error; err != nil {
			t.Fatal(err)
		}
		// At least both listeners' (a backend terminated in the round
		// before may not have left pg_stat_activity yet).
		if killed < 2 {
			t.Fatalf("round %d: %d listening connections terminated, want 2", round, killed)
		}
		for i := range 10 {
			s := a
			if i%2 == 1 {
				s = b
			}
			if err := appendN(ctx, s, fmt.Sprintf("r%d-%d", round, i), 2); err != nil {
				t.Fatal(err)
			}
		}
		want := logIDs(t, a)
		checkSequence(t, "replica A", ca.waitFor(t, len(want), 10*time.Second), want)
		checkSequence(t, "replica B", cb.waitFor(t, len(want), 10*time.Second), want)
		// Both listen again before the next round kills them.
		deadline := time.Now().Add(30 * time.Second)
		for a.ListenerStats().Connects < int64(round+2) || b.ListenerStats().Connects < int64(round+2) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: not reconnected: A %+v, B %+v", round, a.ListenerStats(), b.ListenerStats())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// Each lost connection is an error the listener counts and keeps.
	for name, st := range map[string]ListenerStats{"A": a.ListenerStats(), "B": b.ListenerStats()} {
		if st.Errors < 3 || st.LastError == "" || st.LastErrorAt.IsZero() {
			t.Errorf("replica %s lost its connection 3 times, its stats say %+v", name, st)
		}
	}
	t.Logf("A %+v B %+v", a.ListenerStats(), b.ListenerStats())
}

// TestNotifyCloseStops: Close ends the listener's goroutine and its
// connection, also in the middle of a reconnect backoff; a store nobody
// follows (no OnCommit) opens no listening connection.
func TestNotifyCloseStops(t *testing.T) {
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	probe, err := OpenURL(url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	listening := func() int {
		var n int
		if err := probe.db.Raw(`SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()`, listenAppName).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := settled(runtime.NumGoroutine())
	for range 5 {
		s, err := OpenURL(url, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c := &collector{}
		s.Writer.OnCommit(c.add)
		if err := appendN(context.Background(), s, "x", 1); err != nil {
			t.Fatal(err)
		}
		c.waitFor(t, 1, 30*time.Second)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// A backend leaves pg_stat_activity a moment after its client hung up.
	n := listening()
	for deadline := time.Now().Add(60 * time.Second); n > 0 && time.Now().Before(deadline); n = listening() {
		time.Sleep(10 * time.Millisecond)
	}
	if n != 0 {
		t.Fatalf("%d listening connections left after Close", n)
	}
	if after := settled(before); after > before {
		t.Fatalf("goroutines: %d before, %d after five open/follow/close", before, after)
	}
	if probe.ListenerStats().Connects != 0 {
		t.Fatalf("a store without OnCommit listened: %+v", probe.ListenerStats())
	}
}

// settled is the goroutine count once it is down to limit, or after ten
// seconds (a loaded machine schedules exiting goroutines late; a passing
// run waits only as long as they take).
func settled(limit int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(60 * time.Second); n > limit && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// TestNotifyReconnectUnderLoad: listening connections killed again and
// again while both replicas write: each still publishes the whole log
// once, in order.
func TestNotifyReconnectUnderLoad(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	a, ca := openReplica(t, url)
	b, cb := openReplica(t, url)
	ctx := context.Background()
	stop := make(chan struct{})
	killerDone := make(chan struct{})
	var kills atomic.Int64
	go func() {
		defer close(killerDone)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			var n int
			a.db.Raw(`SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()`, listenAppName).Scan(&n)
			kills.Add(int64(n))
		}
	}()
	// Each writer appends at least 60 times, and goes on until the
	// killer has cut the listeners at least 4 times: on a loaded machine
	// a reconnect can take longer than 60 appends, and the test is about
	// appends racing kills. The deadline only bounds a run where killing
	// fails.
	deadline := time.Now().Add(60 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 60 || (kills.Load() < 4 && time.Now().Before(deadline)); i++ {
				s := a
				if (w+i)%2 == 1 {
					s = b
				}
				if err := appendN(ctx, s, fmt.Sprintf("w%d-%d", w, i), 2); err != nil {
					errs <- err
					return
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-killerDone
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := logIDs(t, a)
	checkSequence(t, "replica A", ca.waitFor(t, len(want), 60*time.Second), want)
	checkSequence(t, "replica B", cb.waitFor(t, len(want), 60*time.Second), want)
	t.Logf("%d events, %d listening connections killed; A %+v, B %+v", len(want), kills.Load(), a.ListenerStats(), b.ListenerStats())
	if n := kills.Load(); n < 4 {
		t.Fatalf("only %d listening connections killed in a minute of appends", n)
	}
}
