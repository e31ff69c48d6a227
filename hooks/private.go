package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotPrivate is wrapped by CheckPrivateDir's refusals.
var ErrNotPrivate = errors.New("not a private directory of this user")

// CheckPrivateDir reports whether dir may hold this user's spooled events:
// it must be a directory itself (not a symbolic link to one, which is
// looked at with Lstat and never followed), owned by this user, and closed
// to group and others. The fallback spool lives in a shared place (the
// temp directory when there is no $XDG_RUNTIME_DIR), where another user
// could have made the directory first: writing there would hand them our
// events, and replaying it would store theirs in our memory. Both the hook
// (before it writes or replays the fallback) and the worker (before it
// replays it) check with this. A missing dir is the Lstat error
// (fs.ErrNotExist).
func CheckPrivateDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: %w", dir, ErrNotPrivate)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory: %w", dir, ErrNotPrivate)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: owner unknown: %w", dir, ErrNotPrivate)
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s is owned by uid %d, not %d: %w", dir, st.Uid, uid, ErrNotPrivate)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o, open to others: %w", dir, perm, ErrNotPrivate)
	}
	return nil
}

// MakePrivateDir creates dir with mode 0700 if it does not exist (its
// parent must) and then checks it with CheckPrivateDir: a directory that
// was there already is used only if it passes.
func MakePrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return CheckPrivateDir(dir)
}
