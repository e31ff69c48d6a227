//go:build unix

package app

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// Binding the worker's socket leaves the process's umask alone: a
// directory another goroutine makes meanwhile keeps its mode (with the
// umask narrowed to 0177 around bind(2), one came out 0600, which its owner
// cannot enter). The socket is 0600, nothing of the staging is left, and
// closing removes it.
func TestListenUnixLeavesUmask(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	bad := make(chan os.FileMode, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			d, err := os.MkdirTemp(dir, "probe")
			if err != nil {
				continue
			}
			if info, err := os.Stat(d); err == nil && info.Mode().Perm()&0o100 == 0 {
				select {
				case bad <- info.Mode().Perm():
				default:
				}
			}
			os.Remove(d)
		}
	}()
	for i := 0; i < 200; i++ {
		path := filepath.Join(dir, "w.sock")
		ln, err := listenUnix(path)
		if err != nil {
			t.Fatal(err)
		}
		if info, err := os.Lstat(path); err != nil || info.Mode().Perm() != 0o600 || info.Mode()&os.ModeSocket == 0 {
			t.Fatalf("socket %v %v, want a socket of mode 0600", info.Mode(), err)
		}
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatalf("dial the socket: %v", err)
		}
		c.Close()
		if err := ln.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the socket outlived its listener: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	select {
	case m := <-bad:
		t.Errorf("a directory made while the socket was bound came out %v", m)
	default:
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".b*"))
	if len(left) != 0 {
		t.Errorf("staging left behind: %v", left)
	}
}

// A path some other worker bound since the stale check is not taken over:
// the error is EADDRINUSE, as bind(2) would give.
func TestListenUnixTakenPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.sock")
	other, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := listenUnix(path); !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("listenUnix on a bound path: %v, want EADDRINUSE", err)
	}
	if c, err := net.Dial("unix", path); err != nil {
		t.Errorf("the other worker's socket no longer answers: %v", err)
	} else {
		c.Close()
	}
}
