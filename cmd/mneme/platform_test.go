package main

import (
	"slices"
	"testing"
)

// TestOpener: the browser is opened with open on macOS, the URL handler on
// Windows (the whole URL one argument, its & untouched), xdg-open elsewhere.
func TestOpener(t *testing.T) {
	u := "http://127.0.0.1:37777/login/abc?next=/&x=1"
	for _, tc := range []struct {
		goos, name string
		args       []string
	}{
		{"darwin", "open", []string{u}},
		{"windows", "rundll32", []string{"url.dll,FileProtocolHandler", u}},
		{"linux", "xdg-open", []string{u}},
		{"freebsd", "xdg-open", []string{u}},
	} {
		name, args := opener(tc.goos, u)
		if name != tc.name || !slices.Equal(args, tc.args) {
			t.Errorf("%s: %s %q", tc.goos, name, args)
		}
	}
}

// TestCommandWordWindows: a hook's command line for Claude Code's bash on
// Windows: forward slashes, quoted when the path has a space, and read
// back as mneme's hook by uninstall.
func TestCommandWordWindows(t *testing.T) {
	t.Parallel()
	bin := `C:\Users\Jane Doe\go\bin\mneme-hook.exe`
	got := commandWord("windows", bin)
	if got != `'C:/Users/Jane Doe/go/bin/mneme-hook.exe'` {
		t.Errorf("commandWord: %s", got)
	}
	line := got + " --data-dir " + commandWord("windows", `C:\Users\Jane Doe\.mneme`) + " post-tool-use"
	fields := shellFields(line)
	if len(fields) != 4 || fields[0] != "C:/Users/Jane Doe/go/bin/mneme-hook.exe" || fields[2] != "C:/Users/Jane Doe/.mneme" || !isMnemeHook(line) {
		t.Errorf("%s: fields %q, isMnemeHook %v", line, fields, isMnemeHook(line))
	}
	if got := commandWord("linux", "/usr/local/bin/mneme-hook"); got != "/usr/local/bin/mneme-hook" {
		t.Errorf("linux: %s", got)
	}
}
