package summarize_test

import (
	"context"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestQueueSurvivesRestart stops the worker while summaries are queued and
// restarts it on the same data directory: every summary completes.
func TestQueueSurvivesRestart(t *testing.T) {
	bin := fakeClaude(t)
	t.Setenv("FAKE_CLAUDE_MODE", "slow") // 300 ms per summary
	t.Setenv("FAKE_CLAUDE_RECORD", "")
	dir := t.TempDir()
	srv := testutil.NewServerIn(t, dir)
	setSummarizer(t, srv, func(s *models.SummarizerSettings) { s.Kind = "claude-cli"; s.ClaudePath = bin })
	const n = 6
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "restart-" + string(rune('a'+i))
		replay(t, srv, jwtSession(ids[i])[:12])
	}
	// Wait for the first summary, then stop mid-queue.
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, _ := srv.Store.Counts(context.Background())
		if c.Summaries > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no summary before the restart")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := srv.Shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	// Count what is left, straight from the database.
	store := testutil.OpenStore(t, dir)
	pending, _ := store.CountJobs(context.Background(), models.JobPending)
	running, _ := store.CountJobs(context.Background(), models.JobRunning)
	done, _ := store.CountJobs(context.Background(), models.JobDone)
	store.Close()
	t.Logf("at shutdown: %d done, %d pending, %d running", done, pending, running)
	if pending+running == 0 {
		t.Fatal("the queue was already empty at shutdown; the test proves nothing")
	}

	srv2 := testutil.NewServerIn(t, dir)
	waitJobs(t, srv2.Store, 20*time.Second)
	for _, id := range ids {
		sums, err := srv2.Store.SummariesOfSession(context.Background(), sessionID(t, srv2.Store, id))
		if err != nil || len(sums) != 1 || sums[0].Generator != "claude-cli" {
			t.Errorf("%s: summaries %+v, %v", id, sums, err)
		}
	}
}

// TestQueueDeduplicates: the same Stop twice (a replayed spool, a retried
// hook) yields one job and one summary; SessionEnd twice one final.
func TestQueueDeduplicates(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	steps := jwtSession("dedupe")
	replay(t, srv, steps)
	srv.Hook(t, "stop", steps[11].body)
	srv.Hook(t, "session-end", steps[len(steps)-1].body)
	id := sessionID(t, srv.Store, "dedupe")
	if err := srv.Summaries.Enqueue(context.Background(), id, models.SummaryTurn, 1, time.Time{}); err != nil {
		t.Fatal(err)
	}
	waitJobs(t, srv.Store, 30*time.Second)
	sums, _ := srv.Store.SummariesOfSession(context.Background(), id)
	kinds := map[string]int{}
	for _, s := range sums {
		kinds[s.Kind]++
	}
	if len(sums) != 3 || kinds["turn"] != 2 || kinds["final"] != 1 {
		t.Errorf("summaries by kind = %v", kinds)
	}
	if err := srv.Summaries.Enqueue(context.Background(), id, "weekly", 1, time.Time{}); err == nil {
		t.Error("an unknown kind was accepted")
	}
}

// TestQueueIntermediate: a session running for over 30 minutes gets an
// intermediate summary on its next turn, and not another one on the turn
// after.
func TestQueueIntermediate(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	steps := jwtSession("long")
	start := steps[0].body
	start["mneme_time"] = time.Now().Add(-45 * time.Minute).UTC()
	replay(t, srv, steps[:len(steps)-1]) // two turns, no SessionEnd
	waitJobs(t, srv.Store, 30*time.Second)
	sums, _ := srv.Store.SummariesOfSession(context.Background(), sessionID(t, srv.Store, "long"))
	kinds := map[string]int{}
	for _, s := range sums {
		kinds[s.Kind]++
	}
	if kinds["turn"] != 2 || kinds["intermediate"] != 1 {
		t.Errorf("summaries by kind = %v", kinds)
	}
}

