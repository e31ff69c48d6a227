package hookwire

import "errors"

// ErrLocked is LockFile's answer, when asked not to wait, for a file that
// another process holds locked.
var ErrLocked = errors.New("locked by another process")
