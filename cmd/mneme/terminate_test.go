package main

import (
	"os"
	"syscall"
)

// terminate asks process pid to stop (SIGTERM), or kills it where the
// platform has no such signal (Windows).
func terminate(pid int) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	if p.Signal(syscall.SIGTERM) != nil {
		p.Kill()
	}
}