// TestQueueBudget: once today's tokens reach the daily budget, summaries
// fall back to the heuristic and say so; the ledger totals show it.
func TestQueueBudget(t *testing.T) {
	bin := fakeClaude(t)
	t.Setenv("FAKE_CLAUDE_MODE", "ok") // 1,595 tokens per call
	t.Setenv("FAKE_CLAUDE_RECORD", "")
	srv := testutil.NewServer(t)
	setSummarizer(t, srv, func(s *models.SummarizerSettings) {
		s.Kind, s.ClaudePath, s.DailyTokenBudget = "claude-cli", bin, 1000
	})
	steps := jwtSession("budget")
	replay(t, srv, steps[:12])
	waitJobs(t, srv.Store, 30*time.Second)
	replay(t, srv, steps[12:16])
	waitJobs(t, srv.Store, 30*time.Second)
	id := sessionID(t, srv.Store, "budget")
	sums, _ := srv.Store.SummariesOfSession(context.Background(), id)
	if len(sums) != 2 {
		t.Fatalf("%d summaries", len(sums))
	}
	if sums[0].Generator != "claude-cli" || sums[0].InputTokens != 1500 {
		t.Errorf("first: %s %d", sums[0].Generator, sums[0].InputTokens)
	}
	if sums[1].Generator != "heuristic" || sums[1].Note != "daily token budget of 1000 reached (1595 used today): heuristic summary instead of claude-cli" {
		t.Errorf("second: %s %q", sums[1].Generator, sums[1].Note)
	}
	tot, err := summarize.Totals(context.Background(), srv.Store, srv.Capture.Policy().Settings, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if tot.All.Calls != 1 || tot.Today.InputTokens != 1500 || tot.Today.OutputTokens != 95 || !tot.BudgetExceeded || len(tot.Days) != 1 || tot.Today.CostUSD != 0.0042 {
		t.Errorf("totals = %+v", tot)
	}
	per, _ := srv.Store.LedgerOfSession(context.Background(), id)
	if per.Calls != 1 || per.InputTokens != 1500 {
		t.Errorf("session ledger = %+v", per)
	}
}

// TestQueueOneTurnOneCard: a one-prompt session imported from three days
// ago (every event with its own time) gets one summary, its turn's: no
// interim one (one turn, however long ago it started) and no session
// summary repeating it. The summary and every event carry the time of
// what they announce, not the time they were written.
func TestQueueOneTurnOneCard(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	steps := jwtSession("one-turn")
	one := append(steps[:12:12], steps[len(steps)-1])
	base := time.Now().Add(-72 * time.Hour).UTC().Truncate(time.Second)
	for i, s := range one {
		s.body["mneme_time"] = base.Add(time.Duration(i) * time.Minute)
	}
	written := time.Now()
	replay(t, srv, one)
	waitJobs(t, srv.Store, 20*time.Second)
	id := sessionID(t, srv.Store, "one-turn")
	sums, err := srv.Store.SummariesOfSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0].Kind != models.SummaryTurn {
		t.Fatalf("summaries: %s", renderSummaries(sums))
	}
	stop := base.Add(11 * time.Minute)
	if !sums[0].CreatedAt.Equal(stop) {
		t.Errorf("turn summary at %s, want the Stop's %s", sums[0].CreatedAt, stop)
	}
	jobs, _ := srv.Store.JobsOfSession(context.Background(), id)
	kinds := map[string]string{}
	for _, j := range jobs {
		kinds[j.Kind] = j.Status
	}
	if kinds["final"] != models.JobDone || kinds["intermediate"] != "" {
		t.Errorf("jobs: %v (want the final one done without a summary, no intermediate)", kinds)
	}
	evs, err := srv.Store.FeedEvents(context.Background(), models.FeedQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	feed := 0
	for _, ev := range evs {
		feed++
		if !ev.CreatedAt.Before(written) || ev.CreatedAt.Before(base) {
			t.Errorf("%s event %d at %s, outside the imported session's %s–%s", ev.Kind, ev.ID, ev.CreatedAt, base, stop.Add(time.Minute))
		}
	}
	if feed < 12 {
		t.Errorf("%d feed events", feed)
	}
	mems, err := srv.Store.Memories(context.Background(), models.MemoryFilter{SessionID: id, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mems {
		if !m.CreatedAt.Equal(stop) {
			t.Errorf("memory %d at %s, want its turn's %s", m.ID, m.CreatedAt, stop)
		}
	}
}

// TestQueueSecondTurnKeepsSessionSummary: a session of two turns keeps its
// session summary, which says more than either turn.
func TestQueueSecondTurnKeepsSessionSummary(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	replay(t, srv, jwtSession("two-turns"))
	waitJobs(t, srv.Store, 20*time.Second)
	sums, _ := srv.Store.SummariesOfSession(context.Background(), sessionID(t, srv.Store, "two-turns"))
	kinds := map[string]int{}
	for _, s := range sums {
		kinds[s.Kind]++
	}
	if kinds["turn"] != 2 || kinds["final"] != 1 || kinds["intermediate"] != 0 {
		t.Errorf("summaries by kind = %v", kinds)
	}
}
