package hookwire

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckPrivateDir checks real directories: only a directory of this
// user's, closed to group and others, and not reached through a symbolic
// link, may hold the fallback spool.
func TestCheckPrivateDir(t *testing.T) {
	base := t.TempDir()
	own := filepath.Join(base, "own")
	if err := MakePrivateDir(own); err != nil {
		t.Fatalf("a directory made here: %v", err)
	}
	if info, _ := os.Lstat(own); info.Mode().Perm() != 0o700 {
		t.Errorf("made with mode %v, want 0700", info.Mode().Perm())
	}
	if err := MakePrivateDir(own); err != nil {
		t.Errorf("the same directory again: %v", err)
	}
	if err := CheckPrivateDir(filepath.Join(base, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v, want not-exist", err)
	}

	refused := map[string]string{}
	for name, mode := range map[string]os.FileMode{"group-readable": 0o750, "group-writable": 0o770, "world-writable": 0o777, "world-readable": 0o705} {
		dir := filepath.Join(base, name)
		os.Mkdir(dir, 0o700)
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		refused[name] = dir
	}
	link := filepath.Join(base, "symlink")
	if err := os.Symlink(own, link); err != nil { // to a directory that passes itself
		t.Fatal(err)
	}
	refused["symlink"] = link
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)
	refused["file"] = file
	if os.Getuid() == 0 {
		other := filepath.Join(base, "other-user")
		os.Mkdir(other, 0o700)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		refused["other-user"] = other
	} else {
		t.Log("not root: no directory of another user (os.Chown needs root)")
	}
	for name, dir := range refused {
		err := CheckPrivateDir(dir)
		if !errors.Is(err, ErrNotPrivate) {
			t.Errorf("%s: %v, want a refusal", name, err)
			continue
		}
		t.Logf("%s: %v", name, err)
		// MakePrivateDir takes what is there as it is: no chmod, no chown.
		if err := MakePrivateDir(dir); !errors.Is(err, ErrNotPrivate) {
			t.Errorf("MakePrivateDir over %s: %v, want a refusal", name, err)
		}
	}
}
