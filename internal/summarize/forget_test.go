package summarize_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// A turn forgotten while its summary is being written stays forgotten:
// the summarizer's answer, arriving after the forget, stores nothing.
func TestForgottenTurnGetsNoSummary(t *testing.T) {
	bin := fakeClaude(t)
	gate := filepath.Join(t.TempDir(), "answer-now")
	t.Setenv("FAKE_CLAUDE_MODE", "gate")
	t.Setenv("FAKE_CLAUDE_GATE", gate)
	t.Setenv("FAKE_CLAUDE_RECORD", "")
	srv := testutil.NewServer(t)
	setSummarizer(t, srv, func(s *models.SummarizerSettings) { s.Kind = "claude-cli"; s.ClaudePath = bin })
	replay(t, srv, jwtSession("forget-turn")[:12]) // the first turn, to its Stop
	ctx := context.Background()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n, _ := srv.Store.CountJobs(ctx, models.JobRunning); n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn's summary job never ran")
		}
	}
	id := sessionID(t, srv.Store, "forget-turn")
	prompts, err := srv.Store.PromptsOfSession(ctx, id)
	if err != nil || len(prompts) != 1 {
		t.Fatalf("prompts %+v, %v", prompts, err)
	}
	if status, body := srv.Do(t, http.MethodDelete, "/api/prompts/"+strconv.FormatInt(prompts[0].ID, 10), nil, nil); status != 200 {
		t.Fatalf("forget the prompt: %d %s", status, body)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil { // the summarizer answers now
		t.Fatal(err)
	}
	// The next turn: its summary is written after the first job's answer
	// (the queue runs one job at a time), so once it is there, the first
	// answer has been dealt with.
	replay(t, srv, jwtSession("forget-turn")[12:16])
	var sums []models.Summary
	for deadline := time.Now().Add(30 * time.Second); len(sums) == 0; time.Sleep(10 * time.Millisecond) {
		if sums, err = srv.Store.SummariesOfSession(ctx, id); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the next turn got no summary")
		}
	}
	if len(sums) != 1 || sums[0].PromptNumber != 2 {
		t.Fatalf("summaries after forgetting turn 1: %+v", sums)
	}
}
