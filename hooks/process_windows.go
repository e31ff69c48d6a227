//go:build windows

package hooks

import (
	"os"
	"syscall"
)

// detachedProcess starts the worker with no console at all, neither the
// hook's nor a new one, so no console window flashes up. (CREATE_NO_WINDOW
// would do the same for a console program, but Windows ignores it beside
// DETACHED_PROCESS.)
const detachedProcess = 0x00000008 // DETACHED_PROCESS

// detached is how StartWorker starts the worker: no console
// (DETACHED_PROCESS), its own process group (CREATE_NEW_PROCESS_GROUP, so
// a Ctrl+C in Claude Code's console is not passed on), and a hidden window
// should it make one.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		HideWindow:    true,
		CreationFlags: detachedProcess | syscall.CREATE_NEW_PROCESS_GROUP,
	}
}

// IsExecutable reports whether path is a regular file that Windows runs as
// a program (by its extension: Windows has no execute bit).
func IsExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && windowsExecutable(path)
}
