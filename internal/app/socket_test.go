package app_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/app"
)

// TestListenSocketStale: a socket file left by a worker that died is
// replaced; one a worker still answers on is not; a file that is not a
// socket is never removed. The socket is 0600.
func TestListenSocketStale(t *testing.T) {
	dir := t.TempDir()
	path := hookwire.SocketPath(dir)
	old, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	old.(*net.UnixListener).SetUnlinkOnClose(false)
	old.Close() // a worker that died: the file stays, nothing answers
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("no stale socket to test with: %v", err)
	}
	ln, got, err := app.ListenSocket(dir)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	defer ln.Close()
	if got != path {
		t.Errorf("listening on %s, want %s", got, path)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v %v", info.Mode(), err)
	}
	if _, _, err := app.ListenSocket(dir); !errors.Is(err, app.ErrSocketInUse) {
		t.Errorf("a second worker on a live socket: %v, want ErrSocketInUse", err)
	}

	other := t.TempDir()
	plain := filepath.Join(other, hookwire.SocketFile)
	os.WriteFile(plain, []byte("not a socket"), 0o600)
	if _, _, err := app.ListenSocket(other); err == nil {
		t.Error("a regular file at the socket path was replaced")
	}
	if b, _ := os.ReadFile(plain); string(b) != "not a socket" {
		t.Error("the regular file was changed")
	}
}
