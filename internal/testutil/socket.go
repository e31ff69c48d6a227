package testutil

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"time"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/hookwire"
)

// listenSocket is app.ListenSocket for a test worker: the same paths
// (hookwire.SocketPaths, the per-user directory made private), a stale
// socket removed, a live one refused, the socket 0600 and OwnerOnly; but
// bound with the process's umask left alone. app's listenUnix narrows the
// umask to 0177 around bind(2), so that the socket is 0600 from the start,
// and a umask is the whole process's: a directory that a parallel test
// made in that moment came out 0600, which its owner cannot enter (for a
// user other than root t.TempDir failed with EACCES; as root, initdb,
// run as postgres, could not enter pgtest's cluster directory). A test
// worker's data directory is a private temp directory, so its socket is
// made 0600 just after the bind instead. app's own tests cover
// ListenSocket itself.
func listenSocket(dataDir string) (net.Listener, string, error) {
	paths := hookwire.SocketPaths(dataDir)
	var first error
	for _, path := range paths {
		ln, err := listenAt(dataDir, path)
		if err == nil {
			return ln, path, nil
		}
		if first == nil {
			first = err
		}
		if errors.Is(err, app.ErrSocketInUse) {
			break
		}
	}
	return nil, paths[0], first
}

func listenAt(dataDir, path string) (net.Listener, error) {
	if err := hookwire.SocketDirPrivate(dataDir, path, true); err != nil {
		return nil, err
	}
	if info, err := os.Lstat(path); err == nil {
		if info.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("%s: %w", path, app.ErrSocketInUse)
		}
		os.Remove(path) // left by a worker that ended without removing it
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return app.OwnerOnly(ln), nil
}
