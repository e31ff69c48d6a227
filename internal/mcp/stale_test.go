package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/mcp"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// The tools say when a record's file changed or is gone since it was
// recorded, from the API's stale and fileStatus.
func TestMCPStale(t *testing.T) {
	t.Parallel()
	w := &world{srv: testutil.NewServer(t)}
	dir := t.TempDir()
	for i, name := range []string{"zebra_changed.go", "zebra_gone.go", "zebra_same.go"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("package zebra\n"), 0o600)
		w.srv.Hook(t, "post-tool-use", map[string]any{"session_id": "stale", "cwd": dir, "hook_event_name": "PostToolUse",
			"tool_name": "Write", "tool_input": map[string]any{"file_path": p, "content": "package zebra\n"},
			"tool_response": map[string]any{"type": "create"}, "tool_use_id": "w" + string(rune('0'+i))})
	}
	os.WriteFile(filepath.Join(dir, "zebra_changed.go"), []byte("package zebra // edited by hand\n"), 0o600)
	os.Remove(filepath.Join(dir, "zebra_gone.go"))
	cs := connect(t, w.api(), mcp.Options{})

	text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zebra*", "type": "observation"})
	for _, row := range strings.Split(text, "\n")[1:4] {
		if stale := strings.Contains(row, "  [changed since]"); stale == strings.Contains(row, "zebra_same.go") {
			t.Errorf("search row %q", row)
		}
	}
	ids := rowIDs(text)
	if len(ids) != 3 {
		t.Fatalf("search: %s", text)
	}
	tl := mustCall(t, cs, mcp.ToolTimeline, map[string]any{"anchor": ids[0]})
	if strings.Count(tl, "  [changed since]") != 2 {
		t.Errorf("timeline:\n%s", tl)
	}
	recs := mustCall(t, cs, mcp.ToolGetObservations, map[string]any{"ids": []any{json.Number(ids[0]), json.Number(ids[1]), json.Number(ids[2])}})
	for _, want := range []string{"zebra_changed.go (changed since)", "zebra_gone.go (gone since)", "zebra_same.go\n"} {
		if !strings.Contains(recs, want) {
			t.Errorf("records lack %q:\n%s", want, recs)
		}
	}
}
