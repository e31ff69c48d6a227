//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// InstalledEnv names the directory a package installed mneme and
// mneme-hook into (/usr/bin): make test-packaging sets it after dpkg -i,
// with InstalledVersionEnv and InstalledCommitEnv, what GoReleaser stamped.
const (
	InstalledEnv        = "MNEME_E2E_INSTALLED"
	InstalledVersionEnv = "MNEME_E2E_INSTALLED_VERSION"
	InstalledCommitEnv  = "MNEME_E2E_INSTALLED_COMMIT"
)

// TestClaudeCodeWithInstalledPackage is TestClaudeCodeWithMnemeAutoStart
// through the binaries a package installed (make test-packaging): `mneme
// install` from there wires Claude Code's hooks to the mneme-hook beside it,
// the SessionStart hook starts that directory's mneme as the worker, and
// the whole session is stored. Without InstalledEnv it skips (make test
// does not install packages); with it, a missing Claude Code fails it.
func TestClaudeCodeWithInstalledPackage(t *testing.T) {
	dir := os.Getenv(InstalledEnv)
	if dir == "" {
		t.Skipf("%s is not set: make test-packaging runs this test against the .deb it installed", InstalledEnv)
	}
	if _, err := FindClaude(); err != nil {
		t.Fatalf("%s is set, so this test must run: %v (run e2e/install-claude.sh)", InstalledEnv, err)
	}
	bin := filepath.Join(dir, "mneme")
	m := NewMnemeAt(t, bin) // checks every hook runs <dir>/mneme-hook
	if _, err := m.Health(); err == nil {
		t.Fatalf("a worker already answers on %s", m.URL)
	}
	project := NewProject(t, "mneme-e2e-package")
	s1, sid := runSession1(t, m, project)

	h, err := m.Health()
	if err != nil {
		t.Fatalf("no worker after the session: %v", err)
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(h.PID) + "/exe")
	if err != nil || exe != bin {
		t.Errorf("the worker the hook started runs %q (%v), want %s", exe, err, bin)
	}
	if want := os.Getenv(InstalledVersionEnv); want != "" && h.Version != want {
		t.Errorf("the worker says version %q, the package was stamped %q", h.Version, want)
	}
	if want := os.Getenv(InstalledCommitEnv); want != "" && h.Commit != want {
		t.Errorf("the worker says commit %q, the package was stamped %q", h.Commit, want)
	}
	t.Logf("worker %s (version %s, commit %s) started by the SessionStart hook: pid %d", exe, h.Version, h.Commit, h.PID)
	checkSession1(t, m, s1, project, sid)
	StopPID(t, h.PID)
	assertDataDirClean(t, m.DataDir)
}
