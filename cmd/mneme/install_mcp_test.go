package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/commands"
)

// claudeJSON is a ~/.claude.json as Claude Code keeps it, with a number
// float64 would round and another MCP server.
const claudeJSON = `{
  "firstStartTime": "2026-11-25T07:41:35.254Z",
  "numStartups": 12,
  "tipsHistory": {"memory": 9007199254740993},
  "mcpServers": {
    "github": {"type": "stdio", "command": "npx", "args": ["-y", "@github/mcp"], "env": {"X": "1"}}
  }
}
`

func TestInstallRegistersMCPServerAndCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := filepath.Join(home, ".claude.json")
	os.WriteFile(cfg, []byte(claudeJSON), 0o600)
	cmdFile := filepath.Join(home, ".claude", "commands", "mem-search.md")

	out, errs, code := runCLI(t, "--port", "38888", "--data-dir", "/srv/mneme data", "install", "--bin", testBin)
	if code != 0 {
		t.Fatalf("install: %d %s", code, errs)
	}
	if !strings.Contains(out, `Registered the MCP server "mneme" in `+cfg) || !strings.Contains(out, "Installed the /mem-search command") {
		t.Errorf("install output:\n%s", out)
	}
	raw, _ := os.ReadFile(cfg)
	if !strings.Contains(string(raw), "9007199254740993") {
		t.Errorf("a number of Claude Code's was rewritten:\n%s", raw)
	}
	servers := decode(t, raw)["mcpServers"].(map[string]any)
	want := map[string]any{"type": "stdio", "command": testBin, "args": []any{"--port", "38888", "--data-dir", "/srv/mneme data", "mcp"}, "env": map[string]any{}}
	if !reflect.DeepEqual(servers["mneme"], want) || servers["github"] == nil {
		t.Errorf("mcpServers: %s", mustJSON(servers))
	}
	if info, _ := os.Stat(cfg); info.Mode().Perm() != 0o600 {
		t.Errorf("~/.claude.json mode %v, want it kept at 0600", info.Mode().Perm())
	}
	if b, err := os.ReadFile(cmdFile); err != nil || string(b) != commands.MemSearch {
		t.Errorf("/mem-search not written: %v", err)
	}

	// Again: nothing changes.
	before, _ := filepath.Glob(cfg + ".mneme-backup-*")
	out, _, _ = runCLI(t, "--port", "38888", "--data-dir", "/srv/mneme data", "install", "--bin", testBin)
	if after, _ := filepath.Glob(cfg + ".mneme-backup-*"); len(after) != len(before) || strings.Contains(out, "Registered") || strings.Contains(out, "/mem-search") {
		t.Errorf("a second install changed something:\n%s", out)
	}

	out, errs, code = runCLI(t, "uninstall")
	if code != 0 || !strings.Contains(out, `Removed the MCP server "mneme"`) || !strings.Contains(out, "Removed /mem-search") {
		t.Fatalf("uninstall: %d %s\n%s", code, errs, out)
	}
	raw, _ = os.ReadFile(cfg)
	if !reflect.DeepEqual(decode(t, raw), decode(t, []byte(claudeJSON))) || !strings.Contains(string(raw), "9007199254740993") {
		t.Errorf("uninstall did not restore ~/.claude.json:\n%s", raw)
	}
	if _, err := os.Stat(cmdFile); !os.IsNotExist(err) {
		t.Errorf("/mem-search left behind: %v", err)
	}
}

// A server named mneme and a mem-search.md that are the user's own are
// never replaced or removed.
func TestInstallLeavesForeignMCPServerAndCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := filepath.Join(home, ".claude.json")
	foreign := `{"mcpServers": {"mneme": {"command": "npx", "args": ["some-other-mneme"]}}}`
	os.WriteFile(cfg, []byte(foreign), 0o644)
	cmdFile := filepath.Join(home, ".claude", "commands", "mem-search.md")
	os.MkdirAll(filepath.Dir(cmdFile), 0o755)
	os.WriteFile(cmdFile, []byte("my own command\n"), 0o644)

	out, errs, code := runCLI(t, "install", "--bin", testBin)
	if code != 0 || !strings.Contains(out, "MCP server not registered") || !strings.Contains(out, "/mem-search not installed") {
		t.Errorf("install over foreign entries: %d %s\n%s", code, errs, out)
	}
	runCLI(t, "uninstall")
	if b, _ := os.ReadFile(cfg); string(b) != foreign {
		t.Errorf("the user's mneme server changed: %s", b)
	}
	if b, _ := os.ReadFile(cmdFile); string(b) != "my own command\n" {
		t.Errorf("the user's mem-search.md changed: %s", b)
	}
}

// --project registers the server in the project's .mcp.json and the
// command in its .claude/commands.
func TestInstallProjectMCPServer(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	proj := t.TempDir()
	t.Chdir(proj)
	if _, errs, code := runCLI(t, "install", "--project", "--bin", filepath.Join(filepath.Dir(testBin), "mneme-hook")); code != 0 {
		t.Fatalf("install --project: %s", errs)
	}
	raw, err := os.ReadFile(filepath.Join(proj, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Installed from mneme-hook's path, the server is still mneme's.
	if s := decode(t, raw)["mcpServers"].(map[string]any)["mneme"].(map[string]any); s["command"] != testBin || !reflect.DeepEqual(s["args"], []any{"mcp"}) {
		t.Errorf(".mcp.json: %s", raw)
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude", "commands", "mem-search.md")); err != nil {
		t.Error(err)
	}
	runCLI(t, "uninstall", "--project")
	// install made .mcp.json and .claude/commands: uninstall removes them.
	if raw, err := os.ReadFile(filepath.Join(proj, ".mcp.json")); !os.IsNotExist(err) {
		t.Errorf(".mcp.json after uninstall: %v %s", err, raw)
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude")); !os.IsNotExist(err) {
		t.Errorf(".claude after uninstall: %v", err)
	}
}

// With --settings, the server and the command go beside it when it is some
// <dir>/.claude/settings.json (dir's .claude.json and .claude/commands),
// and nowhere otherwise: never into the HOME of whoever runs it.
func TestInstallSettingsFlagPlacesMCPServer(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	other := t.TempDir()
	out, errs, code := runCLI(t, "install", "--bin", testBin, "--settings", filepath.Join(other, "custom.json"))
	if code != 0 || !strings.Contains(out, "The MCP server and /mem-search were not installed") {
		t.Errorf("install --settings custom.json: %d %s\n%s", code, errs, out)
	}
	for _, p := range []string{filepath.Join(home, ".claude.json"), filepath.Join(other, ".claude.json"), filepath.Join(home, ".claude", "commands")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was written", p)
		}
	}

	elsewhere := filepath.Join(t.TempDir(), "home2")
	settings := filepath.Join(elsewhere, ".claude", "settings.json")
	if _, errs, code := runCLI(t, "install", "--bin", testBin, "--settings", settings); code != 0 {
		t.Fatalf("install --settings %s: %s", settings, errs)
	}
	if raw, err := os.ReadFile(filepath.Join(elsewhere, ".claude.json")); err != nil || !isMnemeServer(decode(t, raw)["mcpServers"].(map[string]any)["mneme"]) {
		t.Errorf("%s/.claude.json: %s %v", elsewhere, raw, err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, ".claude", "commands", "mem-search.md")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Error("HOME's .claude.json was written")
	}
	runCLI(t, "uninstall", "--settings", settings)
	if _, err := os.Stat(filepath.Join(elsewhere, ".claude", "commands", "mem-search.md")); !os.IsNotExist(err) {
		t.Error("uninstall --settings left /mem-search")
	}
}
