//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The MCP server under real Claude Code: `mneme install` registered it in
// ~/.claude.json, Claude Code starts `mneme mcp`, the scripted model calls
// its tools, and what the tools answered comes back in the next model
// request as tool_result blocks.

// mcpTools are the --allowedTools of these runs: the MCP tools by their
// Claude Code names, nothing else.
const mcpTools = "mcp__mneme__search,mcp__mneme__timeline,mcp__mneme__get_observations,mcp__mneme__recent_sessions"

// mcpResult is one tool_result block of a model request.
type mcpResult struct {
	Text    string
	IsError bool
}

// mcpResults returns a request body's tool_result blocks by tool_use_id,
// their content as text.
func mcpResults(t testing.TB, body []byte) map[string]mcpResult {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	out := map[string]mcpResult{}
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			var sb strings.Builder
			appendContent(&sb, b.Content)
			out[b.ToolUseID] = mcpResult{Text: sb.String(), IsError: b.IsError}
		}
	}
	return out
}

// mcpRun runs Claude Code with the MCP tools allowed and returns, for each
// scripted tool call in order, the tool_result Claude Code sent back, and
// the text of the first model request.
func mcpRun(t *testing.T, m *Mneme, project, prompt string, steps ...Step) ([]mcpResult, string) {
	t.Helper()
	fake := NewFakeAPI(t, steps...)
	res := RunClaude(context.Background(), t, ClaudeOptions{
		Bin: ClaudeBin(t), Home: m.Home, Dir: project, BaseURL: fake.URL, Prompt: prompt,
		Args:    []string{"--allowedTools", mcpTools, "--output-format", "json"},
		Timeout: claudeRunTimeout,
	})
	if res.TimedOut || res.ExitCode != 0 || res.JSON == nil || res.JSON.IsError {
		t.Fatalf("claude failed: exit %d, timed out %v, json %+v\nstdout: %s\nstderr: %s", res.ExitCode, res.TimedOut, res.JSON, res.Stdout, res.Stderr)
	}
	ids := fake.ToolUseIDs()
	var bodies [][]byte
	for _, r := range fake.ToolRequests() {
		bodies = append(bodies, r.Body)
	}
	out := make([]mcpResult, len(ids))
	for i, id := range ids {
		found := false
		for _, b := range bodies {
			if r, ok := mcpResults(t, b)[id]; ok {
				out[i], found = r, true
				break
			}
		}
		if !found {
			t.Fatalf("no tool_result for %s (%s) in any model request", id, steps[i].Tool)
		}
	}
	return out, RequestText(fake.FirstToolRequestBody())
}

