package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// restartSelf starts the same command line again, detached and without a
// console window, and lets this process end (Windows has no exec(2)): the
// worker started while its database could not be written, and only a new
// process opens it for writing. The socket and the port are already closed
// by now. If the start fails, the next hook starts a worker.
func restartSelf() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		HideWindow:    true,
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP,
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("restart %s: %w", exe, err)
	}
	return cmd.Process.Release()
}
