package recall_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// BenchmarkFailureHook100k is PostToolUseFailure end to end over HTTP on
// the 100k-observation database, for a failure whose signature an
// earlier session's failure had (a different one each call, so none is
// "already told"): the failure is stored, its earlier occurrences looked
// up with what fixed them, and the hint built before the answer.
// answered/op is the share of calls that got the hint.
//
// base-p50-ms and base-p99-ms are the same hook round trip, interleaved
// with the measured one on the same worker and database, for a tool call
// that succeeded (PostToolUse of the same command): HTTP, decoding and
// storing, no lookup. The difference is what knowing the failure again
// costs the hook.
func BenchmarkFailureHook100k(b *testing.B) { failureHook100k(b, benchServer(b)) }

// BenchmarkFailureHook100kPostgres is BenchmarkFailureHook100k in team
// mode: the worker on a PostgreSQL database seeded with the same rows.
func BenchmarkFailureHook100kPostgres(b *testing.B) { failureHook100k(b, benchServerOn(b, true)) }

func failureHook100k(b *testing.B, srv *testutil.Server) {
	// The seeded failures of one project, oldest first: each call replays
	// one of them (its command and error) in a new session.
	earlier, err := srv.Store.Observations(context.Background(), models.ObservationFilter{
		ListFilter: models.ListFilter{Project: "proj2", Limit: 2000}, FailuresOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	// Only the seeded Bash ones (not an earlier run's replays, on a kept
	// database), and those the privacy rules leave as they are (the
	// seed's words make a few "bearer …" secrets): a replay then has
	// their signature.
	pol := srv.Capture.Policy()
	earlier = slices.DeleteFunc(earlier, func(o models.Observation) bool {
		return o.ToolName != "Bash" || o.ToolUseID == nil || !strings.HasPrefix(*o.ToolUseID, "tu-") ||
			pol.Clean(o.Output) != o.Output || pol.Clean(o.Input) != o.Input
	})
	if len(earlier) < 100 {
		b.Fatalf("%d seeded failures", len(earlier))
	}
	session := fmt.Sprintf("bench-fail-%d-%d", runID, b.N)
	base := fmt.Sprintf("bench-fail-base-%d-%d", runID, b.N)
	for _, s := range []string{session, base} {
		srv.Hook(b, "user-prompt-submit", ev(s, "UserPromptSubmit", map[string]any{"prompt": "ok, go on", "prompt_id": "p", "project": "proj2"}))
	}
	lat := make([]time.Duration, 0, b.N)
	baseLat := make([]time.Duration, 0, b.N)
	call := func(i int) time.Duration {
		o := earlier[i%len(earlier)]
		t0 := time.Now()
		body := srv.Hook(b, "post-tool-use-failure", ev(session, "PostToolUseFailure", map[string]any{"prompt_id": "p", "project": "proj2",
			"tool_name": "Bash", "tool_use_id": fmt.Sprintf("f-%d", i), "tool_input": map[string]any{"command": o.Input},
			"error": "Exit code 1\n" + o.Output, "is_interrupt": false}))
		took := time.Since(t0)
		if strings.Contains(additional(b, body), "seen before") {
			hinted++
		}
		return took
	}
	success := func(i int) time.Duration {
		o := earlier[i%len(earlier)]
		t0 := time.Now()
		body := srv.Hook(b, "post-tool-use", ev(base, "PostToolUse", map[string]any{"prompt_id": "p", "project": "proj2",
			"tool_name": "Bash", "tool_use_id": fmt.Sprintf("s-%d", i), "tool_input": map[string]any{"command": o.Input},
			"tool_response": map[string]any{"stdout": o.Output, "stderr": ""}}))
		took := time.Since(t0)
		if additional(b, body) != "" {
			b.Fatalf("a success got a hint: %s", body)
		}
		return took
	}
	hinted = 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 1 {
			baseLat = append(baseLat, success(i))
		}
		lat = append(lat, call(i))
		if i%2 == 0 {
			baseLat = append(baseLat, success(i))
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
	reportBaseLatency(b, baseLat)
	b.ReportMetric(float64(hinted)/float64(b.N), "answered/op")
}

// hinted counts the measured calls that got the hint.
var hinted int
