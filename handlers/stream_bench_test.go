package handlers_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	r3sse "github.com/r3labs/sse/v2"

	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// BenchmarkStreamLatency measures ingest → SSE receive: from the start of
// POST /api/hooks/post-tool-use (the real ingest path: decode, privacy
// pipeline, group commit, event log, publish) to the moment each of N
// subscribers, real SSE clients on their own loopback TCP connections, has
// read the whole observation event (its blank line). One ingest at a time;
// every subscriber's latency of every event counts in the percentiles.
//
// The same run reports base-p50-ms and base-p99-ms: the round trip of the
// very same ingest POSTs, from their start until the client has read the
// 200 ack. It is the floor the stream is measured against (a subscriber
// cannot be told sooner than the commit, which comes just before the ack)
// and shows how much of the latency is ingest, not streaming, on a noisy
// machine.
//
// With more than one subscriber, fanout-p50-ms and fanout-p99-ms are the
// fan-out alone: per event, from the first subscriber to have it to the
// last. cpu-ms/op is the process's CPU time per ingest (server and
// subscribers), the work behind the latency, which a busy machine changes
// far less than the latency itself.
//
// The subscribers are lean on purpose, so that 100 of them parsing in this
// process on 2 cores are not the bottleneck: a raw connection, the response
// read with http.ReadResponse (which undoes the chunked encoding), lines
// read in place with ReadSlice, and a timestamp stored in a slice (no
// channel send per event; the last subscriber to receive an event wakes the
// benchmark). Still, they take about as much CPU as the server's writes
// (each event costs each of them a netpoll wakeup and two reads, the
// second finding nothing). A single goroutine reading all 100 raw sockets
// through epoll, the way a browser's network thread does, was tried: the
// figures were the same within the noise, so the plainer reader stayed.
func BenchmarkStreamLatency(b *testing.B) {
	// Production keepalives (testutil.NewServer's defaults): FastStream's
	// 100 ms ones would add ten flushes a second per subscriber to what is
	// measured.
	for _, subs := range []int{1, 100} {
		b.Run(fmt.Sprintf("subs=%d", subs), func(b *testing.B) { benchStream(b, subs, false) })
	}
	// A check on the lean reader: one subscriber through r3labs' client
	// (the one mneme tail uses), which hands each event from its reading
	// goroutine to the handler's.
	b.Run("subs=1-r3labs", func(b *testing.B) { benchStream(b, 1, true) })
}

func benchStream(b *testing.B, subs int, r3 bool) {
	srv := testutil.NewServer(b)
	benchStreamOn(b, subs, r3, srv, srv)
}

// BenchmarkStreamLatencyPostgres is BenchmarkStreamLatency's subs=1 on
// PostgreSQL (team mode), where events reach the broker through
// LISTEN/NOTIFY and a read of the log (models/pgnotify.go) rather than
// from the writer: "local" subscribes to the worker that ingests,
// "replica" to a second worker on the same database.
func BenchmarkStreamLatencyPostgres(b *testing.B) {
	for _, replica := range []bool{false, true} {
		name := map[bool]string{false: "local", true: "replica"}[replica]
		b.Run(name, func(b *testing.B) {
			url := pgtest.URL(b)
			srv := testutil.NewServer(b, onDatabase(url))
			out := srv
			if replica {
				out = testutil.NewServer(b, onDatabase(url))
			}
			benchStreamOn(b, 1, false, srv, out)
		})
	}
}

