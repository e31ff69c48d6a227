package hookwire

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotPrivate is wrapped by CheckPrivateDir's refusals.
var ErrNotPrivate = errors.New("not a private directory of this user")

// CheckPrivateDir reports whether dir may hold this user's spooled events:
// it must be a directory itself (not a symbolic link to one, which is
// looked at with Lstat and never followed), owned by this user, and closed
// to group and others (on Windows: its ACL grants no one else access). The fallback spool lives in a shared place (the
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
	return ownerOnly(dir, info)
}

// MakePrivateDir creates dir with mode 0700 (on Windows, an ACL granting
// only this user) if it does not exist (its parent must) and then checks it with CheckPrivateDir: a directory that
// was there already is used only if it passes.
func MakePrivateDir(dir string) error {
	if err := mkdirPrivate(dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return CheckPrivateDir(dir)
}
