package summarize

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// claudeNames are the names the claude executable goes by on goos: on
// Windows the native installer's claude.exe, then npm's claude.cmd shim.
func claudeNames(goos string) []string {
	if goos == "windows" {
		return []string{"claude.exe", "claude.cmd"}
	}
	return []string{"claude"}
}

// claudeDirs are where Claude Code's installers put claude when it is not
// on the worker's PATH (a worker started from a login item or a service
// sees a shorter PATH than the shell): ~/.local/bin (the native installer,
// %USERPROFILE%\.local\bin on Windows) and ~/.claude/local (a local npm
// install).
func claudeDirs(home string) []string {
	return []string{filepath.Join(home, ".local", "bin"), filepath.Join(home, ".claude", "local")}
}

// findClaude resolves the claude executable: path as given when it is set
// (a name is looked up in PATH), else each of claudeNames in PATH, then in
// claudeDirs.
func findClaude(path string) (string, error) {
	if path != "" {
		return exec.LookPath(path)
	}
	names := claudeNames(runtime.GOOS)
	for _, n := range names {
		if bin, err := exec.LookPath(n); err == nil {
			return bin, nil
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		for _, dir := range claudeDirs(home) {
			for _, n := range names {
				if bin, err := exec.LookPath(filepath.Join(dir, n)); err == nil {
					return bin, nil
				}
			}
		}
	}
	return "", errors.New("not in PATH, ~/.local/bin or ~/.claude/local")
}
