//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// restartSelf replaces this process with the same command line: the worker
// started while its database could not be written, and only a new process
// opens it for writing. If that fails, the process ends and the next hook
// starts a worker.
func restartSelf() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return fmt.Errorf("restart %s: %w", exe, syscall.Exec(exe, os.Args, os.Environ()))
}
