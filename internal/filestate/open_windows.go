package filestate

import (
	"fmt"
	"os"
)

// openNoWait opens path read-only only if it is a regular file now:
// Windows has no O_NONBLOCK for files, and opening a named pipe
// (\\.\pipe\…) or a device (CON, COM1, \\.\…) can wait or take the
// console, so what Stat says is not a regular file is refused before the
// open. OpenRegular's fstat then checks the opened file again.
func openNoWait(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return os.Open(path)
}
