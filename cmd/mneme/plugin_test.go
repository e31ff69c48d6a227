package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/commands"
)

// The plugin's hooks/hooks.json must register exactly the hooks `mneme
// install` writes: same events, matchers and timeouts, command
// `mneme-hook <event>` (the fast hook binary, found on PATH), and ship the
// MCP server and /mem-search as install does.
func TestPluginHooksInSyncWithInstall(t *testing.T) {
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
		if g.Matcher != spec.Matcher || h.Type != "command" || h.Command != "mneme-hook "+spec.Slug || !isMnemeHook(h.Command) || h.Timeout != spec.Timeout {
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
	// The plugin starts the MCP server as install registers it, found on
	// PATH; its commands/ directory holds what install writes.
	if s := m.MCPServers[mcpServerName]; !isMnemeServer(s) || s["command"] != "mneme" {
		t.Errorf("plugin.json mcpServers: %v", m.MCPServers)
	}
	if b, err := os.ReadFile(filepath.Join(repoRoot(), "commands", commands.MemSearchName)); err != nil || !isMnemeCommand(b) || string(b) != commands.MemSearch {
		t.Errorf("commands/%s: %v", commands.MemSearchName, err)
	}
}
