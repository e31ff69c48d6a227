package filestate

import (
	testfifo "github.com/mneme-dev/mneme/internal/testutil/fifo"

	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// readOrHang runs Read with a generous deadline: a hostile path must give
// an answer, never hang the caller (no timing is asserted otherwise).
func readOrHang(t *testing.T, path string) State {
	t.Helper()
	done := make(chan State, 1)
	go func() { done <- Read(path) }()
	select {
	case st := <-done:
		return st
	case <-time.After(30 * time.Second):
		t.Fatalf("Read(%s) hung", path)
		return State{}
	}
}

func TestReadHostilePaths(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	testfifo.Make(t, fifo)
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.bin")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil { // sparse: 4 GiB that cost nothing
		t.Fatal(err)
	}
	f.Close()
	toFifo := filepath.Join(dir, "to-fifo")
	os.Symlink(fifo, toFifo)
	toZero := filepath.Join(dir, "to-zero")
	os.Symlink("/dev/zero", toZero)

	for _, tt := range []struct {
		name, path, kind string
	}{
		{"fifo without a writer", fifo, Missing},
		{"symlink to a fifo", toFifo, Missing},
		{"/dev/zero", "/dev/zero", Missing},
		{"symlink to /dev/zero", toZero, Missing},
		{"symlink loop", loop, Missing},
		{"directory", dir, Missing},
		{"missing", filepath.Join(dir, "nope"), Missing},
		{"relative", "relative/path.go", Unknown},
		{"huge sparse file", huge, Stat},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := readOrHang(t, tt.path)
			if st.Kind != tt.kind || st.SHA256 != "" {
				t.Errorf("kind %q sha %q, want kind %q and no hash", st.Kind, st.SHA256, tt.kind)
			}
			if tt.kind == Stat && st.Size != 4<<30 {
				t.Errorf("size %d", st.Size)
			}
		})
	}
}

func TestReadHashesRegularFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.go")
	content := []byte("package a\n")
	os.WriteFile(p, content, 0o600)
	sum := sha256.Sum256(content)
	st := readOrHang(t, p)
	if st.Kind != Hashed || st.SHA256 != hex.EncodeToString(sum[:]) || st.Size != int64(len(content)) || st.MtimeNS == 0 {
		t.Errorf("state %+v", st)
	}
	// Exactly at the cap is hashed; one byte more is not.
	at := filepath.Join(dir, "at-cap")
	os.WriteFile(at, make([]byte, MaxHashBytes), 0o600)
	if st := readOrHang(t, at); st.Kind != Hashed {
		t.Errorf("a file of MaxHashBytes: %+v", st.Kind)
	}
	over := filepath.Join(dir, "over-cap")
	os.WriteFile(over, make([]byte, MaxHashBytes+1), 0o600)
	if st := readOrHang(t, over); st.Kind != Stat || st.Size != MaxHashBytes+1 {
		t.Errorf("a file over MaxHashBytes: %+v", st)
	}
	// A symlink to a regular file is that file.
	link := filepath.Join(dir, "link.go")
	os.Symlink(p, link)
	if st := readOrHang(t, link); st.Kind != Hashed || st.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("through a symlink: %+v", st)
	}
}

func TestCheckerStatus(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.go")
	os.WriteFile(p, []byte("one\n"), 0o600)
	rec := Read(p)
	big := filepath.Join(dir, "big.bin")
	os.WriteFile(big, make([]byte, MaxHashBytes+10), 0o600)
	recBig := Read(big)
	missing := Read(filepath.Join(dir, "later.go"))

	if s := NewChecker().Status(rec); s != Fresh {
		t.Errorf("untouched: %s", s)
	}
	// Touched (new mtime) but the same content: still fresh.
	later := time.Now().Add(time.Hour)
	os.Chtimes(p, later, later)
	if s := NewChecker().Status(rec); s != Fresh {
		t.Errorf("same content, new mtime: %s", s)
	}
	// Same size, other content.
	os.WriteFile(p, []byte("two\n"), 0o600)
	os.Chtimes(p, later.Add(time.Hour), later.Add(time.Hour))
	if s := NewChecker().Status(rec); s != Changed {
		t.Errorf("same size, new content: %s", s)
	}
	os.WriteFile(p, []byte("three lines\n"), 0o600)
	if s := NewChecker().Status(rec); s != Changed {
		t.Errorf("new size: %s", s)
	}
	os.Chtimes(big, later, later)
	if s := NewChecker().Status(recBig); s != Changed {
		t.Errorf("a large file with a new mtime: %s", s)
	}
	os.Remove(p)
	if s := NewChecker().Status(rec); s != Gone {
		t.Errorf("removed: %s", s)
	}
	if s := NewChecker().Status(missing); s != Fresh {
		t.Errorf("missing then, missing now: %s", s)
	}
	os.WriteFile(missing.Path, []byte("x"), 0o600)
	if s := NewChecker().Status(missing); s != Changed {
		t.Errorf("missing then, there now: %s", s)
	}
	if s := NewChecker().Status(State{Path: p, Kind: Unknown}); s != NoClaim {
		t.Errorf("unknown: %s", s)
	}
}

func TestAbs(t *testing.T) {
	for _, tt := range []struct{ path, cwd, want string }{
		{"/a/b.go", "/x", "/a/b.go"},
		{"b.go", "/x", "/x/b.go"},
		{"../b.go", "/x/y", "/x/b.go"},
		{"b.go", "", ""},
		{"b.go", "rel", ""},
		{"", "/x", ""},
	} {
		if got := Abs(tt.path, tt.cwd); got != tt.want {
			t.Errorf("Abs(%q, %q) = %q, want %q", tt.path, tt.cwd, got, tt.want)
		}
	}
}
