//go:build windows

package hooks

import (
	"context"
	"net"
	"time"
)

// dialSocket connects to the AF_UNIX socket at path through package net,
// whose start-up cost the unix builds avoid with system calls of their own
// (sock_unix.go).
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	d := net.Dialer{Timeout: 200 * time.Millisecond}
	return d.DialContext(ctx, "unix", path)
}
