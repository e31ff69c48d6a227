// Package filestate records what a file was when mneme saw it (its
// content hash, or size and modification time when it is large) and tells
// whether it has changed since: the staleness of a memory about a file.
//
// Paths come from hook events and are treated as hostile. Only regular
// files are read: a missing path costs one failed stat; FIFOs, devices,
// sockets and directories are never opened for reading (the open is
// non-blocking and fstat must agree with the stat); symlink loops fail in
// the stat; at most MaxHashBytes are hashed, and a larger file is recorded
// by size and mtime only; a read stuck in the kernel is abandoned after
// readTimeout.
package filestate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// MaxHashBytes is the largest file whose content is hashed; above it only
// size and mtime are recorded and compared.
const MaxHashBytes = 1 << 20

// Kinds of a recorded state.
const (
	Hashed  = "sha256"  // SHA256, Size and MtimeNS are set
	Stat    = "stat"    // over MaxHashBytes (or unreadable): Size and MtimeNS only
	Missing = "missing" // no regular file at the path
	Unknown = "unknown" // not recorded (observations older than this feature)
)

// Statuses of a memory's file compared with the file now.
const (
	Fresh   = "fresh"   // the file is as it was recorded
	Changed = "changed" // the file differs from what was recorded
	Gone    = "gone"    // the file was there and is not any more
	NoClaim = "unknown" // nothing was recorded, or the file cannot be checked
)

// State is a file as mneme saw it.
type State struct {
	Path    string
	Kind    string
	SHA256  string
	Size    int64
	MtimeNS int64
}

// Abs is path made absolute against cwd; "" when neither is absolute
// (nothing can be checked then).
func Abs(path, cwd string) string {
	if path == "" {
		return ""
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	if !filepath.IsAbs(cwd) {
		return ""
	}
	return filepath.Join(cwd, path)
}

// readTimeout bounds one hash (a file on a hung network mount).
const readTimeout = time.Second

// reads bounds the hashes in flight; a read stuck past readTimeout keeps
// its slot, so once all are stuck later reads give up at once.
var reads = make(chan struct{}, 16)

// Read returns the state of the file at the absolute path now.
func Read(path string) State { return (*Cache)(nil).Read(path) }

// Cache remembers the hashes it computed by path, size and mtime, so a
// file read again unchanged (the same size and mtime, as the Checker
// assumes too) costs a stat. It is safe for concurrent use; a nil Cache
// caches nothing.
type Cache struct {
	mu sync.Mutex
	m  map[string]State
}

// maxCached bounds a Cache; past it, it starts afresh.
const maxCached = 4096

// Read is the package's Read, through the cache.
func (c *Cache) Read(path string) State {
	st := State{Path: path, Kind: Missing}
	if !filepath.IsAbs(path) {
		st.Kind = Unknown
		return st
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return st
	}
	st.Size, st.MtimeNS = fi.Size(), fi.ModTime().UnixNano()
	if fi.Size() > MaxHashBytes {
		st.Kind = Stat
		return st
	}
	if hit, ok := c.get(path); ok && hit.Size == st.Size && hit.MtimeNS == st.MtimeNS {
		return hit
	}
	sum, ok := hashWithin(path, fi, readTimeout)
	if !ok {
		st.Kind = Stat
		return st
	}
	st.Kind, st.SHA256 = Hashed, sum
	c.put(st)
	return st
}

func (c *Cache) get(path string) (State, bool) {
	if c == nil {
		return State{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[path]
	return st, ok
}

func (c *Cache) put(st State) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = make(map[string]State)
	}
	c.m[st.Path] = st
}

// hashWithin hashes the regular file at path, which stat described as fi,
// giving up after timeout.
func hashWithin(path string, fi os.FileInfo, timeout time.Duration) (string, bool) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case reads <- struct{}{}:
	case <-timer.C:
		return "", false
	}
	type result struct {
		sum string
		ok  bool
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-reads }()
		sum, ok := hashFile(path, fi)
		done <- result{sum, ok}
	}()
	select {
	case r := <-done:
		return r.sum, r.ok
	case <-timer.C:
		return "", false
	}
}

// ErrNotRegular is OpenRegular's answer for a path that is there but is
// not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading only if it is a regular file: it
// opens without blocking (openNoWait), then asks fstat, so devices, FIFOs,
// sockets and directories, also behind a symlink, are never read. The
// caller closes the file.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := openNoWait(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// hashFile opens path (OpenRegular), checks that it is still the file stat
// saw, and hashes at most MaxHashBytes of it.
func hashFile(path string, fi os.FileInfo) (string, bool) {
	f, now, err := OpenRegular(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if !os.SameFile(fi, now) {
		return "", false
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxHashBytes+1))
	if err != nil || n > MaxHashBytes {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// Checker compares recorded states with the files now. It stats each
// path once and hashes it only when size or mtime differ from a recorded
// state, so checking many memories of one unchanged file costs one stat.
// It is not safe for concurrent use.
type Checker struct {
	now map[string]*current
}

type current struct {
	stat   State // Kind Missing, or Stat with size and mtime
	hashed *State
}

// NewChecker returns an empty checker.
func NewChecker() *Checker { return &Checker{now: map[string]*current{}} }

// Status compares rec with the file at rec.Path now.
func (c *Checker) Status(rec State) string {
	if rec.Kind == Unknown || rec.Kind == "" || !filepath.IsAbs(rec.Path) {
		return NoClaim
	}
	cur := c.stat(rec.Path)
	switch {
	case cur.stat.Kind == Missing && rec.Kind == Missing:
		return Fresh
	case cur.stat.Kind == Missing:
		return Gone
	case rec.Kind == Missing:
		return Changed // a file is there now that was not
	case cur.stat.Size != rec.Size:
		return Changed
	case cur.stat.MtimeNS == rec.MtimeNS:
		return Fresh
	case rec.Kind == Stat:
		return Changed
	}
	// Same size, another mtime: the content decides.
	if cur.hashed == nil {
		h := Read(rec.Path)
		cur.hashed = &h
	}
	if cur.hashed.Kind == Hashed && cur.hashed.SHA256 == rec.SHA256 {
		return Fresh
	}
	return Changed
}

func (c *Checker) stat(path string) *current {
	if cur, ok := c.now[path]; ok {
		return cur
	}
	cur := &current{stat: State{Path: path, Kind: Missing}}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		cur.stat = State{Path: path, Kind: Stat, Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano()}
	}
	c.now[path] = cur
	return cur
}

// Stale reports whether a status says the memory no longer matches the file.
func Stale(status string) bool { return status == Changed || status == Gone }
