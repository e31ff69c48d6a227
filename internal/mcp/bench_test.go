package mcp_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mneme-dev/mneme/internal/mcp"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models/benchdb"
)

// BenchmarkMCPSearch measures the search tool end to end, as Claude Code
// sees it: an MCP client calls it over the SDK's in-memory transport, the
// server asks a real worker over its unix socket, the worker searches a
// synthetic database of 100,000 observations (MNEME_BENCH_ROWS to change;
// built once, cached in MNEME_BENCH_CACHE when set) and the answer is cut
// to the default 1,000-token budget. Query shapes rotate: rare, medium and
// common words, two words, OR, a phrase, a prefix, a project filter. It
// reports p50, p95 and p99 in ms.
func BenchmarkMCPSearch(b *testing.B) {
	rows := 100_000
	if os.Getenv("MNEME_BENCH_ROWS") != "" {
		rows = benchdb.Rows(b)
	}
	db := benchdb.Build(b, rows)
	if db.Built > 0 {
		b.Logf("built synthetic DB: %d observations in %s", db.Observations, db.Built.Round(time.Second))
	}
	srv := testutil.NewServerIn(b, db.WorkerCopy(b))
	w := &world{srv: srv}
	cs := connect(b, w.api(), mcp.Options{})

	word := benchdb.Word
	var queries []map[string]any
	for i := range 20 {
		queries = append(queries,
			map[string]any{"query": word(3000 + i*37)},
			map[string]any{"query": word(300 + i*7)},
			map[string]any{"query": word(20 + i)},
			map[string]any{"query": word(200+i) + " " + word(400+i*3)},
			map[string]any{"query": word(1000+i) + " OR " + word(2000+i)},
			map[string]any{"query": `"` + word(50+i) + " " + word(60+i) + `"`},
			map[string]any{"query": word(500 + i*5)[:3] + "*"},
			map[string]any{"query": word(300 + i*7), "project": db.Projects[i%len(db.Projects)]},
		)
	}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	bytes := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args := queries[i%len(queries)]
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolSearch, Arguments: args})
		lat = append(lat, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("search %v: %v %+v", args, err, res)
		}
		bytes += len(res.Content[0].(*sdk.TextContent).Text)
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(bytes)/float64(b.N), "answer-bytes/op")
	b.ReportMetric(float64(rows), "observations")
}
