package main

import (
	"bytes"
	"context"
	jsonpkg "encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// BenchmarkIngestConcurrent16 posts PostToolUse events from 16 concurrent
// HTTP clients over loopback TCP with the secret (as a remote client or a
// Claude Code HTTP hook does). An observation counts only once its 200
// arrived, and the worker answers only after the commit: this is durable
// throughput.
func BenchmarkIngestConcurrent16(b *testing.B) { benchmarkIngest(b, false, toolEvent) }

// BenchmarkIngestSocket16 is the same over the worker's unix socket, the
// way every `mneme hook` sends its event.
func BenchmarkIngestSocket16(b *testing.B) { benchmarkIngest(b, true, toolEvent) }

// BenchmarkIngestSocket16Edits is BenchmarkIngestSocket16 with Edit events
// on 16 real files: each observation also has its file's state read (a
// stat, and a hash when the file moved, in the request's goroutine) and
// recorded in file_states.
func BenchmarkIngestSocket16Edits(b *testing.B) {
	dir := b.TempDir()
	file := func(i int) string { return filepath.Join(dir, fmt.Sprintf("f%d.go", i%16)) }
	for c := 0; c < 16; c++ {
		os.WriteFile(file(c), bytes.Repeat([]byte("package main // some code\n"), 200), 0o600)
	}
	benchmarkIngest(b, true, func(session string, i int) []byte {
		return []byte(fmt.Sprintf(`{"session_id":%q,"cwd":%q,"prompt_id":"p1","hook_event_name":"PostToolUse","tool_name":"Edit",`+
			`"tool_input":{"file_path":%q,"old_string":"a","new_string":"b"},"tool_response":{"filePath":%q},"tool_use_id":"toolu_%s_%d","duration_ms":3}`,
			session, dir, file(i), file(i), session, i))
	})
}

// BenchmarkIngestPostgres2Replicas16 is BenchmarkIngestConcurrent16 in
// team mode: two workers on one PostgreSQL database (the test cluster of
// internal/pgtest, on this machine's loopback), the 16 clients split
// between them, each event acknowledged after its commit. Every event
// also reaches both workers' live streams through LISTEN/NOTIFY. Compare
// with BenchmarkIngestConcurrent16 of the same run (SQLite, one worker).
func BenchmarkIngestPostgres2Replicas16(b *testing.B) {
	url := pgtest.URL(b)
	on := func(o *app.Options) { o.DatabaseURL = url }
	benchmarkIngestOn(b, []*testutil.Server{testutil.NewServer(b, on), testutil.NewServer(b, on)}, false, toolEvent)
}

func benchmarkIngest(b *testing.B, socket bool, event func(session string, i int) []byte) {
	benchmarkIngestOn(b, []*testutil.Server{testutil.NewServer(b)}, socket, event)
}

// benchmarkIngestOn sends the events of 16 clients, client c to
// servers[c % len(servers)], over TCP with the secret or, with socket,
// over the (single) server's unix socket.
func benchmarkIngestOn(b *testing.B, servers []*testutil.Server, socket bool, event func(session string, i int) []byte) {
	const clients = 16
	srv := servers[0]
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	urls := make([]string, clients)
	for c := range urls {
		urls[c] = servers[c%len(servers)].URL + "/api/hooks/post-tool-use"
	}
	if socket {
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", srv.Socket)
		}
		for c := range urls {
			urls[c] = testutil.SocketURL + "/api/hooks/post-tool-use"
		}
	}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	stamp := time.Now().UnixNano()
	for c := 0; c < clients; c++ {
		servers[c%len(servers)].Hook(b, "user-prompt-submit", promptEvent(fmt.Sprintf("ingest-%d-%d", stamp, c)))
	}
	bodies := make([][]byte, b.N)
	for i := range bodies {
		bodies[i] = event(fmt.Sprintf("ingest-%d-%d", stamp, i%clients), i)
	}
	var next, acked atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, clients)
	b.ResetTimer()
	start := time.Now()
	cpu0 := testutil.CPUTime()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, urls[i%clients], bytes.NewReader(bodies[i]))
				req.Header.Set("Content-Type", "application/json")
				if !socket {
					req.Header.Set("Authorization", "Bearer "+servers[i%clients%int64(len(servers))].Secret)
				}
				resp, err := hc.Do(req)
				if err != nil {
					errc <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errc <- fmt.Errorf("status %d", resp.StatusCode)
					return
				}
				acked.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := testutil.CPUTime() - cpu0
	b.StopTimer()
	close(errc)
	for err := range errc {
		b.Fatal(err)
	}
	b.ReportMetric(float64(acked.Load())/elapsed.Seconds(), "obs/s")
	// CPU per observation (worker and clients together, this process): on a
	// machine shared with other work, the figure that does not move with
	// the load.
	b.ReportMetric(float64(cpu.Microseconds())/float64(acked.Load()), "cpu-µs/obs")
	// The search index is filled after the burst (models/indexer.go): the
	// rate with that work done too is what a longer run sustains.
	if err := srv.Store.FlushSearchIndex(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(acked.Load())/time.Since(start).Seconds(), "indexed-obs/s")
	c, _ := srv.Store.Counts(context.Background())
	if c.Observations != acked.Load() {
		b.Fatalf("%d acked but %d stored", acked.Load(), c.Observations)
	}
	var ws models.WriterStats
	for _, s := range servers {
		st := s.Store.Writer.Stats()
		ws.Batches += st.Batches
		ws.Ops += st.Ops
		ws.Alone += st.Alone
	}
	if ws.Batches > 0 {
		b.ReportMetric(float64(ws.Ops)/float64(ws.Batches), "ops/commit")
		// The share of operations that paid for a commit of their own.
		b.ReportMetric(100*float64(ws.Alone)/float64(ws.Ops), "alone-%")
	}
	if srv.Store.Postgres() {
		return // the baselines below are SQLite's
	}
	// Same-run baselines on the same disk, same schema (indexes and FTS
	// triggers), no HTTP and no event log: what hand-written batched
	// inserts reach, and what the writer's one-statement batch reaches.
	n := max(b.N, 2000)
	b.ReportMetric(rawInsertRate(b, n, rawShape{perTx: 256}), "base-obs/s")
	b.ReportMetric(rawInsertRate(b, n, rawShape{perTx: 256, json: true}), "base-json-obs/s")
	// The ceiling of this design at 16 closed-loop clients: a client sends
	// its next event only once the last one is committed, so a commit
	// holds at most 16 observations, and each also appends its event to
	// the log (the live stream's and the replicas' source). Hand-written
	// inserts of exactly that, with nothing else, bound what the worker
	// can reach.
	b.ReportMetric(rawInsertRate(b, n, rawShape{perTx: clients, events: true}), "base-16-events-obs/s")
}

