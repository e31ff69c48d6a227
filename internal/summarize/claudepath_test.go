package summarize

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestClaudeNames: claude.exe then npm's claude.cmd on Windows, claude
// elsewhere; the installers' directories under the home directory.
func TestClaudeNames(t *testing.T) {
	t.Parallel()
	if got := claudeNames("windows"); !slices.Equal(got, []string{"claude.exe", "claude.cmd"}) {
		t.Errorf("windows: %q", got)
	}
	for _, goos := range []string{"darwin", "linux"} {
		if got := claudeNames(goos); !slices.Equal(got, []string{"claude"}) {
			t.Errorf("%s: %q", goos, got)
		}
	}
	home := filepath.Join("/", "home", "ann")
	if got := claudeDirs(home); !slices.Equal(got, []string{filepath.Join(home, ".local", "bin"), filepath.Join(home, ".claude", "local")}) {
		t.Errorf("claudeDirs: %q", got)
	}
}
