package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mneme-dev/mneme/commands"
	"github.com/mneme-dev/mneme/internal/mcp"
)

// mcpServerName is the name mneme's MCP server is registered under: its
// tools are mcp__mneme__search and so on.
const mcpServerName = "mneme"

// claudeTargets are the files beside the settings that install also
// writes: where Claude Code reads MCP servers (user scope: ~/.claude.json;
// project scope: .mcp.json) and its slash commands.
type claudeTargets struct {
	mcpConfig   string
	commandsDir string
}

// claudeTargetsFor finds them for the user (base = the home directory) or
// a project (base = its directory).
func claudeTargetsFor(base string, project bool) claudeTargets {
	t := claudeTargets{mcpConfig: filepath.Join(base, ".claude.json"), commandsDir: filepath.Join(base, ".claude", "commands")}
	if project {
		t.mcpConfig = filepath.Join(base, ".mcp.json")
	}
	return t
}

// claudeTargetsBeside finds them for a settings file named on the command
// line: when it is <base>/.claude/settings.json, those of base; otherwise
// none (ok false), since nothing says where the user's Claude Code looks.
func claudeTargetsBeside(settings string, project bool) (t claudeTargets, ok bool) {
	abs, err := filepath.Abs(settings)
	if err != nil || filepath.Base(filepath.Dir(abs)) != ".claude" {
		return t, false
	}
	return claudeTargetsFor(filepath.Dir(filepath.Dir(abs)), project), true
}

// mcpServerEntry is how Claude Code starts mneme's MCP server: the mneme
// binary (not mneme-hook) with the install's port and data directory.
func mcpServerEntry(g *globals, bin string) map[string]any {
	if isHookBin(bin) {
		bin = filepath.Join(filepath.Dir(bin), "mneme")
	}
	var args []any
	if g.port != DefaultPort {
		args = append(args, "--port", strconv.Itoa(g.port))
	}
	if g.dataDir != defaultDataDir() {
		args = append(args, "--data-dir", g.dataDir)
	}
	return map[string]any{"type": "stdio", "command": bin, "args": append(args, "mcp"), "env": map[string]any{}}
}

// isMnemeServer recognises the entry install wrote, whatever binary path
// and flags: a mneme binary run with "mcp" last.
func isMnemeServer(v any) bool {
	m, _ := v.(map[string]any)
	cmd, _ := m["command"].(string)
	args, _ := m["args"].([]any)
	return strings.TrimSuffix(filepath.Base(cmd), ".exe") == "mneme" && len(args) > 0 && args[len(args)-1] == "mcp"
}

// installMCPServer registers mneme's MCP server in path's mcpServers. An
// entry of that name that mneme did not write is left alone (and said so).
func installMCPServer(path string, entry map[string]any) (changed bool, err error) {
	obj, raw, err := readSettings(path)
	if err != nil {
		return false, err
	}
	servers, _ := obj["mcpServers"].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
		obj["mcpServers"] = servers
	}
	if old, ok := servers[mcpServerName]; ok && !isMnemeServer(old) {
		return false, fmt.Errorf("%s already has an MCP server named %q that mneme did not install; left as it is", path, mcpServerName)
	}
	servers[mcpServerName] = entry
	changed, _, err = writeSettings(path, raw, obj)
	return changed, err
}

// uninstallMCPServer removes the entry install wrote, and nothing else.
func uninstallMCPServer(path string) (bool, error) {
	obj, raw, err := readSettings(path)
	if err != nil || raw == nil {
		return false, err
	}
	servers, _ := obj["mcpServers"].(map[string]any)
	if !isMnemeServer(servers[mcpServerName]) {
		return false, nil
	}
	delete(servers, mcpServerName)
	if len(servers) == 0 {
		delete(obj, "mcpServers")
	}
	changed, _, err := writeSettings(path, raw, obj)
	return changed, err
}

// installSlashCommand writes /mem-search into dir. A file of that name
// that is not mneme's (it lacks the marker line) is left alone.
func installSlashCommand(dir string) (changed bool, err error) {
	path := filepath.Join(dir, commands.MemSearchName)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && string(old) == commands.MemSearch:
		return false, nil
	case err == nil && !isMnemeCommand(old):
		return false, fmt.Errorf("%s exists and is not mneme's; left as it is", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	tmp := path + ".mneme-tmp"
	if err := os.WriteFile(tmp, []byte(commands.MemSearch), 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, path)
}

// uninstallSlashCommand removes /mem-search if it is mneme's.
func uninstallSlashCommand(dir string) (bool, error) {
	path := filepath.Join(dir, commands.MemSearchName)
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !isMnemeCommand(old)) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := os.Remove(path); err != nil {
		return false, err
	}
	// The directory install made for it goes too when nothing else is in
	// it (os.Remove leaves a directory that is not empty).
	os.Remove(dir)
	return true, nil
}

// isMnemeCommand tells a /mem-search file mneme wrote (this version's or
// an earlier one's) from a user's own: it calls mneme's search tool.
func isMnemeCommand(b []byte) bool {
	return bytes.Contains(b, []byte("mcp__mneme__search")) && bytes.Contains(b, []byte("--layer"))
}

// installExtras registers the MCP server and /mem-search for t, reporting
// each on out; a part that cannot be installed is reported, not fatal.
func installExtras(out func(string, ...any), t claudeTargets, entry map[string]any) {
	if changed, err := installMCPServer(t.mcpConfig, entry); err != nil {
		out("MCP server not registered: %v\n", err)
	} else if changed {
		out("Registered the MCP server %q in %s (tools: %s)\n", mcpServerName, t.mcpConfig, strings.Join(mcp.ToolNames, ", "))
	}
	if changed, err := installSlashCommand(t.commandsDir); err != nil {
		out("/mem-search not installed: %v\n", err)
	} else if changed {
		out("Installed the /mem-search command in %s\n", t.commandsDir)
	}
}

// uninstallExtras removes what installExtras added.
func uninstallExtras(out func(string, ...any), t claudeTargets) error {
	changed, err := uninstallMCPServer(t.mcpConfig)
	if err != nil {
		return err
	}
	if changed {
		out("Removed the MCP server %q from %s\n", mcpServerName, t.mcpConfig)
	}
	if changed, err = uninstallSlashCommand(t.commandsDir); err != nil {
		return err
	}
	if changed {
		out("Removed /mem-search from %s\n", t.commandsDir)
	}
	return nil
}
