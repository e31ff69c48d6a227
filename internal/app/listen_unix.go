//go:build unix

package app

import (
	"net"
	"os"
	"syscall"
)

// listenUnix listens on path, a socket made 0600 from the start (the umask
// applies to bind(2)) and kept so.
func listenUnix(path string) (net.Listener, error) {
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}
