//go:build unix

package soak

import (
	"bufio"
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// streamReader follows a worker's /stream and records the id of every
// logged event, in arrival order.
type streamReader struct {
	mu     sync.Mutex
	ids    []int64
	cancel context.CancelFunc
	done   chan struct{}
}

// followStream follows p's /stream from lastID on (0: from now).
func followStream(t *testing.T, p *Proc, lastID int64) *streamReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/stream", nil)
	p.Authorize(req)
	if lastID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET /stream: %v %v", resp, err)
	}
	r := &streamReader{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
				n, _ := strconv.ParseInt(id, 10, 64)
				r.mu.Lock()
				r.ids = append(r.ids, n)
				r.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-r.done })
	return r
}

func (r *streamReader) snapshot() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.ids...)
}

// TestReplicaKillDuringBurst: two `mneme serve` processes on one
// PostgreSQL database, a burst of PostToolUse events sent alternately to
// each from 16 clients, one SSE client on B; A is killed with SIGKILL
// mid-burst. Every acknowledged event is stored once, and B's client saw
// every event of the log (the acknowledged ones among them) once, in id
// order: A's death loses nothing B publishes, since B reads the log. A
// restarted, a client of A resuming with the Last-Event-ID it had on B
// gets the rest of the log, then live events from both.
func TestReplicaKillDuringBurst(t *testing.T) {
	parallel(t)
	url := pgtest.URL(t)
	env := "MNEME_DATABASE_URL=" + url
	a := startWorker(t, t.TempDir(), env)
	b := startWorker(t, t.TempDir(), env)
	stream := followStream(t, b, 0)

	n := scale(1200, 6000)
	events := burstEvents(n)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var sent atomic.Int64
	counting := func(p *Proc) *Client {
		c := p.NewClient(5 * time.Second)
		c.Path = func(ev Event) string { sent.Add(1); return "/api/hooks/" + ev.Slug }
		return c
	}
	// Even events go to A, odd ones to B, 8 clients each.
	var toA, toB []Event
	for i, ev := range events {
		if i%2 == 0 {
			toA = append(toA, ev)
		} else {
			toB = append(toB, ev)
		}
	}
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for sent.Load() < int64(n/3) {
			time.Sleep(time.Millisecond)
		}
		a.Kill()
	}()
	var outA, outB []Outcome
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); outA = counting(a).Burst(ctx, toA, 8) }()
	go func() { defer wg.Done(); outB = counting(b).Burst(ctx, toB, 8) }()
	wg.Wait()
	<-killed

	acked := map[string]bool{}
	failedA := 0
	for name, outs := range map[string][]Outcome{"A": outA, "B": outB} {
		evs := toA
		if name == "B" {
			evs = toB
		}
		for _, o := range outs {
			switch {
			case o.Err == nil && o.Status/100 == 2:
				acked[evs[o.Index].ToolUseID] = true
			case o.Err == nil:
				t.Fatalf("%s: event %d: status %d", name, o.Index, o.Status)
			case name == "B":
				t.Fatalf("B: event %d: %v", o.Index, o.Err)
			default:
				failedA++
			}
		}
	}
	t.Logf("burst of %d (half to each replica): %d acknowledged, %d to A failed after its kill", n, len(acked), failedA)
	if failedA == 0 {
		t.Fatal("the kill did not land mid-burst")
	}

	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Every acknowledged event is stored, once, with its observation event.
	rows, err := db.Query(`SELECT o.tool_use_id, COUNT(DISTINCT o.id), COUNT(e.id) FROM observations o
		LEFT JOIN events e ON e.ref_id = o.id AND e.kind = 'observation'
		WHERE o.tool_use_id IS NOT NULL GROUP BY o.tool_use_id`)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for rows.Next() {
		var id string
		var nobs, nev int
		if err := rows.Scan(&id, &nobs, &nev); err != nil {
			t.Fatal(err)
		}
		if nobs != 1 || nev != 1 {
			t.Errorf("%s: %d observations, %d events", id, nobs, nev)
		}
		stored[id] = true
	}
	rows.Close()
	lost := 0
	for id := range acked {
		if !stored[id] {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged events are not in the database", lost, len(acked))
	}

	// idsAfter is the ids of the log after from, in order.
	idsAfter := func(from int64) []int64 {
		t.Helper()
		rows, err := db.Query(`SELECT id FROM events WHERE id > $1 ORDER BY id`, from)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	// follows sends one more event through p and waits until r has seen
	// as many events as the log holds after from; it returns them and the
	// log. A client's stream is in id order, so an event repeated (or one
	// not of the log) comes before that last one: nothing is left to come
	// that a comparison would miss.
	extra := burstEvents(n + 6)[n+4:]
	follows := func(name string, r *streamReader, p *Proc, from int64) (seen, want []int64) {
		t.Helper()
		ev := extra[0]
		extra = extra[1:]
		if o := p.NewClient(5*time.Second).Burst(ctx, []Event{ev}, 1)[0]; o.Err != nil || o.Status != http.StatusOK {
			t.Fatalf("%s: the last event: %d %v", name, o.Status, o.Err)
		}
		want = idsAfter(from)
		deadline := time.Now().Add(30 * time.Second)
		for seen = r.snapshot(); len(seen) < len(want); seen = r.snapshot() {
			if time.Now().After(deadline) {
				t.Fatalf("%s saw %d events in 30 s, the log holds %d", name, len(seen), len(want))
			}
			time.Sleep(10 * time.Millisecond)
		}
		return seen, want
	}

	// B's client gets the whole log after it connected: every event once,
	// in order, the acknowledged observations among them.
	seen, logIDs := follows("B's client", stream, b, 0)
	if len(seen) != len(logIDs) {
		t.Fatalf("B's client saw %d events, the log holds %d", len(seen), len(logIDs))
	}
	for i := range seen {
		if seen[i] != logIDs[i] {
			t.Fatalf("B's client: event %d is id %d, the log's is %d", i, seen[i], logIDs[i])
		}
	}
	t.Logf("B's client saw all %d events of the log, in order; %d observations stored for %d acknowledged", len(seen), len(stored), len(acked))

	// A comes back; a client of it resumes from the middle of the log.
	a2 := restart(t, a)
	from := logIDs[len(logIDs)/2]
	resumed := followStream(t, a2, from)
	more := burstEvents(n + 4)[n:]
	for i, ev := range more {
		p := a2
		if i%2 == 1 {
			p = b
		}
		if o := p.NewClient(5*time.Second).Burst(ctx, []Event{ev}, 1)[0]; o.Err != nil || o.Status != http.StatusOK {
			t.Fatalf("after the restart, event %d: %d %v", i, o.Status, o.Err)
		}
	}
	seen, want := follows("restarted A's client", resumed, a2, from)
	if len(seen) != len(want) {
		t.Fatalf("restarted A's client from %d saw %d events, the log holds %d after it", from, len(seen), len(want))
	}
	for i := range seen {
		if seen[i] != want[i] {
			t.Fatalf("restarted A's client: event %d is id %d, the log's is %d", i, seen[i], want[i])
		}
	}
}
