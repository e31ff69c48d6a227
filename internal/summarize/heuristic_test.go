package summarize_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
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
