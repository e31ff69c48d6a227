package hooks_test

import (
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// TestHookNeverTalksTCP: with the worker down and another program
// listening on the worker's TCP port (a squatter, maybe another user), the
// hook sends it nothing, not even a connection: it talks only over the
// data directory's socket, and spools the event.
func TestHookNeverTalksTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	dataDir := t.TempDir()
	c, stderr := newClient(t, ln.Addr().(*net.TCPAddr).Port, dataDir)
	run(t, c, "user-prompt-submit", prompt("for the owner only"))
	run(t, c, "post-tool-use", tool("t1"))
	if n := conns.Load(); n != 0 {
		t.Fatalf("the squatter on the TCP port got %d connections", n)
	}
	if !(hookwire.Spool{Dir: filepath.Join(dataDir, "spool")}).Pending() {
		t.Fatalf("the events were not spooled in the owner's data directory: %s", stderr)
	}
}
