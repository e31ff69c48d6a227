package summarize

import (
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// groupAttr starts claude in a process group of its own and without a
// console window: the worker runs detached, with no console, so a console
// program it starts would otherwise get a window of its own.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		HideWindow:    true,
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW,
	}
}

// killGroup kills cmd's process and every process it started: Windows
// process groups take no signal, so taskkill /T walks the tree. A process
// that has exited already is not an error.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return nil
	}
	kill := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid))
	kill.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: windows.CREATE_NO_WINDOW}
	if kill.Run() != nil {
		return cmd.Process.Kill()
	}
	return nil
}
