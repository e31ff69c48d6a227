package hooks

import (
	"os"
	"path/filepath"
	"testing"
)

// Sibling finds a binary beside the running one first, then on PATH.
func TestSibling(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	// Beside: the test binary is its own sibling. PATH must not be asked.
	t.Setenv("PATH", "")
	if got, err := Sibling(filepath.Base(self))(); err != nil || got != self {
		t.Errorf("beside: got %q, %v; want %q", got, err, self)
	}

	// Not beside: found on PATH, only if executable.
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := Sibling("mneme-test-serve")(); err == nil {
		t.Error("a missing binary must be an error")
	}
	plain := filepath.Join(dir, "mneme-test-serve")
	os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644)
	if got, err := Sibling("mneme-test-serve")(); err == nil {
		t.Errorf("a file that is not executable was chosen: %q", got)
	}
	os.Chmod(plain, 0o755)
	if got, err := Sibling("mneme-test-serve")(); err != nil || got != plain {
		t.Errorf("on PATH: got %q, %v; want %q", got, err, plain)
	}
}
