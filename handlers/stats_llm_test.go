package handlers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// The stats page shows LLM spend and says when the daily token budget
// stopped LLM summarization.
func TestStatsShowsTokenBudget(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	page := func() string {
		t.Helper()
		status, body := srv.Do(t, "GET", "/stats", nil, map[string][]string{"Accept": {"text/html"}})
		if status != 200 {
			t.Fatalf("GET /stats: %d", status)
		}
		return string(body)
	}
	if p := page(); !strings.Contains(p, "Summaries and LLM spend") || !strings.Contains(p, "unlimited") || strings.Contains(p, "budget reached") {
		t.Fatalf("fresh install: want the spend panel, an unlimited budget and no warning")
	}

	st := srv.Capture.Policy().Settings
	st.Summarizer.DailyTokenBudget = 1000
	srv.UseSettings(t, st)
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		return tx.RecordTokens(&models.LedgerEntry{SessionID: 1, Generator: "claude-cli", InputTokens: 900, OutputTokens: 300, CostUSD: 0.42})
	})
	if err != nil {
		t.Fatal(err)
	}
	p := page()
	for _, want := range []string{"Daily token budget reached (1200 of 1000 tokens today)", "1200 in 1 calls", "$0.42"} {
		if !strings.Contains(p, want) {
			t.Errorf("stats page lacks %q", want)
		}
	}
}