func TestClaudeCodeMCPTools(t *testing.T) {
	ClaudeBin(t)
	m := NewMneme(t)
	m.Serve(t)
	project := NewProject(t, "notes-app")
	_, sid := runSession1(t, m, project)
	m.WaitSettled(t, sid)

	// The ids the tools will be asked about, from the API.
	var found struct {
		Items []struct {
			ID    int64  `json:"id"`
			Title string `json:"title"`
		} `json:"items"`
	}
	m.GetJSON(t, "/api/search?type=observation&q="+url.QueryEscape(`"nonexistent-dir"`), &found)
	if len(found.Items) != 1 {
		t.Fatalf("the ls failure: %+v", found.Items)
	}
	lsID := found.Items[0].ID

	results, first := mcpRun(t, m, project, "what do you remember about the notes?",
		ToolUse("mcp__mneme__search", map[string]any{"query": "notes.md", "type": "observation", "maxTokens": 400}),
		ToolUse("mcp__mneme__timeline", map[string]any{"anchor": lsID, "before": 1, "after": 1}),
		ToolUse("mcp__mneme__get_observations", map[string]any{"ids": []int64{lsID}}),
		ToolUse("mcp__mneme__recent_sessions", map[string]any{}),
		ToolUse("mcp__mneme__search", map[string]any{"query": `"unbalanced`}),
		Text("done"),
	)
	search, timeline, get, recent, bad := results[0], results[1], results[2], results[3], results[4]
	if search.IsError || !regexp.MustCompile(`(?m)^#\d+  \d{4}-\d\d-\d\d \d\d:\d\d  file_change  Created notes\.md`).MatchString(search.Text) ||
		len(search.Text) > 400*4 || !strings.Contains(search.Text, "Next: timeline anchor=") {
		t.Errorf("search's tool_result:\n%s", search.Text)
	}
	if timeline.IsError || !strings.Contains(timeline.Text, fmt.Sprintf(">> #%d  ", lsID)) || !strings.Contains(timeline.Text, "echo hello-from-fake") {
		t.Errorf("timeline's tool_result:\n%s", timeline.Text)
	}
	if get.IsError || !strings.Contains(get.Text, fmt.Sprintf("#%d  ", lsID)) || !strings.Contains(get.Text, "FAILED") || !strings.Contains(get.Text, "No such file or directory") {
		t.Errorf("get_observations' tool_result:\n%s", get.Text)
	}
	if recent.IsError || !strings.Contains(recent.Text, "Latest sessions of notes-app") || !strings.Contains(recent.Text, session1Words) {
		t.Errorf("recent_sessions' tool_result:\n%s", recent.Text)
	}
	if !bad.IsError || !strings.Contains(bad.Text, "not closed") {
		t.Errorf("bad FTS syntax: want an error tool_result, got %+v", bad)
	}
	for i, r := range results {
		assertNoSecrets(t, fmt.Sprintf("tool_result %d", i), r.Text)
	}
	// Claude Code 2.1.330 defers MCP tools behind ToolSearch: their names
	// are listed to the model, and the server's instructions reach it.
	if !strings.Contains(first, "mcp__mneme__search") || !strings.Contains(first, "1. search: an index") {
		t.Errorf("the first model request lists no mneme tools or lacks the server's instructions")
	}
	t.Logf("search answered Claude Code:\n%s", search.Text)

	// /mem-search, installed into ~/.claude/commands, expands into the
	// prompt with its arguments, and its layer-1 search runs.
	results, first = mcpRun(t, m, project, "/mem-search --layer 1 notes.md",
		ToolUse("mcp__mneme__search", map[string]any{"query": "notes.md"}),
		Text("done"),
	)
	if !strings.Contains(first, "Arguments: `--layer 1 notes.md`") || !strings.Contains(first, "Layer 2, the timeline") {
		t.Errorf("the /mem-search command did not reach the model expanded:\n%s", first)
	}
	if results[0].IsError || !strings.Contains(results[0].Text, "Created notes.md") {
		t.Errorf("/mem-search's search: %+v", results[0])
	}
}

// The other two ways Claude Code gets the server: the plugin (this
// repository as --plugin-dir, `mneme` found on PATH, tools named
// mcp__plugin_mneme_mneme__*) and an explicit --strict-mcp-config
// --mcp-config, both in a HOME where nothing was installed.
func TestClaudeCodeMCPPluginAndConfigFlag(t *testing.T) {
	bin := ClaudeBin(t)
	m := NewMneme(t)
	m.Serve(t)
	project := NewProject(t, "notes-app")
	_, sid := runSession1(t, m, project)
	m.WaitSettled(t, sid)
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The plugin's hooks and server run `mneme-hook` and `mneme` from PATH
	// with the installation's worker from the environment.
	env := []string{PathEnv(filepath.Dir(m.Bin)), "MNEME_PORT=" + strconv.Itoa(m.Port), "MNEME_DATA_DIR=" + m.DataDir}
	search := func(t *testing.T, tool string, args ...string) {
		fake := NewFakeAPI(t, ToolUse(tool, map[string]any{"query": "notes.md", "type": "observation"}), Text("done"))
		res := RunClaude(context.Background(), t, ClaudeOptions{
			Bin: bin, Home: NewHome(t), Dir: project, BaseURL: fake.URL, Prompt: "search the memory",
			Args: append(args, "--allowedTools", tool, "--output-format", "json"), ExtraEnv: env, Timeout: claudeRunTimeout,
		})
		if res.ExitCode != 0 || res.JSON == nil || res.JSON.IsError {
			t.Fatalf("claude: exit %d %+v\n%s", res.ExitCode, res.JSON, res.Stderr)
		}
		reqs := fake.ToolRequests()
		ids := fake.ToolUseIDs()
		if len(reqs) < 2 || len(ids) != 1 {
			t.Fatalf("%d model requests, tool calls %v", len(reqs), ids)
		}
		r, ok := mcpResults(t, reqs[1].Body)[ids[0]]
		if !ok || r.IsError || !strings.Contains(r.Text, "Created notes.md") {
			t.Errorf("%s's tool_result: %+v (first request lists it: %v)", tool, r, strings.Contains(RequestText(reqs[0].Body), tool))
		}
	}
	t.Run("plugin", func(t *testing.T) {
		search(t, "mcp__plugin_mneme_mneme__search", "--plugin-dir", root)
	})
	t.Run("mcp-config", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "mcp.json")
		b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"mneme": map[string]any{
			"command": m.Bin, "args": []string{"--port", strconv.Itoa(m.Port), "--data-dir", m.DataDir, "mcp"}}}})
		if err := os.WriteFile(cfg, b, 0o644); err != nil {
			t.Fatal(err)
		}
		search(t, "mcp__mneme__search", "--strict-mcp-config", "--mcp-config", cfg)
	})
}

