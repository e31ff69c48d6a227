//go:build unix

package hookwire

import (
	"errors"
	"os"
	"syscall"
)

// LockFile takes an exclusive advisory lock on f (flock(2)): it goes with
// the open file, so a process that dies releases it. With wait unset it
// returns ErrLocked at once when another holds the lock. The spools, the
// import lock and the replay lock all use it.
func LockFile(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	err := syscall.Flock(int(f.Fd()), how)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// UnlockFile releases LockFile's lock on f.
func UnlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// openShared is os.OpenFile: on Unix a file can always be renamed while
// open, which the spool's rotation does.
func openShared(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
