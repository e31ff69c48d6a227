//go:build unix

package hookwire

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ownerOnly checks that path (info is its Lstat) belongs to this user and
// is closed to group and others (mode bits 0077 clear).
func ownerOnly(path string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: owner unknown: %w", path, ErrNotPrivate)
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s is owned by uid %d, not %d: %w", path, st.Uid, uid, ErrNotPrivate)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o, open to others: %w", path, perm, ErrNotPrivate)
	}
	return nil
}

// closeToOthers makes path (info is its Stat), when this user owns it,
// closed to group and others: chmod, keeping the owner's bits.
func closeToOthers(path string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) == os.Getuid() && info.Mode().Perm()&0o077 != 0 {
		return os.Chmod(path, info.Mode().Perm()&0o700)
	}
	return nil
}

// mkdirPrivate creates dir with mode 0700 (its parent must exist).
func mkdirPrivate(dir string) error { return os.Mkdir(dir, 0o700) }

// makeFilePrivate gives the open file f mode 0600.
func makeFilePrivate(f *os.File) error { return f.Chmod(0o600) }

// fixPrivateHint says how to make a file private by hand.
const fixPrivateHint = "chmod 600 it"

// userTag names this user in shared places (the fallback directories in
// the temp directory): the uid.
func userTag() string { return fmt.Sprint(os.Getuid()) }
