//go:build unix

// Package fifo makes named pipes for tests of code that must not hang on
// one; it imports nothing of mneme, so any package's tests may use it.
package fifo

import (
	"syscall"
	"testing"
)

// Make creates a named pipe at path, failing the test if it cannot.
func Make(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}
