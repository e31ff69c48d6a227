//go:build unix

package hookwire

import (
	"errors"
	"syscall"
)

// maxSunPath is the longest unix socket path this platform accepts: its
// sun_path less the terminating NUL.
const maxSunPath = sunPathLen - 1

// NoListener reports that nothing listens on a unix socket path: there is
// no socket file (ENOENT), or one left behind by a worker that ended
// (ECONNREFUSED).
func NoListener(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
