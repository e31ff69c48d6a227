package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// originalSettings is a user's settings.json with unrelated settings and
// hooks that install must keep and uninstall must restore.
const originalSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(git status)"], "deny": []},
  "statusLine": {"type": "command", "command": "~/.claude/status.sh"},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write", "timeout": 30}]}
    ],
    "Notification": [
      {"hooks": [{"type": "command", "command": "notify-send claude"}]}
    ]
  }
}
`

const testBin = "/opt/mneme/bin/mneme"

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	// The environment must not move the port or data dir: the commands
	// written are compared literally.
	t.Setenv("MNEME_PORT", "")
	t.Setenv("MNEME_DATA_DIR", "")
	var out, errb bytes.Buffer
	code := run(args, nil, &out, &errb)
	return out.String(), errb.String(), code
}

func backups(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "settings.json.mneme-backup-*"))
	return m
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("settings are not JSON: %v\n%s", err, b)
	}
	return m
}

func TestInstallUninstall(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := filepath.Join(home, ".claude")
	path := filepath.Join(dir, "settings.json")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(path, []byte(originalSettings), 0o640); err != nil {
		t.Fatal(err)
	}

	out, errs, code := runCLI(t, "install", "--bin", testBin)
	if code != 0 {
		t.Fatalf("install exited %d: %s", code, errs)
	}
	if !strings.Contains(out, "Installed mneme's hooks in "+path) {
		t.Errorf("install output: %q", out)
	}
	installed, _ := os.ReadFile(path)
	s := decode(t, installed)
	if s["model"] != "opus" || s["statusLine"] == nil || s["permissions"] == nil {
		t.Errorf("unrelated settings were lost: %s", installed)
	}
	hooksMap := s["hooks"].(map[string]any)
	if n := len(hooksMap["Notification"].([]any)); n != 1 {
		t.Errorf("unrelated event's hooks: %d groups", n)
	}
	post := hooksMap["PostToolUse"].([]any)
	if len(post) != 2 || !strings.Contains(mustJSON(post[0]), "prettier --write") {
		t.Errorf("the user's PostToolUse hook must stay first: %s", mustJSON(post))
	}
	for _, spec := range mnemeHooks {
		groups, _ := hooksMap[spec.Event].([]any)
		var found map[string]any
		for _, g := range groups {
			gm := g.(map[string]any)
			for _, h := range gm["hooks"].([]any) {
				if hm := h.(map[string]any); hm["command"] == testBin+" hook "+spec.Slug {
					found = gm
					if hm["type"] != "command" || hm["timeout"] != float64(spec.Timeout) {
						t.Errorf("%s: hook %v", spec.Event, hm)
					}
				}
			}
		}
		if found == nil {
			t.Errorf("%s: no mneme hook in %s", spec.Event, mustJSON(groups))
			continue
		}
		if m, _ := found["matcher"].(string); m != spec.Matcher {
			t.Errorf("%s: matcher %q, want %q", spec.Event, m, spec.Matcher)
		}
	}
	b := backups(t, dir)
	if len(b) != 1 {
		t.Fatalf("want one backup, got %v", b)
	}
	if saved, _ := os.ReadFile(b[0]); string(saved) != originalSettings {
		t.Errorf("the backup must hold the original bytes")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode must be kept: %v", info.Mode())
	}

	// Twice: nothing changes, no second backup.
	out, _, code = runCLI(t, "install", "--bin", testBin)
	if again, _ := os.ReadFile(path); code != 0 || !bytes.Equal(again, installed) || !strings.Contains(out, "already installed") {
		t.Errorf("a second install changed something (exit %d): %q", code, out)
	}
	if b := backups(t, dir); len(b) != 1 {
		t.Errorf("a second install must not back up again: %v", b)
	}

	// A reinstall from another binary path replaces mneme's entries.
	runCLI(t, "install", "--bin", "/usr/local/bin/mneme")
	moved, _ := os.ReadFile(path)
	if bytes.Contains(moved, []byte(testBin)) || bytes.Count(moved, []byte("/usr/local/bin/mneme hook")) != len(mnemeHooks) {
		t.Errorf("reinstall from a new path: %s", moved)
	}

	// Uninstall removes exactly what install added.
	out, errs, code = runCLI(t, "uninstall")
	if code != 0 || !strings.Contains(out, "Removed mneme's hooks") {
		t.Fatalf("uninstall exited %d: %q %q", code, out, errs)
	}
	after, _ := os.ReadFile(path)
	if !reflect.DeepEqual(decode(t, after), decode(t, []byte(originalSettings))) {
		t.Errorf("after uninstall the settings differ from the original:\n%s", after)
	}
	out, _, _ = runCLI(t, "uninstall")
	if !strings.Contains(out, "nothing to do") {
		t.Errorf("a second uninstall: %q", out)
	}
}

func TestInstallNewFileAndProject(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if _, errs, code := runCLI(t, "install", "--bin", testBin); code != 0 {
		t.Fatalf("install without a settings file: %s", errs)
	}
	path := filepath.Join(home, ".claude", "settings.json")
	s := decode(t, mustRead(t, path))
	if len(s["hooks"].(map[string]any)) != len(mnemeHooks) {
		t.Errorf("new file: %v", s)
	}
	if b := backups(t, filepath.Dir(path)); len(b) != 0 {
		t.Errorf("nothing to back up for a new file: %v", b)
	}
	runCLI(t, "uninstall")
	if raw, err := os.ReadFile(path); !os.IsNotExist(err) {
		t.Errorf("uninstall of a fresh install leaves the file it created: %v %s", err, raw)
	}

	// --settings writes the named file; a non-default port travels along.
	custom := filepath.Join(t.TempDir(), "proj", ".claude", "settings.json")
	if _, errs, code := runCLI(t, "--port", "38888", "install", "--bin", testBin, "--settings", custom); code != 0 {
		t.Fatalf("install --settings: %s", errs)
	}
	if b := mustRead(t, custom); !bytes.Contains(b, []byte(testBin+" --port 38888 hook session-start")) {
		t.Errorf("custom port not carried: %s", b)
	}
}

func TestInstallRefusesInvalidJSON(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := filepath.Join(home, ".claude")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "settings.json")
	broken := []byte(`{"model": "opus", "hooks": {`)
	os.WriteFile(path, broken, 0o644)
	for _, cmd := range []string{"install", "uninstall"} {
		_, errs, code := runCLI(t, cmd, "--bin", testBin)
		if cmd == "uninstall" {
			_, errs, code = runCLI(t, cmd)
		}
		if code == 0 || !strings.Contains(errs, "not valid JSON") {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, errs)
		}
		if b := mustRead(t, path); !bytes.Equal(b, broken) {
			t.Errorf("%s touched an invalid file: %s", cmd, b)
		}
		if b := backups(t, dir); len(b) != 0 {
			t.Errorf("%s wrote a backup: %v", cmd, b)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// With mneme-hook beside mneme (make build's layout), install makes Claude
// Code run mneme-hook. It replaces the `mneme hook` entries of an older
// install, is idempotent, and uninstall still restores the original file.
func TestInstallUsesMnemeHookBeside(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(originalSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "my bin") // a space: the path is quoted
	os.MkdirAll(dir, 0o755)
	for _, name := range []string{"mneme", "mneme-hook"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mneme, hook := filepath.Join(dir, "mneme"), filepath.Join(dir, "mneme-hook")

	// An older install wrote `<mneme> hook <event>`.
	if _, errs, code := runCLI(t, "install", "--bin", testBin); code != 0 {
		t.Fatalf("install: %s", errs)
	}
	if _, errs, code := runCLI(t, "--port", "38888", "install", "--bin", mneme); code != 0 {
		t.Fatalf("install beside mneme-hook: %s", errs)
	}
	installed := mustRead(t, path)
	commands := hookCommands(t, installed)
	if len(commands) != len(mnemeHooks)+2 { // and the user's own two
		t.Fatalf("want %d hooks, got %q", len(mnemeHooks)+2, commands)
	}
	for _, spec := range mnemeHooks {
		want := shellQuote(hook) + " --port 38888 " + spec.Slug
		if !slices.Contains(commands, want) {
			t.Errorf("%s: no %q in %q", spec.Event, want, commands)
		}
	}
	if bytes.Contains(installed, []byte(testBin)) {
		t.Errorf("the older install's entries must be replaced: %s", installed)
	}
	// mneme-hook itself may be named with --bin.
	out, _, _ := runCLI(t, "--port", "38888", "install", "--bin", hook)
	if !strings.Contains(out, "already installed") || !bytes.Equal(mustRead(t, path), installed) {
		t.Errorf("a second install changed something: %q", out)
	}

	// Without mneme-hook beside it, install falls back to `mneme hook`.
	os.Remove(hook)
	runCLI(t, "install", "--bin", mneme)
	for _, spec := range mnemeHooks {
		if want := shellQuote(mneme) + " hook " + spec.Slug; !slices.Contains(hookCommands(t, mustRead(t, path)), want) {
			t.Errorf("%s: no %q", spec.Event, want)
		}
	}

	if out, errs, code := runCLI(t, "uninstall"); code != 0 || !strings.Contains(out, "Removed") {
		t.Fatalf("uninstall: %q %q", out, errs)
	}
	if after := mustRead(t, path); !reflect.DeepEqual(decode(t, after), decode(t, []byte(originalSettings))) {
		t.Errorf("after uninstall the settings differ from the original:\n%s", after)
	}
}

// isMnemeHook recognises what every install wrote, and nothing else.
func TestIsMnemeHook(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/opt/mneme/bin/mneme hook post-tool-use":                   true,
		"mneme hook stop":                                           true,
		"'/a b/mneme' --port 1 hook stop":                           true,
		"/x/mneme-hook post-tool-use":                               true,
		"mneme-hook session-start":                                  true,
		"'/a b/mneme-hook' --data-dir '/d '\\''x'\\''' session-end": true,
		"/x/mneme-hook --port 38888 hook stop":                      true,
		"/x/mneme-hook --help":                                      false,
		"/x/mneme-hook":                                             false,
		"/x/mneme serve":                                            false,
		"/x/notmneme hook stop":                                     false,
		"prettier --write":                                          false,
		"":                                                          false,
	} {
		if got := isMnemeHook(cmd); got != want {
			t.Errorf("isMnemeHook(%q) = %v, want %v", cmd, got, want)
		}
	}
	if got := shellFields(shellQuote("/it's here/mneme-hook") + " stop"); len(got) != 2 || got[0] != "/it's here/mneme-hook" {
		t.Errorf("shellFields does not undo shellQuote: %q", got)
	}
}

// hookCommands lists every hook command in a settings file.
func hookCommands(t *testing.T, raw []byte) []string {
	t.Helper()
	var out []string
	for _, groups := range decode(t, raw)["hooks"].(map[string]any) {
		for _, g := range groups.([]any) {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				if c, ok := h.(map[string]any)["command"].(string); ok {
					out = append(out, c)
				}
			}
		}
	}
	return out
}
