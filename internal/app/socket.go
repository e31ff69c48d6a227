package app

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// ErrSocketInUse is ListenSocket's answer when a worker already answers on
// the data directory's socket.
var ErrSocketInUse = errors.New("a worker already answers on the socket")

// ListenSocket listens on the data directory's unix socket
// (hookwire.SocketPaths: the first that can be made; the second, in a private
// per-user directory, when the data directory cannot hold a socket), mode
// 0600, accepting only connections from this user (OwnerOnly). A socket
// file left by a worker that ended without removing it is removed when
// nothing answers on it; one that answers, at any of the paths, is
// ErrSocketInUse, and anything else at a path is refused.
func ListenSocket(dataDir string) (net.Listener, string, error) {
	paths := hookwire.SocketPaths(dataDir)
	for i, path := range paths {
		if i > 0 && hookwire.SocketDirPrivate(dataDir, path, false) != nil {
			continue // missing, or not ours: nothing of ours listens there
		}
		err := checkStale(path)
		if err != nil && (i == 0 || errors.Is(err, ErrSocketInUse)) {
			return nil, path, err
		}
	}
	var first error
	for _, path := range paths {
		ln, err := listenAt(dataDir, path)
		if err == nil {
			return ln, path, nil
		}
		if first == nil {
			first = err
		}
		if errors.Is(err, ErrSocketInUse) {
			break
		}
	}
	return nil, paths[0], first
}

// checkStale removes a socket file at path nothing answers on, and refuses
// a live one or a file that is not a socket. A missing path is fine.
func checkStale(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket: refusing to replace it", path)
	}
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		conn.Close()
		return fmt.Errorf("%s: %w", path, ErrSocketInUse)
	}
	if !hookwire.NoListener(err) {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) && !cannotCreate(err) {
		return err
	}
	return nil
}

// cannotCreate reports an error of a directory that cannot be written.
func cannotCreate(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

func listenAt(dataDir, path string) (net.Listener, error) {
	if err := hookwire.SocketDirPrivate(dataDir, path, true); err != nil {
		return nil, err
	}
	ln, err := listenUnix(path)
	if errors.Is(err, syscall.EADDRINUSE) {
		if c, derr := net.DialTimeout("unix", path, time.Second); derr == nil {
			// Another worker bound it since checkStale.
			c.Close()
			return nil, fmt.Errorf("%s: %w", path, ErrSocketInUse)
		}
	}
	if err != nil {
		return nil, err
	}
	return OwnerOnly(ln), nil
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
