package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	r3sse "github.com/r3labs/sse/v2"

	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
	"github.com/mneme-dev/mneme/web/sse"
)

// streamWriteTimeout is testutil.FastStream's write timeout.
const streamWriteTimeout = 2 * time.Second

// sseEvent is one event as read off the wire.
type sseEvent struct {
	ID    int64
	Event string
	Data  string
}

// rawSSE reads /stream with a plain HTTP client and a line parser.
type rawSSE struct {
	events   chan sseEvent
	comments chan string
	retry    chan string
	cancel   context.CancelFunc
	tr       *http.Transport
	done     chan struct{}
}

// openRaw connects to url (…/stream?…) with optional headers; it fails the
// test unless the answer is 200 text/event-stream.
func openRaw(t *testing.T, srv *testutil.Server, path string, header http.Header) *rawSSE {
	t.Helper()
	url := srv.URL + path
	ctx, cancel := context.WithCancel(context.Background())
	tr := &http.Transport{DisableKeepAlives: true}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+srv.Secret)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" ||
		resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("X-Accel-Buffering") != "no" {
		cancel()
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, resp.Header)
	}
	r := &rawSSE{events: make(chan sseEvent, 10000), comments: make(chan string, 10000), retry: make(chan string, 10),
		cancel: cancel, tr: tr, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" || ev.Data != "" {
					r.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				select {
				case r.comments <- strings.TrimSpace(line[1:]):
				default:
				}
			case strings.HasPrefix(line, "id: "):
				ev.ID, _ = strconv.ParseInt(line[4:], 10, 64)
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.Data += line[6:]
			case strings.HasPrefix(line, "retry: "):
				r.retry <- line[7:]
			}
		}
	}()
	t.Cleanup(r.Close)
	return r
}

// Close disconnects.
func (r *rawSSE) Close() {
	r.cancel()
	<-r.done
	r.tr.CloseIdleConnections()
}

// next waits for n events.
func (r *rawSSE) next(t *testing.T, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	timeout := time.After(20 * time.Second)
	for len(out) < n {
		select {
		case ev := <-r.events:
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("got %d events of %d: %+v", len(out), n, out)
		}
	}
	return out
}

