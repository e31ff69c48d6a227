package summarize_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestHeuristicGolden runs real sessions through the real worker (ingest,
// queue, heuristic summarizer) and compares every summary with a golden
// file that was read and judged by hand.
func TestHeuristicGolden(t *testing.T) {
	tests := []struct {
		name   string
		claude string
		play   func(t *testing.T, srv *testutil.Server)
	}{
		{"fixture-basic.golden", "f0373ac4-95a4-4996-a7f7-2576f5e8c9ca", replayFixture},
		{"fixture-failure.golden", "386eb006-6565-439e-8d26-ed519df804d6", func(t *testing.T, srv *testutil.Server) {
			raw, err := os.ReadFile(filepath.Join(testutil.FixtureDir(t), "post-tool-use-failure.json"))
			if err != nil {
				t.Fatal(err)
			}
			srv.Hook(t, "post-tool-use-failure", raw)
			srv.Hook(t, "stop", map[string]any{"session_id": "386eb006-6565-439e-8d26-ed519df804d6", "cwd": "/home/dev/projects/notes-app",
				"hook_event_name": "Stop", "prompt_id": "8527d9cf-93aa-4612-8702-1e640e5a53ad", "last_assistant_message": "The directory /nonexistent-dir does not exist."})
		}},
		{"jwt-session.golden", "jwt-session-1", func(t *testing.T, srv *testutil.Server) { replay(t, srv, jwtSession("jwt-session-1")) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := testutil.NewServer(t)
			tc.play(t, srv)
			waitJobs(t, srv.Store, 10*time.Second)
			sums, err := srv.Store.SummariesOfSession(context.Background(), sessionID(t, srv.Store, tc.claude))
			if err != nil {
				t.Fatal(err)
			}
			if len(sums) == 0 {
				t.Fatal("no summary was written")
			}
			golden(t, tc.name, renderSummaries(sums))
		})
	}
}

// The heuristic summary reads test runs, their outcomes and created files
// from fields recorded at ingest: rewording the titles of those calls
// changes nothing in it.
func TestHeuristicIgnoresTitleWording(t *testing.T) {
	ptr := func(s string) *string { return &s }
	in := &summarize.Input{
		Session: models.Session{Cwd: "/home/dev/app", Project: "app"},
		Kind:    models.SummaryFinal,
		Prompts: []models.Prompt{{Number: 1, Text: "Add the parser and make the tests pass"}},
		Observations: []models.Observation{
			{ID: 1, PromptNumber: 1, ToolName: "Write", Kind: models.KindFileChange, Title: "Created parser.go (40 lines)", Files: []string{"/home/dev/app/parser.go"}, Success: true, FileCreated: true, ToolUseID: ptr("a")},
			{ID: 2, PromptNumber: 1, ToolName: "Edit", Kind: models.KindFileChange, Title: "Edited main.go (+2 −1)", Files: []string{"/home/dev/app/main.go"}, Success: true, ToolUseID: ptr("b")},
			{ID: 3, PromptNumber: 1, ToolName: "Bash", Kind: models.KindFailure, Input: "go test ./...", Output: "--- FAIL: TestParse\nparser_test.go:9: want 3", Title: "`go test ./...` failed: exit 1 — 1 test failed", CommandKind: models.CommandTest, TestOutcome: "1 test failed", ToolUseID: ptr("c")},
			{ID: 4, PromptNumber: 1, ToolName: "Bash", Kind: models.KindTest, Input: "go test ./...", Title: "Ran `go test ./...`: 2 packages ok", Success: true, CommandKind: models.CommandTest, TestOutcome: "2 packages ok", ToolUseID: ptr("d")},
		},
	}
	before := summarize.Heuristic{}.Build(in)
	if !strings.Contains(before.Completed, "parser.go") || !strings.Contains(before.Completed, "2 packages ok") {
		t.Fatalf("the summary lacks the created file or the outcome: %+v", before)
	}
	for i := range in.Observations {
		in.Observations[i].Title = "Reworded call"
	}
	if after := (summarize.Heuristic{}).Build(in); !reflect.DeepEqual(after, before) {
		t.Errorf("rewording titles changed the summary:\n%+v\nvs\n%+v", before, after)
	}
}
