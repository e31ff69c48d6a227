//go:build !unix

// Package fifo makes named pipes for tests of code that must not hang on
// one; it imports nothing of mneme, so any package's tests may use it.
package fifo

import "testing"

// Make skips the test: this platform has no named pipes in the file system.
func Make(t testing.TB, path string) {
	t.Helper()
	t.Skipf("no named pipe for %s on this platform", path)
}
