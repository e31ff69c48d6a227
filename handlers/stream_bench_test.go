package handlers_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// BenchmarkStreamLatency measures ingest → SSE receive: from the start of
// POST /api/hooks/post-tool-use (the real ingest path: decode, privacy
// pipeline, group commit, event log) to the moment each of N subscribers,
// raw HTTP readers on loopback, has read the observation event. One
// ingest at a time; every subscriber's latency of every event counts in
// the percentiles.
func BenchmarkStreamLatency(b *testing.B) {
	for _, subs := range []int{1, 100} {
		b.Run(fmt.Sprintf("subscribers=%d", subs), func(b *testing.B) {
			srv := testutil.NewServer(b)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			got := make(chan time.Time, subs*16)
			for range subs {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stream", nil)
				resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
				if err != nil {
					b.Fatal(err)
				}
				go func() {
					defer resp.Body.Close()
					sc := bufio.NewScanner(resp.Body)
					for sc.Scan() {
						if strings.HasPrefix(sc.Text(), "event: observation") {
							got <- time.Now()
						}
					}
				}()
			}
			for deadline := time.Now().Add(10 * time.Second); srv.Broker.Clients() != subs; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					b.Fatalf("%d of %d subscribers", srv.Broker.Clients(), subs)
				}
			}
			payload := func(i int) map[string]any {
				return apiHook("PostToolUse", "bench", "bench", map[string]any{
					"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_bench_%d", i),
					"tool_input":    map[string]any{"command": "go test ./..."},
					"tool_response": map[string]any{"stdout": "ok  github.com/mneme-dev/mneme/models 0.4s", "stderr": ""},
				})
			}
			srv.Hook(b, "post-tool-use", payload(-1)) // creates the session
			for range subs {
				<-got
			}
			lat := make([]time.Duration, 0, b.N*subs)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				srv.Hook(b, "post-tool-use", payload(i))
				for range subs {
					select {
					case at := <-got:
						lat = append(lat, at.Sub(t0))
					case <-time.After(10 * time.Second):
						b.Fatalf("event %d: a subscriber got nothing within 10s", i)
					}
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000 }
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
		})
	}
}
