package worker

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/hooks/edge"
)

// ErrSocketInUse is ListenSocket's answer when a worker already answers on
// the data directory's socket.
var ErrSocketInUse = errors.New("a worker already answers on the socket")

// ListenSocket listens on the data directory's unix socket
// (edge.SocketPath), mode 0600, accepting only connections from this user
// (OwnerOnly). A socket file left by a worker that ended without removing
// it is removed when nothing answers on it; one that answers is
// ErrSocketInUse, and anything else at that path is refused.
func ListenSocket(dataDir string) (net.Listener, string, error) {
	path := edge.SocketPath(dataDir)
	if err := edge.SocketDirPrivate(dataDir, path, true); err != nil {
		return nil, path, err
	}
	if info, err := os.Lstat(path); err == nil {
		if info.Mode()&fs.ModeSocket == 0 {
			return nil, path, fmt.Errorf("%s exists and is not a socket: refusing to replace it", path)
		}
		conn, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			conn.Close()
			return nil, path, fmt.Errorf("%s: %w", path, ErrSocketInUse)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, path, fmt.Errorf("%s: %w", path, err)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, path, err
		}
	}
	// Made 0600 from the start: the umask applies to bind(2).
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, path, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, path, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return OwnerOnly(ln), path, nil
}

// OwnerOnly wraps a unix listener so that it hands on only connections
// from a process of this user (SO_PEERCRED where the system has it); the
// socket's mode 0600 already keeps others out, this is the second lock.
// The connections it hands on are the listener's own (*net.UnixConn).
func OwnerOnly(ln net.Listener) net.Listener { return ownerOnly{ln} }

type ownerOnly struct{ net.Listener }

func (l ownerOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uc, ok := c.(*net.UnixConn)
		if ok && peerIsOwner(uc) {
			return c, nil
		}
		c.Close()
	}
}
