package hooks

import "testing"

// TestExecutableName: mneme-hook.exe on Windows, as is elsewhere; the
// extensions Windows runs.
func TestExecutableName(t *testing.T) {
	for _, tc := range []struct{ goos, name, want string }{
		{"windows", "mneme-hook", "mneme-hook.exe"},
		{"windows", "claude.cmd", "claude.cmd"},
		{"darwin", "mneme-hook", "mneme-hook"},
		{"linux", "mneme", "mneme"},
	} {
		if got := executableName(tc.goos, tc.name); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.goos, tc.name, got, tc.want)
		}
	}
	for name, want := range map[string]bool{`C:\go\bin\mneme.exe`: true, "x.CMD": true, "mneme": false, "a.txt": false} {
		if windowsExecutable(name) != want {
			t.Errorf("windowsExecutable(%q) = %v", name, !want)
		}
	}
}
