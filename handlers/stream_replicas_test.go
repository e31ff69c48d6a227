package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// onDatabase makes a test worker store in the PostgreSQL database at url.
func onDatabase(url string) testutil.Option {
	return func(o *app.Options) { o.DatabaseURL = url }
}

// postHook sends a hook payload to srv, for goroutines that cannot fail
// the test themselves.
func postHook(srv *testutil.Server, slug string, payload any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/hooks/"+slug, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+srv.Secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST /api/hooks/%s on %s: %d %s", slug, srv.URL, resp.StatusCode, body)
	}
	return nil
}

// logEvents is the whole event log of the database behind srv.
func logEvents(t *testing.T, srv *testutil.Server) []models.Event {
	t.Helper()
	evs, err := srv.Store.EventsAfter(context.Background(), 0, "", 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// sameAsLog fails unless got is the log from its position from on: every
// event once, in id order.
func sameAsLog(t *testing.T, name string, got []sseEvent, log []models.Event) {
	t.Helper()
	checkOrder(t, got)
	if len(got) != len(log) {
		t.Fatalf("%s: %d events, the log has %d", name, len(got), len(log))
	}
	for i, ev := range got {
		if ev.ID != log[i].ID || ev.Event != log[i].Kind {
			t.Fatalf("%s: event %d is %d %s, the log's is %d %s", name, i, ev.ID, ev.Event, log[i].ID, log[i].Kind)
		}
	}
}

// TestStreamReplicas: two workers on one PostgreSQL database, hooks sent
// alternately to each from four concurrent clients, one SSE client on
// each worker: both clients see every event of the log once, in id order;
// then a client of B replays, with Last-Event-ID, what was written
// through A alone.
func TestStreamReplicas(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	a := testutil.NewServer(t, testutil.FastStream, onDatabase(url))
	b := testutil.NewServer(t, testutil.FastStream, onDatabase(url))
	ra, rb := openRaw(t, a, "/stream", nil), openRaw(t, b, "/stream", nil)
	waitClients(t, a, 1)
	waitClients(t, b, 1)

	const clients, hooksEach = 4, 30
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			session, project := fmt.Sprintf("replicas-%d", c), fmt.Sprintf("proj-%d", c%2)
			for i := range hooksEach {
				srv := a
				if (c+i)%2 == 1 {
					srv = b
				}
				var err error
				if i%3 == 0 {
					err = postHook(srv, "user-prompt-submit", apiHook("UserPromptSubmit", session, project, map[string]any{
						"prompt": fmt.Sprintf("prompt %d of %d", i, c), "prompt_id": fmt.Sprintf("p-%d-%d", c, i)}))
				} else {
					err = postHook(srv, "post-tool-use", apiHook("PostToolUse", session, project, map[string]any{
						"prompt_id": fmt.Sprintf("p-%d-%d", c, i-i%3), "tool_name": "Bash", "tool_use_id": fmt.Sprintf("t-%d-%d", c, i),
						"tool_input": map[string]any{"command": fmt.Sprintf("echo %d", i)}, "tool_response": map[string]any{"stdout": "ok", "stderr": ""}}))
				}
				if err != nil {
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
	log := logEvents(t, a)
	if len(log) < clients*hooksEach {
		t.Fatalf("the log has %d events for %d hooks", len(log), clients*hooksEach)
	}
	t.Logf("%d hooks, %d events; listeners A %+v, B %+v", clients*hooksEach, len(log), a.Store.ListenerStats(), b.Store.ListenerStats())
	sameAsLog(t, "client of A", ra.next(t, len(log)), log)
	sameAsLog(t, "client of B", rb.next(t, len(log)), log)

	// Written through A only; a client of B replays it from the log.
	for i := range 3 {
		prompt(t, a, "replicas-0", "proj-0", fmt.Sprintf("through A %d", i))
	}
	from := log[len(log)/2].ID
	replay := openRaw(t, b, "/stream", http.Header{"Last-Event-ID": {strconv.FormatInt(from, 10)}})
	log = logEvents(t, a)
	var rest []models.Event
	for _, ev := range log {
		if ev.ID > from {
			rest = append(rest, ev)
		}
	}
	sameAsLog(t, "replay on B", replay.next(t, len(rest)), rest)
	// Nothing more, nothing twice: the live clients' next events are
	// these three (a repeat would come first, the streams being in id
	// order), and the replay's next is one written after them.
	sameAsLog(t, "client of B, live", rb.next(t, 3), log[len(log)-3:])
	sameAsLog(t, "client of A, live", ra.next(t, 3), log[len(log)-3:])
	prompt(t, b, "replicas-0", "proj-0", "through B, last")
	log = logEvents(t, a)
	sameAsLog(t, "replay on B, live", replay.next(t, 1), log[len(log)-1:])
}
