//go:build unix

package hooks

import (
	"context"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"
)

// sockConn is a connected unix socket driven by blocking system calls. The
// hook makes one request per process: package net's poller, its threads
// and its start-up cost more than the whole exchange (a no-op Go binary
// that dials with net takes about 2 ms more CPU than one that does not).
// Deadlines are the socket's send and receive timeouts.
type sockConn struct {
	mu       sync.Mutex
	fd       int
	closed   bool
	deadline time.Time
}

// dialTimeout bounds a connect to a socket whose listener is too busy to
// accept (its backlog full).
const dialTimeout = 200 * time.Millisecond

// dialSocket connects to the unix socket at path.
func dialSocket(ctx context.Context, path string) (*sockConn, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	syscall.CloseOnExec(fd)
	c := &sockConn{fd: fd}
	d := time.Now().Add(dialTimeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	c.SetDeadline(d)
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		if err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINPROGRESS {
			err = timeoutError{}
		}
		return nil, fmt.Errorf("dial unix %s: %w", path, err)
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// SetDeadline sets when reads and writes give up (the zero time: never).
func (c *sockConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return syscall.EBADF
	}
	c.deadline = t
	if t.Before(time.Unix(2, 0)) && !t.IsZero() {
		// A deadline in the past (the context's cancellation): wake
		// anything blocked now.
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
	return c.setTimeouts()
}

// setTimeouts sets the socket's timeouts to what is left of the deadline.
func (c *sockConn) setTimeouts() error {
	var tv syscall.Timeval
	if !c.deadline.IsZero() {
		left := time.Until(c.deadline)
		if left < time.Microsecond {
			left = time.Microsecond
		}
		tv = syscall.NsecToTimeval(left.Nanoseconds())
	}
	if err := syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return err
	}
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
}

func (c *sockConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == nil && n == 0 && len(p) > 0:
			return 0, c.eof()
		case err == nil:
			return n, nil
		case err == syscall.EINTR:
			c.retime() // a signal cut the wait short; wait for what is left
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
			return 0, timeoutError{}
		default:
			return 0, err
		}
	}
}

func (c *sockConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		if n > 0 {
			written += n
		}
		switch {
		case err == nil:
		case err == syscall.EINTR:
			c.retime()
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
			return written, timeoutError{}
		default:
			return written, err
		}
	}
	return written, nil
}

// eof is the end of the stream, or the deadline's error when a past
// deadline shut the socket down.
func (c *sockConn) eof() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.deadline.IsZero() && time.Now().After(c.deadline) {
		return timeoutError{}
	}
	return io.EOF
}

func (c *sockConn) retime() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.setTimeouts()
	}
}

// Close closes the socket once.
func (c *sockConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return syscall.Close(c.fd)
}

// timeoutError is a deadline passed, as net's timeouts report it.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
