//go:build windows

package hookwire

import (
	"errors"
	"io/fs"
	"syscall"
)

// maxSunPath is the longest AF_UNIX socket path Windows accepts: its
// sun_path is 108 bytes, one of them the terminating NUL.
const maxSunPath = 107

// wsaeconnrefused is Winsock's "connection refused", which syscall names
// only by its Unix number.
const wsaeconnrefused = syscall.Errno(10061)

// NoListener reports that nothing listens on a unix socket path: there is
// no socket file, or one left behind by a worker that ended (Winsock's
// connection refused).
func NoListener(err error) bool {
	return errors.Is(err, wsaeconnrefused) || errors.Is(err, fs.ErrNotExist) ||
		errors.Is(err, syscall.ERROR_PATH_NOT_FOUND) || errors.Is(err, syscall.ECONNREFUSED)
}
