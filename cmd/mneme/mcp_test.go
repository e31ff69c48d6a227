package main

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// mcpSession starts the built `mneme mcp` in dir with env and connects the
// SDK's client to it over stdio.
func mcpSession(t *testing.T, env []string, dir string) *sdk.ClientSession {
	t.Helper()
	bin, _ := buildBinaries(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Env, cmd.Dir = env, dir
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to mneme mcp: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("mneme mcp did not end cleanly when its stdin closed: %v", err)
		}
	})
	return cs
}

// toolText calls a tool and returns its text and IsError.
func toolText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// The built binary serves the tools over stdio against a running worker:
// the three steps, recent_sessions for the directory's project, and a tool
// error for bad input.
func TestMCPCommandOverStdio(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	// The fixture's project is notes-app: run the server in a directory of
	// that name, as Claude Code does in the project.
	proj := t.TempDir() + "/notes-app"
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cs := mcpSession(t, binEnv(srv.DataDir, srv.Port, "MNEME_NO_AUTOSTART=1"), proj)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	text, isErr := toolText(t, cs, "search", map[string]any{"query": "notes.md", "type": "observation"})
	m := regexp.MustCompile(`(?m)^#(\d+)  \S+ \S+  file_change  Created notes\.md`).FindStringSubmatch(text)
	if isErr || m == nil {
		t.Fatalf("search: %v\n%s", isErr, text)
	}
	id, _ := strconv.Atoi(m[1])
	text, isErr = toolText(t, cs, "timeline", map[string]any{"anchor": "#" + m[1]})
	if isErr || !strings.Contains(text, ">> #"+m[1]+"  ") || !strings.Contains(text, "write notes please") {
		t.Errorf("timeline: %v\n%s", isErr, text)
	}
	text, isErr = toolText(t, cs, "get_observations", map[string]any{"ids": []int{id}})
	if isErr || !strings.Contains(text, "#"+m[1]+"  Created notes.md") || strings.Contains(text, "hunter2") {
		t.Errorf("get_observations: %v\n%s", isErr, text)
	}
	text, isErr = toolText(t, cs, "recent_sessions", map[string]any{})
	if isErr || !strings.Contains(text, "Latest sessions of notes-app") {
		t.Errorf("recent_sessions in notes-app/: %v\n%s", isErr, text)
	}
	text, isErr = toolText(t, cs, "search", map[string]any{"query": `"unbalanced`})
	if !isErr || !strings.Contains(text, "not closed") {
		t.Errorf("bad FTS syntax: %v %q", isErr, text)
	}
	if strings.Contains(text, srv.Secret) {
		t.Error("the worker's secret in an answer")
	}
}

// With no worker running, the first tool call starts one (as the hook
// does) and gets its answer.
func TestMCPCommandStartsWorker(t *testing.T) {
	dir := t.TempDir()
	t.Cleanup(func() {
		if pid := healthPID(dir); pid > 0 {
			terminate(pid)
			for i := 0; i < 100 && healthPID(dir) > 0; i++ {
				time.Sleep(50 * time.Millisecond)
			}
		}
	})
	cs := mcpSession(t, binEnv(dir, freePort(t)), t.TempDir())
	text, isErr := toolText(t, cs, "search", map[string]any{"query": "anything"})
	if isErr || !strings.Contains(text, "No matches for anything") {
		t.Fatalf("search without a worker: %v %q", isErr, text)
	}
	if healthPID(dir) <= 0 {
		t.Error("no worker runs after the call")
	}
}
