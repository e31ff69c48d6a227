//go:build unix

package filestate

import (
	"os"
	"syscall"
)

// openNoWait opens path read-only without blocking (a FIFO with no writer,
// or one swapped in after a stat, does not wait) and without taking a
// terminal; OpenRegular then refuses what fstat says is not a regular file.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
