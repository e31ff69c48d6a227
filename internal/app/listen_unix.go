//go:build unix

package app

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// listenUnix listens on path, a socket that is 0600 from the moment path
// names it, and is removed when the listener closes. It is bound in a
// fresh 0700 directory beside path, made 0600 there, and then linked to
// path: link(2) fails when path exists, so a worker that bound it in the
// meantime gets EADDRINUSE as from bind. The process's umask is left
// alone: narrowing it around bind(2) would narrow it for every goroutine,
// and a directory another one made in that moment came out 0600, which
// its owner cannot enter. When the staging path would not fit in sun_path
// (a data directory near the limit), the socket is bound at path and made
// 0600 at once: the peer check (OwnerOnly) still refuses other users in
// that moment.
func listenUnix(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	tmp, err := os.MkdirTemp(dir, ".b")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	staged := filepath.Join(tmp, "s")
	if len(staged) >= maxSocketPath {
		return bindInPlace(path)
	}
	ln, err := net.Listen("unix", staged)
	if err != nil {
		return nil, err
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false)
	if err := os.Chmod(staged, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	if err := os.Link(staged, path); err != nil {
		ln.Close()
		if errors.Is(err, fs.ErrExist) {
			return nil, &os.SyscallError{Syscall: "link", Err: syscall.EADDRINUSE}
		}
		return nil, fmt.Errorf("link %s: %w", path, err)
	}
	return &unlinkOnClose{UnixListener: ul, path: path}, nil
}

// bindInPlace binds at path and makes the socket 0600 right away.
func bindInPlace(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, nil
}

// maxSocketPath is sun_path's size on the BSDs and macOS, the smaller of
// the systems': a longer path is not bound.
const maxSocketPath = 104

// unlinkOnClose removes the socket's path when the listener closes, as
// SetUnlinkOnClose does for the path a listener was bound at.
type unlinkOnClose struct {
	*net.UnixListener
	path string
}

func (l *unlinkOnClose) Close() error {
	err := l.UnixListener.Close()
	if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}
