package testutil

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/worker"
)

// NewServerAt starts a worker on a chosen loopback port with a chosen data
// directory: a restart of a worker stopped with Shutdown. It retries the
// listen for a few seconds, while the old socket closes.
func NewServerAt(t testing.TB, dataDir string, port int) *Server {
	t.Helper()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; {
		ln, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	w, err := worker.New(context.Background(), worker.Options{
		DataDir: dataDir, Port: port, Version: "test",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	go w.App.Listener(ln)
	s := &Server{Worker: w, URL: "http://127.0.0.1:" + strconv.Itoa(port), Port: port, DataDir: dataDir}
	t.Cleanup(func() { s.Shutdown(5 * time.Second) })
	return s
}

// SeedFixture ingests the fixture session (session-basic.hooks.jsonl)
// through the real hook endpoint, in order.
func (s *Server) SeedFixture(t testing.TB) {
	t.Helper()
	for _, raw := range FixtureEvents(t) {
		var head struct {
			Event string `json:"hook_event_name"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			t.Fatal(err)
		}
		s.Hook(t, head.Event, []byte(raw))
	}
}