// benchStreamOn measures ingests sent to srv as seen by subscribers of
// out (srv itself, or another replica on its database).
func benchStreamOn(b *testing.B, subs int, r3 bool, srv, out *testutil.Server) {
	payload := func(i int) []byte {
		j, err := json.Marshal(apiHook("PostToolUse", "bench", "bench", map[string]any{
			"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_bench_%d", i),
			"tool_input":    map[string]any{"command": "go test ./..."},
			"tool_response": map[string]any{"stdout": "ok  github.com/mneme-dev/mneme/models 0.4s", "stderr": ""},
		}))
		if err != nil {
			b.Fatal(err)
		}
		return j
	}
	srv.Hook(b, "post-tool-use", payload(-1)) // creates the session before anyone listens

	// Event i's receive time at subscriber s is at[s][i]; pending counts
	// the subscribers still to receive the current event.
	n := b.N
	at := make([][]time.Time, subs)
	var pending atomic.Int64
	wake := make(chan struct{}, 1)
	for s := range subs {
		at[s] = make([]time.Time, 0, n)
		got := func(now time.Time) {
			if len(at[s]) < n {
				at[s] = append(at[s], now)
			}
			if pending.Add(-1) == 0 {
				wake <- struct{}{}
			}
		}
		if r3 {
			r3Bench(b, out, got)
		} else {
			go benchRead(dialStream(b, out), got)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); out.Broker.Clients() != subs; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d subscribers", out.Broker.Clients(), subs)
		}
	}

	t0s := make([]time.Time, n)
	acks := make([]time.Duration, n)
	cpu0 := testutil.CPUTime()
	b.ResetTimer()
	for i := range n {
		body := payload(i)
		pending.Store(int64(subs))
		t0 := time.Now()
		srv.Hook(b, "post-tool-use", body)
		acks[i] = time.Since(t0)
		t0s[i] = t0
		select {
		case <-wake:
		case <-time.After(10 * time.Second):
			b.Fatalf("event %d: %d of %d subscribers got nothing within 10s", i, pending.Load(), subs)
		}
	}
	b.StopTimer()
	cpu := testutil.CPUTime() - cpu0

	lat := make([]time.Duration, 0, n*subs)
	first, last := make([]time.Time, n), make([]time.Time, n)
	for s := range subs {
		for i, t := range at[s] {
			lat = append(lat, t.Sub(t0s[i]))
			if first[i].IsZero() || t.Before(first[i]) {
				first[i] = t
			}
			if t.After(last[i]) {
				last[i] = t
			}
		}
	}
	ms := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[int(float64(len(d)-1)*p)].Microseconds()) / 1000
	}
	b.ReportMetric(ms(lat, 0.50), "p50-ms")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
	b.ReportMetric(ms(lat, 1), "max-ms")
	b.ReportMetric(ms(acks, 0.50), "base-p50-ms")
	b.ReportMetric(ms(acks, 0.99), "base-p99-ms")
	if subs > 1 {
		spread := make([]time.Duration, n)
		for i := range n {
			spread[i] = last[i].Sub(first[i])
		}
		b.ReportMetric(ms(spread, 0.50), "fanout-p50-ms")
		b.ReportMetric(ms(spread, 0.99), "fanout-p99-ms")
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "cpu-ms/op")
}

// dialStream opens GET /stream on a raw loopback connection and returns
// once the response head was read; the connection closes with the test.
func dialStream(b *testing.B, srv *testutil.Server) *bufio.Reader {
	b.Helper()
	host := strings.TrimPrefix(srv.URL, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET /stream HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n", host, srv.Secret)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b.Fatalf("GET /stream: %d %v", resp.StatusCode, resp.Header)
	}
	return bufio.NewReaderSize(resp.Body, 64<<10)
}

// benchRead reads an SSE stream until it ends and calls got with the time
// each observation event was complete.
func benchRead(r *bufio.Reader, got func(time.Time)) {
	obs := false
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		switch {
		case len(line) == 1: // the blank line that ends an event
			if obs {
				got(time.Now())
			}
			obs = false
		case bytes.HasPrefix(line, []byte("event: observation\n")):
			obs = true
		}
	}
}

// r3Bench follows the stream with r3labs' client until the benchmark ends
// and calls got when an observation event has arrived.
func r3Bench(b *testing.B, srv *testutil.Server, got func(time.Time)) {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	c := r3sse.NewClient(srv.URL + "/stream")
	c.Headers["Authorization"] = "Bearer " + srv.Secret
	go c.SubscribeRawWithContext(ctx, func(msg *r3sse.Event) {
		if string(msg.Event) == "observation" {
			got(time.Now())
		}
	})
}
