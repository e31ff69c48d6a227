// Command table reads `go test -bench` output on stdin, copies it to
// stdout as it comes, and at the end prints mneme's figures as one
// markdown table: each figure beside the baseline measured in the same run
// and the target it must meet. The benchmarks stay the source of truth
// (b.ReportMetric); spec below only says which metric is which figure.
//
//	go test -run '^$' -bench . ./cmd/mneme/ | go run ./bench/table
//
// A figure whose benchmark did not run says "not run" (or skipped,
// FAILED). With -count > 1 the table shows medians. `make bench` runs the
// benchmarks that feed it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Targets are for a 2-core machine.
func le(v float64) *Target { return &Target{Op: "≤", Value: v} }
func ge(v float64) *Target { return &Target{Op: "≥", Value: v} }

// Baselines reused by several rows.
var (
	noopP50 = Baseline{Metric: "noop-p50-ms", Label: "(no-op Go binary, p50)"}
	noopP99 = Baseline{Metric: "noop-p99-ms", Label: "(no-op Go binary, p99)"}
)

// spec maps benchmark metrics to the table's rows, in order.
var spec = []Row{
	// Hook commands, spawn → exit, against a no-op Go binary spawned in
	// the same benchmark (cmd/mneme/bench_test.go).
	{Figure: "hook post-tool-use, worker up, p50", Bench: "BenchmarkHookPostToolUseWorkerUp", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{noopP50}, Target: le(5)},
	{Figure: "hook post-tool-use, worker up, p99", Bench: "BenchmarkHookPostToolUseWorkerUp", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{noopP99, noopP50}, Target: le(15)},
	{Figure: "hook post-tool-use, worker down (spooled), p50", Bench: "BenchmarkHookPostToolUseWorkerDown", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{noopP50}, Target: le(50)},
	{Figure: "hook post-tool-use, worker down (spooled), p99", Bench: "BenchmarkHookPostToolUseWorkerDown", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{noopP99, noopP50}, Target: le(50)},
	// Spawned in turn with the no-op and a floor hook that only makes the
	// socket round trip (BenchmarkHookFloorAlternated): the ratios hold
	// on a loaded machine.
	{Figure: "floor hook (socket round trip only), alternated, p50", Bench: "BenchmarkHookFloorAlternated", Metric: "floor-p50-ms", Unit: "ms",
		Base: []Baseline{{Metric: "noop-p50-ms", Label: "(no-op Go binary, p50, alternated)"}}},
	{Figure: "hook post-tool-use, alternated, p50", Bench: "BenchmarkHookFloorAlternated", Metric: "hook-p50-ms", Unit: "ms",
		Base: []Baseline{{Metric: "noop-p50-ms", Label: "(no-op Go binary, p50, alternated)"}, {Metric: "floor-p50-ms", Label: "(floor hook, p50, alternated)"}}},
	{Figure: "hook session-start, worker up, p50", Bench: "BenchmarkHookSessionStart", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{noopP50}},
	{Figure: "hook session-start, worker up, p99", Bench: "BenchmarkHookSessionStart", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{noopP99, noopP50}},
	{Figure: "hook session-start, worker down, p50", Bench: "BenchmarkHookSessionStartWorkerDown", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{noopP50}, Target: le(50)},
	{Figure: "hook session-start, worker down, p99", Bench: "BenchmarkHookSessionStartWorkerDown", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{noopP99, noopP50}, Target: le(50)},

	// Durable ingest: acked after commit, 16 HTTP clients, against raw
	// batched SQLite inserts on the same disk (cmd/mneme/bench_test.go).
	{Figure: "durable ingest, 16 clients", Bench: "BenchmarkIngestConcurrent16", Metric: "obs/s", Unit: "obs/s", Higher: true,
		Base: []Baseline{{Metric: "base-obs/s", Label: "(raw SQLite, one INSERT per row, 256 rows per tx, same disk)"}}, Target: ge(10_000)},
	{Figure: "durable ingest, 16 clients, vs storage ceiling", Bench: "BenchmarkIngestConcurrent16", Metric: "obs/s", Unit: "obs/s", Higher: true,
		Base: []Baseline{{Metric: "base-json-obs/s", Label: "(raw SQLite, one INSERT per 256 rows, the writer's statement, same disk)"}}},
	{Figure: "durable ingest, 16 clients, search index filled too", Bench: "BenchmarkIngestConcurrent16", Metric: "indexed-obs/s", Unit: "obs/s", Higher: true,
		Base: []Baseline{{Metric: "base-obs/s", Label: "(raw SQLite, one INSERT per row, 256 rows per tx, same disk)"}}},
	{Figure: "group commit size under 16 clients", Bench: "BenchmarkIngestConcurrent16", Metric: "ops/commit", Unit: "ops", Higher: true},
	{Figure: "CPU per ingested observation (worker and clients)", Bench: "BenchmarkIngestConcurrent16", Metric: "cpu-µs/obs", Unit: "µs"},
	// The same over the unix socket, the way every `mneme hook` sends.
	{Figure: "durable ingest over the socket (the hooks' path), 16 clients", Bench: "BenchmarkIngestSocket16", Metric: "obs/s", Unit: "obs/s", Higher: true,
		Base: []Baseline{{Metric: "base-obs/s", Label: "(raw SQLite, one INSERT per row, 256 rows per tx, same disk)"}}, Target: ge(10_000)},
	{Figure: "durable ingest over the socket, search index filled too", Bench: "BenchmarkIngestSocket16", Metric: "indexed-obs/s", Unit: "obs/s", Higher: true,
		Base: []Baseline{{Metric: "base-obs/s", Label: "(raw SQLite, one INSERT per row, 256 rows per tx, same disk)"}}},
	{Figure: "ingest ceiling: raw SQLite, 16 rows + events per tx", Bench: "BenchmarkIngestSocket16", Metric: "base-16-events-obs/s", Unit: "obs/s", Higher: true,
		Base: []Baseline{{Metric: "base-obs/s", Label: "(raw SQLite, one INSERT per row, 256 rows per tx, same disk)"}}},
	{Figure: "ingest over the socket vs that ceiling", Bench: "BenchmarkIngestSocket16", Metric: "obs/s", Unit: "obs/s", Higher: true,
		Base: []Baseline{{Metric: "base-16-events-obs/s", Label: "(raw SQLite, 16 rows and their event-log rows per tx, same disk)"}}},
	{Figure: "store alone: 16 writers, no HTTP", Bench: "BenchmarkWriterQueue", Metric: "obs/s", Unit: "obs/s", Higher: true},

	// Ingest → SSE receive, against the ingest POST's own round trip
	// (handlers/stream_bench_test.go).
	{Figure: "ingest→SSE, 1 subscriber, p50", Bench: "BenchmarkStreamLatency/*s=1", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p50-ms", Label: "(ingest POST round trip, p50)"}}},
	{Figure: "ingest→SSE, 1 subscriber, p99", Bench: "BenchmarkStreamLatency/*s=1", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p99-ms", Label: "(ingest POST round trip, p99)"}}},
	{Figure: "ingest→SSE, 100 subscribers, p50", Bench: "BenchmarkStreamLatency/*s=100", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p50-ms", Label: "(ingest POST round trip, p50)"}}},
	{Figure: "ingest→SSE, 100 subscribers, p99", Bench: "BenchmarkStreamLatency/*s=100", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p99-ms", Label: "(ingest POST round trip, p99)"}}, Target: le(5)},

	// Full-text search on the synthetic database (models/search_bench_test.go).
	{Figure: "FTS search at {rows}, mixed query shapes, p95", Bench: "BenchmarkSearch/mix/rows=*", Metric: "p95-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p95-ms", Label: "(baseline, p95)"}}, Target: le(30)},
	{Figure: "FTS search at {rows}, p95", Bench: "BenchmarkSearch/*/rows=*", Metric: "p95-ms", Unit: "ms", Worst: true,
		Base: []Baseline{{Metric: "base-p95-ms", Label: "(baseline, p95)"}}, Target: le(30)},

	// Hybrid search (full text and the vector index, fused) over the
	// mixed shapes, 384-dim vectors, against full text alone in the same
	// run (models/search_bench_test.go); the vector index on its own,
	// recall@10 against the exact scan of the same vectors for each
	// family of synthetic embeddings (models/vecindex_bench_test.go).
	{Figure: "hybrid search at 100k, 384 dims, mixed shapes, p95", Bench: "BenchmarkSearchHybrid/hybrid/rows=100000", Metric: "p95-ms", Unit: "ms",
		Base: []Baseline{{Metric: "p95-ms", Label: "(full text alone, same run)", Bench: "BenchmarkSearchHybrid/text/rows=100000"}}},
	{Figure: "hybrid search at 1M, 384 dims, mixed shapes, p95", Bench: "BenchmarkSearchHybrid/hybrid/rows=1000000", Metric: "p95-ms", Unit: "ms",
		Base: []Baseline{{Metric: "p95-ms", Label: "(full text alone, same run)", Bench: "BenchmarkSearchHybrid/text/rows=1000000"}}, Target: le(30)},
	{Figure: "vector index memory at 1M, 384 dims", Bench: "BenchmarkSearchHybrid/hybrid/rows=1000000", Metric: "index-MB", Unit: "MB", Target: le(64)},
	{Figure: "vector index load at 1M (in the background)", Bench: "BenchmarkSearchHybrid/hybrid/rows=1000000", Metric: "load-ms", Unit: "ms"},
	{Figure: "vector index recall@10 vs exact at 1M, clustered vectors", Bench: "BenchmarkVectorIndex/clustered/rows=1000000", Metric: "recall@10", Unit: "", Higher: true, Target: ge(0.95)},
	{Figure: "vector index recall@10 vs exact at 1M, text-like vectors", Bench: "BenchmarkVectorIndex/textlike/rows=1000000", Metric: "recall@10", Unit: "", Higher: true, Target: ge(0.95)},
	{Figure: "vector index recall@10 vs exact at 1M, uniform vectors (worst case)", Bench: "BenchmarkVectorIndex/uniform/rows=1000000", Metric: "recall@10", Unit: "", Higher: true},
	{Figure: "vector index recall@10 vs exact at 1M, one project of 20, worst family", Bench: "BenchmarkVectorIndex/*/rows=1000000", Metric: "recall@10-project", Unit: "", Higher: true, Worst: true, Target: ge(0.95)},
	{Figure: "semantic search alone at 1M, 384 dims, p95 (worst family)", Bench: "BenchmarkVectorIndex/*/rows=1000000", Metric: "p95-ms", Unit: "ms", Worst: true},

	// Recall at 100k observations, over HTTP to the real worker
	// (internal/recall/bench_test.go).
	{Figure: "SessionStart hook at 100k (context build), p50", Bench: "BenchmarkSessionStartHook100k", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p50-ms", Label: "(same hook, project without history, p50)"}}},
	{Figure: "SessionStart hook at 100k (context build), p99", Bench: "BenchmarkSessionStartHook100k", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p99-ms", Label: "(same hook, project without history, p99)"}}, Target: le(25)},
	// The same hook with 10k memories of the project besides (a quarter in
	// force, each naming a file), against the same run's figure without.
	{Figure: "SessionStart hook at 100k + 10k memories, p50", Bench: "BenchmarkSessionStartHook100kMemories", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{{Metric: "p50-ms", Label: "(same hook at 100k, no memories, p50)", Bench: "BenchmarkSessionStartHook100k"}}},
	{Figure: "SessionStart hook at 100k + 10k memories, p99", Bench: "BenchmarkSessionStartHook100kMemories", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{{Metric: "p99-ms", Label: "(same hook at 100k, no memories, p99)", Bench: "BenchmarkSessionStartHook100k"}}, Target: le(25)},
	{Figure: "context build alone at 100k, p99", Bench: "BenchmarkSessionContext100k", Metric: "p99-ms", Unit: "ms"},
	{Figure: "UserPromptSubmit hook at 100k (related lookup), p50", Bench: "BenchmarkUserPromptSubmitHook100k", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p50-ms", Label: "(same hook, prompt without keywords, p50)"}}},
	{Figure: "UserPromptSubmit hook at 100k (related lookup), p99", Bench: "BenchmarkUserPromptSubmitHook100k", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p99-ms", Label: "(same hook, prompt without keywords, p99)"}}},
	{Figure: "related lookup alone at 100k, p99", Bench: "BenchmarkRelatedMemory100k", Metric: "p99-ms", Unit: "ms"},
	// A failure seen before (issue #35): the failure stored, its earlier
	// occurrences and their fix looked up, the hint built.
	{Figure: "PostToolUseFailure hook at 100k (seen-before hint), p50", Bench: "BenchmarkFailureHook100k", Metric: "p50-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p50-ms", Label: "(PostToolUse of a success, no lookup, p50)"}}},
	{Figure: "PostToolUseFailure hook at 100k (seen-before hint), p99", Bench: "BenchmarkFailureHook100k", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p99-ms", Label: "(PostToolUse of a success, no lookup, p99)"}}, Target: le(25)},

	// Team mode: the same figures with the workers on PostgreSQL (the
	// throwaway cluster of internal/pgtest on this machine), against the
	// same run's SQLite figure.
	{Figure: "team: durable ingest, 16 clients, 2 replicas on PostgreSQL", Bench: "BenchmarkIngestPostgres2Replicas16", Metric: "obs/s", Unit: "obs/s", Higher: true,
		Base: []Baseline{{Metric: "obs/s", Label: "(SQLite, 1 worker, same clients)", Bench: "BenchmarkIngestConcurrent16"}}},
	{Figure: "team: FTS search at {rows} on PostgreSQL, mixed query shapes, p95", Bench: "BenchmarkSearchPostgres/mix/rows=*", Metric: "p95-ms", Unit: "ms",
		Base: []Baseline{{Metric: "p95-ms", Label: "(SQLite, same rows and queries)", Bench: "BenchmarkSearch/mix/rows=*"}}, Target: le(30)},
	{Figure: "team: FTS search at {rows} on PostgreSQL, p95", Bench: "BenchmarkSearchPostgres/*/rows=*", Metric: "p95-ms", Unit: "ms", Worst: true,
		Base: []Baseline{{Metric: "base-p95-ms", Label: "(baseline: one GIN lookup, p95)"}}},
	// The server's CPU per search (the backends' /proc times), against
	// SQLite's, all in mneme's process: less distorted by a shared machine
	// than wall time.
	{Figure: "team: server CPU per FTS search at {rows}, mixed shapes", Bench: "BenchmarkSearchPostgres/mix/rows=*", Metric: "server-cpu-ms/op", Unit: "ms",
		Base: []Baseline{{Metric: "cpu-ms/op", Label: "(SQLite, CPU per search, same rows and queries)", Bench: "BenchmarkSearch/mix/rows=*"}}},
	{Figure: "team: hybrid search at 100k on PostgreSQL, p95", Bench: "BenchmarkSearchHybridPostgres/hybrid/rows=100000", Metric: "p95-ms", Unit: "ms",
		Base: []Baseline{{Metric: "p95-ms", Label: "(full text alone, same run)", Bench: "BenchmarkSearchHybridPostgres/text/rows=100000"}}},
	{Figure: "team: hybrid search at 1M on PostgreSQL, p95", Bench: "BenchmarkSearchHybridPostgres/hybrid/rows=1000000", Metric: "p95-ms", Unit: "ms",
		Base: []Baseline{{Metric: "p95-ms", Label: "(full text alone, same run)", Bench: "BenchmarkSearchHybridPostgres/text/rows=1000000"}}},
	{Figure: "team: SessionStart hook at 100k on PostgreSQL, p99", Bench: "BenchmarkSessionStartHook100kPostgres", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{{Metric: "p99-ms", Label: "(SQLite, same rows)", Bench: "BenchmarkSessionStartHook100k"}}, Target: le(25)},
	{Figure: "team: PostToolUseFailure hook at 100k on PostgreSQL (seen-before hint), p99", Bench: "BenchmarkFailureHook100kPostgres", Metric: "p99-ms", Unit: "ms",
		Base: []Baseline{{Metric: "base-p99-ms", Label: "(PostToolUse of a success, no lookup, p99)"}}, Target: le(25)},

	// The worker process (cmd/mneme/rss_bench_test.go, soak/bench_test.go),
	// against a minimal Go HTTP server (bench/minserver) in the same run.
	{Figure: "worker RSS, idle", Bench: "BenchmarkWorkerRSS/idle", Metric: "rss-MB", Unit: "MB",
		Base: []Baseline{{Metric: "base-rss-MB", Label: "(minimal Go HTTP server)"}}},
	{Figure: "worker RSS at {rows}, after reads", Bench: "BenchmarkWorkerRSS/rows=*[0-9]", Metric: "rss-MB", Unit: "MB",
		Base: []Baseline{{Metric: "base-rss-MB", Label: "(minimal Go HTTP server)"}}, Target: le(120)},
	{Figure: "worker peak RSS at {rows}", Bench: "BenchmarkWorkerRSS/rows=*[0-9]", Metric: "peak-MB", Unit: "MB",
		Base: []Baseline{{Metric: "base-peak-MB", Label: "(minimal Go HTTP server)"}}},
	{Figure: "worker RSS at {rows}, semantic search on, after reads", Bench: "BenchmarkWorkerRSS/rows=*-semantic", Metric: "rss-MB", Unit: "MB",
		Base: []Baseline{{Metric: "rss-MB", Label: "(the same rows, semantic search off)", Bench: "BenchmarkWorkerRSS/rows=*[0-9]"}}},
	{Figure: "worker idle CPU at {rows}, semantic search on, every row embedded", Bench: "BenchmarkWorkerRSS/rows=*-semantic", Metric: "idle-cpu-%", Unit: "% of a core"},
	{Figure: "worker's own memory (RssAnon) at {rows}, semantic search on", Bench: "BenchmarkWorkerRSS/rows=*-semantic", Metric: "anon-MB", Unit: "MB",
		Base: []Baseline{{Metric: "anon-MB", Label: "(the same rows, semantic search off)", Bench: "BenchmarkWorkerRSS/rows=*[0-9]"}}},
	{Figure: "cold start to healthy, new data dir", Bench: "BenchmarkColdStart/fresh", Metric: "ms-to-healthy", Unit: "ms",
		Base: []Baseline{{Metric: "base-ms", Label: "(minimal Go HTTP server, spawn→200)"}}},
	{Figure: "cold start to healthy, existing data dir", Bench: "BenchmarkColdStart/existing", Metric: "ms-to-healthy", Unit: "ms",
		Base: []Baseline{{Metric: "base-ms", Label: "(minimal Go HTTP server, spawn→200)"}}},
}

func main() {
	out := flag.String("o", "", "also write the table to this file")
	quiet := flag.Bool("q", false, "print only the table, not the benchmark output")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *out, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, stdout io.Writer, outFile string, quiet bool) error {
	var pass io.Writer = stdout
	if quiet {
		pass = nil
	}
	res, err := Parse(in, pass)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n## mneme figures")
	if res.CPU != "" {
		b.WriteString(" — " + res.CPU)
	}
	b.WriteString("\n\nratio = result ÷ same-run baseline")
	b.WriteString("; targets are for a 2-core machine.\n\n")
	if err := Render(&b, Compute(spec, res)); err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	if outFile != "" {
		return os.WriteFile(outFile, []byte(strings.TrimPrefix(b.String(), "\n")), 0o644)
	}
	return nil
}
