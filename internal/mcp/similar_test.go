package mcp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/mcp"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// search with similar_to=#id lists the failures with that failure's
// signature (the same failing test, whatever its run's durations and
// temporary paths), newest first, in its project; not other failures,
// not successes; a call that is no failure, an unknown id, or a query
// beside it is a tool error.
func TestMCPSearchSimilarTo(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	n := 0
	hook := func(session, project, event string, extra map[string]any) int64 {
		n++
		id := fmt.Sprintf("toolu_sim_%d", n)
		m := map[string]any{"session_id": session, "cwd": "/home/dev/projects/" + project, "hook_event_name": event, "tool_name": "Bash", "tool_use_id": id}
		for k, v := range extra {
			m[k] = v
		}
		srv.Hook(t, map[string]string{"PostToolUse": "post-tool-use", "PostToolUseFailure": "post-tool-use-failure"}[event], m)
		var oid int64
		modelstest.Row(t, srv.Store, []any{&oid}, `SELECT id FROM observations WHERE tool_use_id = ?`, id)
		return oid
	}
	fail := func(session, project, test, dur, tmp string) int64 {
		return hook(session, project, "PostToolUseFailure", map[string]any{"tool_input": map[string]any{"command": "go test ./load/..."},
			"error": fmt.Sprintf("Exit code 1\n--- FAIL: %s (%s)\n    x_test.go:9: open %s/c.json: no such file\nFAIL", test, dur, tmp)})
	}
	a := fail("sim-1", "app", "TestLoadConfig", "0.03s", "/tmp/TestLoadConfig1/001")
	other := fail("sim-1", "app", "TestLoadDefaults", "0.03s", "/tmp/TestLoadDefaults1/001")
	ok := hook("sim-1", "app", "PostToolUse", map[string]any{"tool_input": map[string]any{"command": "go test ./load/..."}, "tool_response": map[string]any{"stdout": "ok  \tload\t0.1s"}})
	b := fail("sim-2", "app", "TestLoadConfig", "1.5s", "/tmp/TestLoadConfig2/007")
	c := fail("sim-3", "app", "TestLoadConfig", "0.2s", "/tmp/TestLoadConfig3/002")
	elsewhere := fail("sim-4", "web", "TestLoadConfig", "0.2s", "/tmp/TestLoadConfig4/002")

	cs := connect(t, mcp.HTTPAPI{Base: testutil.SocketURL, Client: srv.SocketClient(), Where: "on " + srv.Socket}, mcp.Options{})
	text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"similar_to": fmt.Sprintf("#%d", a)})
	t.Logf("\n%s", text)
	want := []string{fmt.Sprint(c), fmt.Sprint(b), fmt.Sprint(a)}
	if got := rowIDs(text); !slices.Equal(got, want) {
		t.Errorf("similar_to #%d: rows %v, want %v (not #%d, another test; #%d, a success; #%d, another project)", a, got, want, other, ok, elsewhere)
	}
	if !strings.Contains(text, "TestLoadConfig") || !strings.Contains(text, "all shown") {
		t.Errorf("the answer lacks the signature or its closing line:\n%s", text)
	}
	// A number works as well as "#id"; paging.
	if got := rowIDs(mustCall(t, cs, mcp.ToolSearch, map[string]any{"similar_to": b, "limit": 1, "offset": 1})); !slices.Equal(got, want[1:2]) {
		t.Errorf("limit 1 offset 1: %v, want %v", got, want[1:2])
	}
	for _, args := range []map[string]any{
		{"similar_to": ok},
		{"similar_to": 999999},
		{"similar_to": a, "query": "load"},
	} {
		if text, isErr := call(t, cs, mcp.ToolSearch, args); !isErr {
			t.Errorf("%v: no tool error: %s", args, text)
		}
	}
}
