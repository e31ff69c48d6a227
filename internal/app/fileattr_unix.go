//go:build unix

package app

import "golang.org/x/sys/unix"

// writeDenied asks access(2) whether this user may write path, which
// checks the permissions without opening the file.
func writeDenied(path string) error { return unix.Access(path, unix.W_OK) }

// FreeBytes is the space under dir that this user may still fill.
func FreeBytes(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
