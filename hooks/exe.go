package hooks

import (
	"path/filepath"
	"runtime"
	"strings"
)

// ExecutableName is the file name of the program name on this platform:
// name.exe on Windows (unless it has an extension already), name elsewhere.
func ExecutableName(name string) string { return executableName(runtime.GOOS, name) }

func executableName(goos, name string) string {
	if goos == "windows" && filepath.Ext(name) == "" {
		return name + ".exe"
	}
	return name
}

// windowsExecutable reports whether a file name runs as a program on
// Windows, which has no execute bit: by its extension.
func windowsExecutable(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".exe", ".com", ".bat", ".cmd":
		return true
	}
	return false
}