// rawShape is how rawInsertRate writes: perTx rows a transaction, one
// INSERT per row or (json) one per transaction with the rows as a JSON
// array, and with events, an event-log row beside each observation.
type rawShape struct {
	perTx  int
	json   bool
	events bool
}

// rawInsertRate inserts n observations straight through database/sql into
// a fresh database in b's temp dir, written as shape says. It returns rows
// per second.
func rawInsertRate(b *testing.B, n int, shape rawShape) float64 {
	b.Helper()
	st, err := models.Open(filepath.Join(b.TempDir(), "raw.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	db := modelstest.SQLDB(b, st)
	if _, err := db.Exec(`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (1, 'raw', 'notes-app', ?)`, time.Now().UTC()); err != nil {
		b.Fatal(err)
	}
	row := func(i int) []any {
		return []any{1, "notes-app", 1, fmt.Sprintf("toolu_raw_%d", i), "Bash", "command",
			fmt.Sprintf("go build ./... && echo built %d", i),
			fmt.Sprintf(`{"command":"go build ./... && echo built %d","description":"build"}`, i),
			fmt.Sprintf("built %d", i), "[]", true, 0.5, 27, "", time.Now().UTC()}
	}
	const cols = `(session_id, project, prompt_number, tool_use_id, tool_name, kind, title, input, output, files, success, importance, duration_ms, excluded_by, created_at)`
	start := time.Now()
	for i := 0; i < n; i += shape.perTx {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		end := min(i+shape.perTx, n)
		if shape.json {
			var arr []map[string]any
			for j := i; j < end; j++ {
				r := row(j)
				arr = append(arr, map[string]any{"s": r[0], "p": r[1], "n": r[2], "u": r[3], "t": r[4], "k": r[5], "h": r[6],
					"i": r[7], "o": r[8], "f": r[9], "ok": r[10], "m": r[11], "d": r[12], "x": r[13], "c": r[14].(time.Time).Format("2006-01-02 15:04:05.999999999-07:00")})
			}
			param, _ := jsonpkg.Marshal(arr)
			_, err = tx.Exec(`INSERT INTO observations `+cols+` SELECT value->>'s', value->>'p', value->>'n', value->>'u', value->>'t', value->>'k', value->>'h',
				value->>'i', value->>'o', value->>'f', value->>'ok', value->>'m', value->>'d', value->>'x', value->>'c' FROM json_each(?) ORDER BY key`, string(param))
		} else {
			for j := i; j < end && err == nil; j++ {
				_, err = tx.Exec(`INSERT INTO observations `+cols+` VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, row(j)...)
				if err == nil && shape.events {
					r := row(j)
					data, _ := jsonpkg.Marshal(map[string]any{"id": j + 1, "session_id": 1, "project": r[1], "tool_name": r[4], "kind": r[5], "title": r[6], "input": r[7], "output": r[8]})
					_, err = tx.Exec(`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES ('observation', ?, 1, ?, ?, ?)`, r[1], j+1, string(data), r[14])
				}
			}
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}
