package testutil

import (
	"encoding/json"
	"net"
	"strconv"
	"testing"
	"time"
)

// NewServerAt starts a worker on a chosen loopback port with a chosen data
// directory: a restart of a worker stopped with Shutdown. It retries the
// listen for a few seconds, while the old socket closes.
func NewServerAt(t testing.TB, dataDir string, port int, opts ...Option) *Server {
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
	return serveOn(t, ln, dataDir, opts)
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