// waitClients waits until the broker has n subscribers.
func waitClients(t *testing.T, srv *testutil.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for srv.Broker.Clients() != n {
		if time.Now().After(deadline) {
			t.Fatalf("broker has %d clients, want %d", srv.Broker.Clients(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// prompt ingests a prompt in project through the real hook endpoint.
func prompt(t testing.TB, srv *testutil.Server, session, project, text string) {
	t.Helper()
	srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", session, project, map[string]any{
		"prompt": text, "prompt_id": fmt.Sprintf("%s-%d", session, time.Now().UnixNano())}))
}

// checkOrder asserts ids strictly increase.
func checkOrder(t *testing.T, evs []sseEvent) {
	t.Helper()
	for i := 1; i < len(evs); i++ {
		if evs[i].ID <= evs[i-1].ID {
			t.Fatalf("ids out of order at %d: %+v", i, evs)
		}
	}
}

func kinds(evs []sseEvent) string {
	var k []string
	for _, e := range evs {
		k = append(k, e.Event)
	}
	return strings.Join(k, ",")
}

func TestStreamRawEventsInOrder(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	r := openRaw(t, srv, "/stream", nil)
	waitClients(t, srv, 1)
	if got := <-r.retry; got != "2000" {
		t.Errorf("retry = %q", got)
	}
	srv.Hook(t, "session-start", apiHook("SessionStart", "s1", "alpha", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "s1", "alpha", map[string]any{"prompt": "list files", "prompt_id": "p1"}))
	srv.Hook(t, "post-tool-use", apiHook("PostToolUse", "s1", "alpha", map[string]any{
		"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": "t1",
		"tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "a.go", "stderr": ""}}))
	srv.Hook(t, "post-tool-use-failure", apiHook("PostToolUseFailure", "s1", "alpha", map[string]any{
		"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": "t2",
		"tool_input": map[string]any{"command": "ls /nope"}, "error": "Exit code 2", "is_interrupt": false}))
	evs := r.next(t, 4)
	if got := kinds(evs); got != "session_started,prompt,observation,observation" {
		t.Fatalf("events %s", got)
	}
	checkOrder(t, evs)
	var obs struct {
		ID        int64  `json:"id"`
		SessionID int64  `json:"sessionId"`
		Project   string `json:"project"`
		ToolName  string `json:"toolName"`
		Success   bool   `json:"success"`
		Title     string `json:"title"`
	}
	if err := json.Unmarshal([]byte(evs[3].Data), &obs); err != nil || obs.Project != "alpha" || obs.Success || obs.ToolName != "Bash" || obs.ID == 0 {
		t.Errorf("failure event data %s (%v)", evs[3].Data, err)
	}
	// Stop queues a turn summary (published by the summary queue, after its
	// commit, like every event); SessionEnd completes the session.
	srv.Hook(t, "stop", apiHook("Stop", "s1", "alpha", map[string]any{"prompt_id": "p1", "last_assistant_message": "Listed the files."}))
	srv.Hook(t, "session-end", apiHook("SessionEnd", "s1", "alpha", map[string]any{"reason": "exit"}))
	more := r.next(t, 2)
	checkOrder(t, append(evs, more...))
	if !sameSet([]string{more[0].Event, more[1].Event}, []string{"summary", "session_completed"}) {
		t.Errorf("after stop and end: %s", kinds(more))
	}
	for _, ev := range more {
		var d struct {
			SessionID int64  `json:"sessionId"`
			Project   string `json:"project"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &d); err != nil || d.SessionID != obs.SessionID || d.Project != "alpha" {
			t.Errorf("%s data %s (%v)", ev.Event, ev.Data, err)
		}
	}
	// Keepalive comments flow while idle.
	select {
	case c := <-r.comments:
		if c != "keepalive" {
			t.Errorf("comment %q", c)
		}
	case <-time.After(60 * time.Second):
		t.Error("no keepalive comment within 60s")
	}
}

// r3Subscribe follows url with r3labs' client until ctx ends, resubscribing
// after the server closes the stream (the client returns then without
// retrying), and sends every event with data on out; keepalive comments
// reach the handler as empty events once an id has been seen, and are
// counted in empties.
func r3Subscribe(ctx context.Context, srv *testutil.Server, path string, out chan<- *r3sse.Event, empties *int64, mu *sync.Mutex) *r3sse.Client {
	c := r3sse.NewClient(srv.URL + path)
	c.Headers["Authorization"] = "Bearer " + srv.Secret
	go func() {
		for ctx.Err() == nil {
			c.SubscribeRawWithContext(ctx, func(msg *r3sse.Event) {
				if len(msg.Data) == 0 {
					mu.Lock()
					*empties++
					mu.Unlock()
					return
				}
				select {
				case out <- msg:
				case <-ctx.Done():
				}
			})
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return c
}

func r3next(t *testing.T, ch <-chan *r3sse.Event, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	timeout := time.After(20 * time.Second)
	for len(out) < n {
		select {
		case m := <-ch:
			id, _ := strconv.ParseInt(string(m.ID), 10, 64)
			out = append(out, sseEvent{ID: id, Event: string(m.Event), Data: string(m.Data)})
		case <-timeout:
			t.Fatalf("r3labs client got %d events of %d: %+v", len(out), n, out)
		}
	}
	return out
}

func TestStreamR3labsClient(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan *r3sse.Event, 100)
	var mu sync.Mutex
	var empties int64
	r3Subscribe(ctx, srv, "/stream", ch, &empties, &mu)
	waitClients(t, srv, 1)
	for i := range 5 {
		prompt(t, srv, "r3", "alpha", fmt.Sprintf("prompt number %d", i))
	}
	evs := r3next(t, ch, 6)
	checkOrder(t, evs)
	if evs[0].Event != "session_started" {
		t.Errorf("first event %+v", evs[0])
	}
	for i, ev := range evs[1:] {
		var d struct{ Text string }
		if ev.Event != "prompt" || json.Unmarshal([]byte(ev.Data), &d) != nil || d.Text != fmt.Sprintf("prompt number %d", i) {
			t.Errorf("event %d = %+v", i, ev)
		}
	}
	// The quirk mneme tail must skip: after an id, keepalive comments come
	// through r3labs as events with empty data.
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		n := empties
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no empty keepalive event reached the r3labs handler")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStreamLastEventIDReplay(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	for i := range 5 {
		prompt(t, srv, "replay", "alpha", fmt.Sprintf("p%d", i))
	}
	all := openRaw(t, srv, "/stream?lastEventId=1", nil) // everything after the session's start
	evs := all.next(t, 5)
	checkOrder(t, evs)
	if kinds(evs) != "prompt,prompt,prompt,prompt,prompt" {
		t.Fatalf("replay %s", kinds(evs))
	}
	// From the second prompt on, by header: the three after it, then live.
	r := openRaw(t, srv, "/stream", http.Header{"Last-Event-ID": {strconv.FormatInt(evs[1].ID, 10)}})
	got := r.next(t, 3)
	if got[0].ID != evs[2].ID || got[2].ID != evs[4].ID {
		t.Fatalf("replay from %d: %+v", evs[1].ID, got)
	}
	waitClients(t, srv, 2)
	prompt(t, srv, "replay", "alpha", "live one")
	live := r.next(t, 1)
	if live[0].ID != evs[4].ID+1 || !strings.Contains(live[0].Data, "live one") {
		t.Errorf("live after replay: %+v", live)
	}

	// An id from the future (a deleted database) does not mute the stream:
	// the next event is its first.
	future := openRaw(t, srv, "/stream", http.Header{"Last-Event-ID": {"999999"}})
	waitClients(t, srv, 3)
	prompt(t, srv, "replay", "alpha", "after the future")
	if ev := future.next(t, 1)[0]; !strings.Contains(ev.Data, "after the future") {
		t.Errorf("future client got %+v", ev)
	}
	// Nothing twice: the replaying client's next event after the live one
	// is this one too (the stream is in id order, so a repeat comes first).
	if ev := r.next(t, 1)[0]; ev.ID <= live[0].ID || !strings.Contains(ev.Data, "after the future") {
		t.Errorf("after the live one, the replaying client got %+v", ev)
	}
}

func TestStreamReplayAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.NewServerIn(t, dir, testutil.FastStream)
	port := srv.Port
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan *r3sse.Event, 100)
	var mu sync.Mutex
	var empties int64
	r3Subscribe(ctx, srv, "/stream", ch, &empties, &mu)
	waitClients(t, srv, 1)
	prompt(t, srv, "restart", "alpha", "before restart 1")
	prompt(t, srv, "restart", "alpha", "before restart 2")
	before := r3next(t, ch, 3)[1:] // after session_started

	if err := srv.Shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	srv2 := testutil.NewServerAt(t, dir, port, testutil.FastStream)
	// Written before the client is back: it must get them by replay.
	prompt(t, srv2, "restart", "alpha", "while away")
	after := r3next(t, ch, 1)
	prompt(t, srv2, "restart", "alpha", "live again")
	after = append(after, r3next(t, ch, 1)...)
	all := append(before, after...)
	checkOrder(t, all)
	var texts []string
	for _, ev := range all {
		var d struct{ Text string }
		json.Unmarshal([]byte(ev.Data), &d)
		texts = append(texts, d.Text)
	}
	if got := strings.Join(texts, "|"); got != "before restart 1|before restart 2|while away|live again" {
		t.Errorf("across restart: %s", got)
	}
	// A raw client with the id of the first prompt replays the rest from
	// the new worker's database.
	r := openRaw(t, srv2, "/stream", http.Header{"Last-Event-ID": {strconv.FormatInt(before[0].ID, 10)}})
	if got := r.next(t, 3); got[0].ID != before[1].ID || got[2].ID != after[1].ID || kinds(got) != "prompt,prompt,prompt" {
		t.Errorf("raw replay after restart: %+v", got)
	}
}

func TestStreamProjectFilter(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	alpha := openRaw(t, srv, "/stream?project=alpha", nil)
	all := openRaw(t, srv, "/stream", nil)
	waitClients(t, srv, 2)
	for i := range 4 {
		prompt(t, srv, "fa", "alpha", fmt.Sprintf("alpha %d", i))
		prompt(t, srv, "fb", "beta", fmt.Sprintf("beta %d", i))
	}
	// Two session_started and eight prompts in all; alpha's five.
	everything := all.next(t, 10)
	checkOrder(t, everything)
	got := alpha.next(t, 5)
	checkOrder(t, got)
	for _, ev := range got {
		if !strings.Contains(ev.Data, `"project":"alpha"`) {
			t.Errorf("alpha stream got %+v", ev)
		}
	}
	// Nor later: an event of alpha's written now is the next it gets (the
	// stream is in id order, so a stray beta event would come first).
	prompt(t, srv, "fa", "alpha", "alpha last")
	if ev := alpha.next(t, 1)[0]; !strings.Contains(ev.Data, "alpha last") {
		t.Errorf("alpha stream got %+v, want its last prompt", ev)
	}
	// A replay is filtered the same way.
	r := openRaw(t, srv, "/stream?project=beta", http.Header{"Last-Event-ID": {"1"}})
	replayed := r.next(t, 5)
	checkOrder(t, replayed)
	for _, ev := range replayed {
		if !strings.Contains(ev.Data, `"project":"beta"`) {
			t.Errorf("beta replay got %+v", ev)
		}
	}
}

// TestStreamCommitOrder: events committed in one transaction are published
// by the writer after the commit, in id order, each once.
func TestStreamCommitOrder(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	prompt(t, srv, "ooo", "alpha", "first")
	r := openRaw(t, srv, "/stream", nil)
	waitClients(t, srv, 1)
	var evs []*models.Event
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		evs = evs[:0]
		for _, n := range []string{"a", "b", "c"} {
			ev, err := tx.AppendEvent(models.EventSettingsChanged, "", 0, 0, map[string]string{"n": n})
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := r.next(t, 3)
	for i, ev := range got {
		if ev.ID != evs[i].ID {
			t.Fatalf("got %+v, want ids %d,%d,%d", got, evs[0].ID, evs[1].ID, evs[2].ID)
		}
	}
	// Each once: the next event is one written after them.
	prompt(t, srv, "ooo", "alpha", "after the three")
	if ev := r.next(t, 1)[0]; !strings.Contains(ev.Data, "after the three") {
		t.Errorf("after the transaction's three events: %+v", ev)
	}
}

// TestStreamBrokerOverflow: when the broker's queue overflows, subscribers
// are disconnected instead of silently missing an event; a client that
// reconnects with Last-Event-ID gets everything from the log.
func TestStreamBrokerOverflow(t *testing.T) {
	t.Parallel()
	b := sse.NewBroker()
	defer b.Close()
	sub := b.Subscribe("")
	for i := 1; i <= 20000; i++ { // far more than the queue holds
		b.Publish(models.Event{ID: int64(i), Kind: models.EventPrompt})
	}
	b.Publish(models.Event{ID: 20001, Kind: models.EventPrompt})
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-sub.C:
			if !ok {
				return // disconnected: the client will replay from the log
			}
		case <-deadline:
			t.Fatal("an overflowing broker kept the subscriber connected, so it silently missed events")
		}
	}
}

// settledGoroutines waits up to 20 s for the goroutine count to fall to
// limit and returns it. fasthttp keeps idle workers of its pool for a
// while before reaping them (testutil.IdleWorkerReap, twice over at most),
// so a fair count waits that long.
func settledGoroutines(limit int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(20 * time.Second); n > limit && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// streamGoroutines counts goroutines serving a stream: fasthttp's
// connection goroutines waiting in, or writing what came from, the
// stream's Read.
func streamGoroutines() int {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "fasthttp.writeBodyChunked") || strings.Contains(g, "handlers.(*stream).Read") {
			n++
		}
	}
	return n
}

// idleWorkers counts fasthttp's idle connection workers: goroutines of a
// worker pool waiting for a connection, not serving one.
func idleWorkers() int {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "fasthttp.(*workerPool).workerFunc(") && !strings.Contains(g, "fasthttp.(*Server).serveConn(") {
			n++
		}
	}
	return n
}

func TestStreamClientsCleanedUp(t *testing.T) {
	srv := testutil.NewServer(t, testutil.FastStream)
	prompt(t, srv, "gc", "alpha", "warm up")
	// Let fasthttp reap the warm-up's idle workers (its pool checks every
	// IdleWorkerReap for workers idle that long) before counting.
	for deadline := time.Now().Add(30 * time.Second); idleWorkers() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("fasthttp still holds %d idle workers 30 s after the warm-up (reaped after %s)", idleWorkers(), 2*testutil.IdleWorkerReap)
		}
	}
	before := runtime.NumGoroutine()
	clients := make([]*rawSSE, 50)
	for i := range clients {
		clients[i] = openRaw(t, srv, "/stream", nil)
	}
	waitClients(t, srv, 50)
	prompt(t, srv, "gc", "alpha", "to all")
	for _, c := range clients {
		c.next(t, 1)
	}
	if n := streamGoroutines(); n != 50 {
		t.Fatalf("%d stream goroutines for 50 clients", n)
	}
	for _, c := range clients {
		c.Close()
	}
	waitClients(t, srv, 0)
	for deadline := time.Now().Add(60 * time.Second); streamGoroutines() > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d stream goroutines left after 50 clients disconnected", streamGoroutines())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if after := settledGoroutines(before + 2); after > before+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after 50 clients left\n%s", before, after, buf[:runtime.Stack(buf, true)])
	} else {
		t.Logf("goroutines: %d before 50 clients, %d after they left", before, after)
	}
}

// TestStreamSlowClient: a client that never reads (tiny receive buffer)
// does not hold up the others; it is dropped, and its goroutine ends.
func TestStreamSlowClient(t *testing.T) {
	t.Parallel()
	// It writes quietly and publishes by hand; on PostgreSQL the listener
	// publishes every logged event (models/pgnotify.go), so nothing is quiet.
	pgtest.SkipOnPostgres(t, "publishes by hand what it wrote quietly")
	srv := testutil.NewServer(t, testutil.FastStream)
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { setRcvBuf(fd, 2048) })
	}}
	slow, err := d.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "GET /stream HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n", strings.TrimPrefix(srv.URL, "http://"), srv.Secret)
	fast := []*rawSSE{openRaw(t, srv, "/stream", nil), openRaw(t, srv, "/stream", nil)}
	waitClients(t, srv, 3)

	// 3,000 events of 4 KB (12 MB, more than the kernel buffers of the
	// slow connection can absorb), committed to the log in one transaction
	// outside the writer (which would publish them all at once) and then
	// published by hand in paced bursts.
	const n = 3000
	blob := strings.Repeat("x", 4000)
	var evs []models.Event
	modelstest.WriteQuietly(t, srv.Store, func(tx *models.Tx) error {
		evs = evs[:0]
		for i := range n {
			ev, err := tx.AppendEvent(models.EventSettingsChanged, "", 0, 0, map[string]any{"i": i, "blob": blob})
			if err != nil {
				return err
			}
			evs = append(evs, *ev)
		}
		return nil
	})
	// Published in bursts of 100 (within a client's 256-event buffer), each
	// after the fast clients got the previous one: the slow client's
	// stream blocks once its socket is full, and its buffer overflows.
	start := time.Now()
	got := make([][]sseEvent, len(fast))
	for b := 0; b < n; b += 100 {
		for _, ev := range evs[b : b+100] {
			srv.Broker.Publish(ev)
		}
		for i, f := range fast {
			got[i] = append(got[i], f.next(t, 100)...)
		}
	}
	for _, g := range got {
		checkOrder(t, g)
		if g[0].ID != evs[0].ID || g[n-1].ID != evs[n-1].ID {
			t.Errorf("fast client got ids %d..%d, want %d..%d", g[0].ID, g[n-1].ID, evs[0].ID, evs[n-1].ID)
		}
	}
	t.Logf("%d events of 4 KB reached both fast clients in %s", n, time.Since(start).Round(time.Millisecond))
	// The slow client is gone: dropped by the broker once its buffer
	// filled, or cut by the write timeout; either way the count falls.
	deadline := time.Now().Add(streamWriteTimeout + 10*time.Second)
	for srv.Broker.Clients() != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("slow client still subscribed: %d clients", srv.Broker.Clients())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("slow client dropped by the broker: %v", srv.Broker.DroppedClients() > 0)
	// The fast ones still follow live events.
	prompt(t, srv, "after", "alpha", "still live")
	for _, f := range fast {
		if ev := f.next(t, 2); !strings.Contains(ev[1].Data, "still live") {
			t.Errorf("after the slow client: %+v", ev)
		}
	}
}

// TestStreamLongReplay: a replay of more than one log batch, with events
// larger than the connection's 4 KB writes, arrives whole and in order,
// and live events follow it.
func TestStreamLongReplay(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	const n = 1200
	blob := strings.Repeat("y", 3000)
	var ids []int64
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		ids = ids[:0]
		for i := range n {
			ev, err := tx.AppendEvent(models.EventSettingsChanged, "", 0, 0, map[string]any{"i": i, "blob": blob})
			if err != nil {
				return err
			}
			ids = append(ids, ev.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// On PostgreSQL the events reach the broker through the listener just
	// after the ack: wait for them, so the client replays all 1,200 rather
	// than getting most of them live into its buffer (see pgnotify.go).
	for deadline := time.Now().Add(30 * time.Second); srv.Store.Postgres() && srv.Store.ListenerStats().LastID < ids[n-1]; {
		if time.Now().After(deadline) {
			t.Fatalf("the listener published up to %d, want %d", srv.Store.ListenerStats().LastID, ids[n-1])
		}
		time.Sleep(5 * time.Millisecond)
	}
	r := openRaw(t, srv, "/stream", http.Header{"Last-Event-ID": {strconv.FormatInt(ids[0], 10)}})
	got := r.next(t, n-1)
	for k, ev := range got {
		var d struct {
			I    int
			Blob string
		}
		if ev.ID != ids[k+1] || json.Unmarshal([]byte(ev.Data), &d) != nil || d.I != k+1 || d.Blob != blob {
			t.Fatalf("replayed event %d: id %d (want %d), data %.80q", k, ev.ID, ids[k+1], ev.Data)
		}
	}
	waitClients(t, srv, 1)
	prompt(t, srv, "long", "alpha", "after the replay")
	if ev := r.next(t, 2)[1]; ev.ID <= ids[n-1] || !strings.Contains(ev.Data, "after the replay") {
		t.Errorf("live after replay: %+v", ev)
	}
}

// TestStreamHead: HEAD /stream answers the headers and leaves no
// subscriber behind.
func TestStreamHead(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	resp, err := srv.Client().Head(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("HEAD /stream: %d %v", resp.StatusCode, resp.Header)
	}
	waitClients(t, srv, 0)
}