// The path a real model takes in Claude Code 2.1.330, where MCP tools are
// deferred: it first loads the tool's schema with ToolSearch
// ("select:<name>"), then calls it. After the ToolSearch call the next model
// request carries mneme's search tool, and its call answers.
func TestClaudeCodeMCPToolSearch(t *testing.T) {
	bin := ClaudeBin(t)
	m := NewMneme(t)
	m.Serve(t)
	project := NewProject(t, "notes-app")
	_, sid := runSession1(t, m, project)
	m.WaitSettled(t, sid)

	fake := NewFakeAPI(t,
		ToolUse("ToolSearch", map[string]any{"query": "select:mcp__mneme__search"}),
		ToolUse("mcp__mneme__search", map[string]any{"query": "notes.md", "type": "observation"}),
		Text("done"),
	)
	res := RunClaude(context.Background(), t, ClaudeOptions{
		Bin: bin, Home: m.Home, Dir: project, BaseURL: fake.URL, Prompt: "what do you remember about the notes?",
		Args:    []string{"--allowedTools", "ToolSearch," + mcpTools, "--output-format", "json"},
		Timeout: claudeRunTimeout,
	})
	if res.ExitCode != 0 || res.JSON == nil || res.JSON.IsError {
		t.Fatalf("claude: exit %d %+v\n%s", res.ExitCode, res.JSON, res.Stderr)
	}
	reqs, ids := fake.ToolRequests(), fake.ToolUseIDs()
	if len(reqs) < 3 || len(ids) != 2 {
		t.Fatalf("%d model requests, tool calls %v", len(reqs), ids)
	}
	toolNames := func(body []byte) []string {
		var req struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		json.Unmarshal(body, &req)
		var names []string
		for _, tl := range req.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	loaded := func(body []byte) bool {
		for _, n := range toolNames(body) {
			if n == "mcp__mneme__search" {
				return true
			}
		}
		return false
	}
	if loaded(reqs[0].Body) {
		t.Logf("the first request already carries mcp__mneme__search (not deferred in this version)")
	}
	if !loaded(reqs[1].Body) {
		t.Errorf("after ToolSearch the request's tools are %v: no mcp__mneme__search", toolNames(reqs[1].Body))
	}
	if r, ok := mcpResults(t, reqs[1].Body)[ids[0]]; !ok || r.IsError {
		t.Errorf("ToolSearch's tool_result: %+v", r)
	}
	if r, ok := mcpResults(t, reqs[2].Body)[ids[1]]; !ok || r.IsError || !strings.Contains(r.Text, "Created notes.md") {
		t.Errorf("search's tool_result after ToolSearch: %+v", r)
	}
}
