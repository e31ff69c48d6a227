package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/commands"
)

// The plugin's hooks/hooks.json must register exactly the hooks `mneme
// install` writes: same events, matchers and timeouts, command
// `mneme-hook <event>` (the fast hook binary, through scripts/run.sh, which
// finds it in the plugin's bin/ or on PATH), and ship the MCP server and
// /mem-search as install does.
func TestPluginHooksInSyncWithInstall(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("hooks/hooks.json: %v", err)
	}
	if len(doc.Hooks) != len(mnemeHooks) {
		t.Errorf("hooks.json has %d events, install has %d", len(doc.Hooks), len(mnemeHooks))
	}
	for _, spec := range mnemeHooks {
		groups := doc.Hooks[spec.Event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: want one group with one hook, got %+v", spec.Event, groups)
			continue
		}
		g, h := groups[0], groups[0].Hooks[0]
		if g.Matcher != spec.Matcher || h.Type != "command" || h.Command != pluginRun+" mneme-hook "+spec.Slug || h.Timeout != spec.Timeout {
			t.Errorf("%s: matcher %q command %q timeout %d; install has matcher %q slug %s timeout %d",
				spec.Event, g.Matcher, h.Command, h.Timeout, spec.Matcher, spec.Slug, spec.Timeout)
		}
	}

	manifest, err := os.ReadFile(filepath.Join(repoRoot(), ".claude-plugin", "plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name, Version, Description string
		Author                     struct{ Name string }
		MCPServers                 map[string]map[string]any
	}
	if err := json.Unmarshal(manifest, &m); err != nil || m.Name != "mneme" || m.Version == "" || m.Description == "" || m.Author.Name == "" {
		t.Errorf(".claude-plugin/plugin.json: %+v %v", m, err)
	}
	// The plugin starts the MCP server as install registers it (mneme mcp),
	// through scripts/run.sh; its commands/ directory holds what install
	// writes.
	if s := m.MCPServers[mcpServerName]; s["command"] != "sh" || fmt.Sprint(s["args"]) != "[${CLAUDE_PLUGIN_ROOT}/scripts/run.sh mneme mcp]" {
		t.Errorf("plugin.json mcpServers: %v", m.MCPServers)
	}
	if b, err := os.ReadFile(filepath.Join(repoRoot(), "commands", commands.MemSearchName)); err != nil || !isMnemeCommand(b) || string(b) != commands.MemSearch {
		t.Errorf("commands/%s: %v", commands.MemSearchName, err)
	}
}

// pluginRun is how the plugin's hooks start a binary.
const pluginRun = `sh "${CLAUDE_PLUGIN_ROOT}/scripts/run.sh"`

// TestPluginRunScript: scripts/run.sh runs the plugin's bin/ copy first,
// then (when the plugin cannot install its own: here it records no
// checksum, see plugin_bootstrap_test.go) the one on PATH, and with
// neither, a hook answers Claude Code (one line at session start saying
// why and how to install mneme, a quiet continue otherwise) and exits 0,
// while the MCP server says it and fails.
func TestPluginRunScript(t *testing.T) {
	t.Parallel()
	tools := bootTools(t, true)
	script := filepath.Join(repoRoot(), "scripts", "run.sh")
	plugin, onPath, empty := t.TempDir(), t.TempDir(), t.TempDir()
	fake := func(dir, name, says string) {
		os.MkdirAll(filepath.Join(dir), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho "+says+" \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fake(filepath.Join(plugin, "bin"), "mneme-hook", "plugin-bin")
	fake(onPath, "mneme-hook", "path-bin")
	run := func(root, path string, args ...string) (string, string, int) {
		cmd := exec.Command(filepath.Join(tools, "sh"), append([]string{script}, args...)...)
		cmd.Env = []string{"CLAUDE_PLUGIN_ROOT=" + root, "PATH=" + path, "MNEME_DOWNLOAD_URL=http://127.0.0.1:1"}
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"SessionStart"}`)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out.String()), strings.TrimSpace(errb.String()), code
	}
	if out, _, code := run(plugin, onPath+":"+tools, "mneme-hook", "stop"); out != "plugin-bin stop" || code != 0 {
		t.Errorf("with bin/: %q %d", out, code)
	}
	if out, _, code := run(empty, onPath+":"+tools, "mneme-hook", "stop"); out != "path-bin stop" || code != 0 {
		t.Errorf("from PATH: %q %d", out, code)
	}
	out, _, code := run(empty, tools, "mneme-hook", "session-start")
	var msg struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &msg); err != nil || code != 0 || msg.HookSpecificOutput.HookEventName != "SessionStart" ||
		!strings.Contains(msg.HookSpecificOutput.AdditionalContext, "go install github.com/mneme-dev/mneme/cmd/...@latest") {
		t.Errorf("session-start with no mneme-hook: %q %d %v", out, code, err)
	}
	if out, _, code := run(empty, tools, "mneme-hook", "post-tool-use"); out != `{"continue":true,"suppressOutput":true}` || code != 0 {
		t.Errorf("post-tool-use with no mneme-hook: %q %d", out, code)
	}
	if out, stderr, code := run(empty, tools, "mneme", "mcp"); out != "" || code != 1 || !strings.Contains(stderr, "go install") {
		t.Errorf("mcp with no mneme: %q %q %d", out, stderr, code)
	}
}

// TestPluginValidates runs the pinned Claude Code's own validator on the
// repository with the plugin directory's profile: the marketplace, the
// plugin manifest (license, icon, network.hosts), hooks and MCP server
// must pass what the directory would refuse a submission for.
func TestPluginValidates(t *testing.T) {
	t.Parallel()
	claude := pinnedClaude()
	if claude == "" {
		t.Skip("Claude Code is not installed (make test-deps installs it)")
	}
	for _, target := range []string{".", filepath.Join(".claude-plugin", "plugin.json")} {
		cmd := exec.Command(claude, "plugin", "validate", "--profile", "directory", target)
		cmd.Dir = repoRoot()
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("Validation passed")) {
			t.Errorf("claude plugin validate --profile directory %s: %v\n%s", target, err, out)
		}
	}
}

// pinnedClaude is the Claude Code binary: $MNEME_CLAUDE_BIN, else the one
// e2e/install-claude.sh puts under .cache, else claude on PATH; "" if none.
func pinnedClaude() string {
	if p := os.Getenv("MNEME_CLAUDE_BIN"); p != "" {
		return p
	}
	cached, _ := filepath.Glob(filepath.Join(repoRoot(), ".cache", "claude-code", "node_modules", "@anthropic-ai", "claude-code-*", "claude"))
	if len(cached) > 0 {
		return cached[0]
	}
	p, _ := exec.LookPath("claude")
	return p
}
