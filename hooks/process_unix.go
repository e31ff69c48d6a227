//go:build unix

package hooks

import (
	"os"
	"syscall"
)

// detached is how StartWorker starts the worker: in a session of its own
// (setsid), so it has no controlling terminal and outlives the hook and
// Claude Code's process group.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// IsExecutable reports whether path is a regular file with an execute bit.
func IsExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}
