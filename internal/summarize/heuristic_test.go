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
	t.Parallel()
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
			waitJobs(t, srv.Store, 30*time.Second)
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
	t.Parallel()
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
			// Searches are named from their input: a pattern with a colon
			// in it (the old split of the title at ':' cut it) and a path.
			{ID: 5, PromptNumber: 1, ToolName: "Grep", Kind: models.KindSearch, Input: `{"pattern":"func (p *Parser) next:","path":"/home/dev/app/internal"}`, Title: "Grep `func (p *Parser) next:` in internal: 2 files", Success: true, ToolUseID: ptr("e")},
			{ID: 6, PromptNumber: 1, ToolName: "Glob", Kind: models.KindSearch, Input: `{"pattern":"**/*_test.go"}`, Title: "Glob `**/*_test.go`: 4 files", Success: true, ToolUseID: ptr("f")},
		},
	}
	before := summarize.Heuristic{}.Build(in)
	if !strings.Contains(before.Completed, "parser.go") || !strings.Contains(before.Completed, "2 packages ok") {
		t.Fatalf("the summary lacks the created file or the outcome: %+v", before)
	}
	if !strings.Contains(before.Investigated, "Grep `func (p *Parser) next:` in internal") || !strings.Contains(before.Investigated, "Glob `**/*_test.go`") {
		t.Fatalf("the summary does not name the searches by their patterns: %q", before.Investigated)
	}
	for i := range in.Observations {
		in.Observations[i].Title = "Reworded call"
	}
	if after := (summarize.Heuristic{}).Build(in); !reflect.DeepEqual(after, before) {
		t.Errorf("rewording titles changed the summary:\n%+v\nvs\n%+v", before, after)
	}
}

// Issue 23: an answer that states its decisions as a label line and a list
// was quoted up to the label ("Claude's answer: "Done. Key decisions:"").
// The quote keeps the list.
func TestHeuristicQuoteKeepsTheLabelledList(t *testing.T) {
	t.Parallel()
	in := &summarize.Input{
		Session:              models.Session{Cwd: "/home/dev/app", Project: "app"},
		Kind:                 models.SummaryFinal,
		Prompts:              []models.Prompt{{Number: 1, Text: "Make the webhook retries survive a restart"}},
		LastAssistantMessage: "Done.\n\nKey decisions:\n- Stored pending deliveries in the `webhook_outbox` table instead of a channel.\n- Went with exponential backoff capped at 10 minutes.\n",
	}
	got := summarize.Heuristic{}.Build(in).Completed
	if !strings.Contains(got, "webhook_outbox") || !strings.Contains(got, "capped at 10 minutes") || strings.Contains(got, "decisions:\"") {
		t.Errorf("Completed = %q; want the quote to carry the decisions, not end at their label", got)
	}
}
