package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// unsortedSettings has its keys out of alphabetical order at every depth,
// and text encoding/json would escape.
const unsortedSettings = `{
  "statusLine": {"type": "command", "command": "~/.claude/status.sh && echo <ok>"},
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "timeout": 30, "command": "prettier --write"}]}
    ]
  },
  "env": {"ZED": "1", "ALPHA": "2"},
  "alwaysThinkingEnabled": true
}
`

// keysInOrder lists the quoted keys of a JSON text in the order written.
func keysInOrder(raw []byte) []string {
	var keys []string
	for _, m := range regexp.MustCompile(`"([A-Za-z]+)":`).FindAllSubmatch(raw, -1) {
		keys = append(keys, string(m[1]))
	}
	return keys
}

func TestInstallKeepsTheUsersKeyOrder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(unsortedSettings), 0o644)

	if _, errs, code := runCLI(t, "install", "--bin", testBin); code != 0 {
		t.Fatalf("install: %d %s", code, errs)
	}
	raw, _ := os.ReadFile(path)
	got := keysInOrder(raw)
	// The user's keys, in the user's order, wherever install kept them.
	var users []string
	for _, k := range got {
		if slices.Contains(keysInOrder([]byte(unsortedSettings)), k) && !slices.Contains(users, k) {
			users = append(users, k)
		}
	}
	want := []string{"statusLine", "type", "command", "model", "hooks", "PostToolUse", "matcher", "timeout", "env", "ZED", "ALPHA", "alwaysThinkingEnabled"}
	if !slices.Equal(users, want) {
		t.Errorf("install reordered the user's keys:\n got %v\nwant %v\n%s", users, want, raw)
	}
	if !strings.Contains(string(raw), "&& echo <ok>") {
		t.Errorf("install escaped the user's text:\n%s", raw)
	}
	if !strings.Contains(string(raw), "mneme") {
		t.Fatalf("no hooks installed:\n%s", raw)
	}

	if _, errs, code := runCLI(t, "uninstall"); code != 0 {
		t.Fatalf("uninstall: %d %s", code, errs)
	}
	raw, _ = os.ReadFile(path)
	if !slices.Equal(keysInOrder(raw), keysInOrder([]byte(unsortedSettings))) {
		t.Errorf("uninstall did not give back the user's order:\n%s", raw)
	}
}

// On a machine where install made ~/.claude.json, ~/.claude/settings.json
// and ~/.claude/commands, uninstall leaves nothing of them behind.
func TestUninstallRemovesWhatInstallCreated(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	claude := filepath.Join(home, ".claude")
	os.MkdirAll(filepath.Join(claude, "projects"), 0o755) // Claude Code's own

	if _, errs, code := runCLI(t, "install", "--bin", testBin); code != 0 {
		t.Fatalf("install: %d %s", code, errs)
	}
	for _, p := range []string{filepath.Join(home, ".claude.json"), filepath.Join(claude, "settings.json"), filepath.Join(claude, "commands", "mem-search.md")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("install did not create %s: %v", p, err)
		}
	}
	if _, errs, code := runCLI(t, "uninstall"); code != 0 {
		t.Fatalf("uninstall: %d %s", code, errs)
	}
	for _, p := range []string{filepath.Join(home, ".claude.json"), filepath.Join(claude, "settings.json"), filepath.Join(claude, "commands")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			b, _ := os.ReadFile(p)
			t.Errorf("uninstall left %s behind (%v): %s", p, err, b)
		}
	}
	if _, err := os.Stat(filepath.Join(claude, "projects")); err != nil {
		t.Errorf("uninstall removed Claude Code's own directory: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(home, "*.mneme-*"))
	more, _ := filepath.Glob(filepath.Join(claude, "*.mneme-*"))
	if len(leftovers)+len(more) > 0 {
		t.Errorf("uninstall left files: %v %v", leftovers, more)
	}

	// A commands directory holding the user's own command stays.
	runCLI(t, "install", "--bin", testBin)
	own := filepath.Join(claude, "commands", "deploy.md")
	os.WriteFile(own, []byte("deploy it"), 0o644)
	runCLI(t, "uninstall")
	if _, err := os.Stat(own); err != nil {
		t.Errorf("uninstall removed the user's command: %v", err)
	}
}
