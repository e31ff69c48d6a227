package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden tables in testdata")

func parseFile(t *testing.T, name string) (*Results, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(bytes.NewReader(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, raw
}

func TestParse(t *testing.T) {
	res, _ := parseFile(t, "sample.txt")
	if res.CPU != "Intel(R) Xeon(R) Processor @ 2.50GHz" {
		t.Errorf("cpu %q", res.CPU)
	}
	for _, c := range []struct {
		name, unit string
		want       float64
		n          int
	}{
		{"BenchmarkHookPostToolUseWorkerUp-2", "p50-ms", 3.611, 1},
		{"BenchmarkHookPostToolUseWorkerUp-2", "ns/op", 3954113, 1},
		// Its name, a log line, then its result on a line of its own.
		{"BenchmarkHookSessionStart-2", "p99-ms", 12.03, 1},
		{"BenchmarkIngestConcurrent16-2", "cpu-µs/obs", 95.31, 1},
		// Three runs (-count 3): the median.
		{"BenchmarkStreamLatency/subs=100-2", "p99-ms", 6.101, 3},
		{"BenchmarkSearch/mix/rows=1000000-2", "base-p95-ms", 1.25, 1},
		{"BenchmarkWorkerRSS/idle-2", "rss-MB", 25.08, 1},
		{"BenchmarkNotInTheTable-2", "widgets/op", 7, 1},
		// A value that is not a number: the line is not a result.
		{"BenchmarkMalformed-2", "p50-ms", 0, 0},
		{"BenchmarkWorkerRSS/rows=1000000-2", "rss-MB", 0, 0},
	} {
		got, n := res.Value(c.name, c.unit)
		if got != c.want || n != c.n {
			t.Errorf("%s %s = %v (%d runs), want %v (%d)", c.name, c.unit, got, n, c.want, c.n)
		}
	}
	if !res.Failed["BenchmarkWorkerRSS/rows=1000000-2"] || !res.Skipped["BenchmarkColdStart"] {
		t.Errorf("failed %v, skipped %v", res.Failed, res.Skipped)
	}
}

func TestParsePassesEverythingThrough(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "sample.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Parse(bytes.NewReader(raw), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != string(raw) {
		t.Errorf("pass-through differs from the input:\n%s", out.String())
	}
}

func TestMedianOfEvenCount(t *testing.T) {
	res, err := Parse(strings.NewReader("BenchmarkX-2 10 1 ns/op 4 p50-ms\nBenchmarkX-2 10 1 ns/op 1 p50-ms\n"+
		"BenchmarkX-2 10 1 ns/op 2 p50-ms\nBenchmarkX-2 10 1 ns/op 9 p50-ms\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, n := res.Value("BenchmarkX-2", "p50-ms"); v != 3 || n != 4 {
		t.Errorf("median %v of %d, want 3 of 4", v, n)
	}
}

func TestMatchName(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"BenchmarkHookSessionStart", "BenchmarkHookSessionStart-2", true},
		{"BenchmarkHookSessionStart", "BenchmarkHookSessionStart", true}, // GOMAXPROCS=1: no suffix
		{"BenchmarkHookSessionStart", "BenchmarkHookSessionStartWorkerDown-2", false},
		{"BenchmarkHookPostToolUseWorkerUp", "BenchmarkHookPostToolUseWorkerUpMneme-2", false},
		{"BenchmarkStreamLatency/*s=1", "BenchmarkStreamLatency/subs=1-2", true},
		{"BenchmarkStreamLatency/*s=1", "BenchmarkStreamLatency/subscribers=1-8", true},
		{"BenchmarkStreamLatency/*s=1", "BenchmarkStreamLatency/subs=100-2", false},
		{"BenchmarkSearch/*/rows=*", "BenchmarkSearch/last-7-days/rows=20000-2", true},
		{"BenchmarkSearch/*/rows=*", "BenchmarkSearch/a/b/rows=20000-2", false},
		{"BenchmarkColdStart/fresh", "BenchmarkColdStart/fresh-16", true},
	} {
		if got := matchName(c.pattern, c.name); got != c.want {
			t.Errorf("matchName(%q, %q) = %v", c.pattern, c.name, got)
		}
	}
}

func TestCompute(t *testing.T) {
	res, _ := parseFile(t, "sample.txt")
	lines := map[string]Line{}
	for _, l := range Compute(spec, res) {
		lines[l.Figure] = l
	}
	for _, want := range []Line{
		{"hook post-tool-use, worker up, p50", "3.61 ms", "1.10 ms (no-op Go binary, p50)", "3.28×", "≤ 5 ms", "yes"},
		// No noop-p99-ms reported: the p50 floor, labelled as such.
		{"hook post-tool-use, worker down (spooled), p99", "61.2 ms", "1.10 ms (no-op Go binary, p50)", "55.5×", "≤ 50 ms", "NO"},
		{"hook session-start, worker up, p99", "12.0 ms", "1.10 ms (no-op Go binary, p50)", "10.9×", "—", "—"},
		{"hook session-start, worker down, p50", "not run", "—", "—", "≤ 50 ms", "—"},
		{"durable ingest, 16 clients", "12,310 obs/s", "39,872 obs/s (raw SQLite, one INSERT per row, 256 rows per tx, same disk)", "0.31×", "≥ 10,000 obs/s", "yes"},
		{"ingest→SSE, 1 subscriber, p99", "4.12 ms", "3.90 ms (ingest POST round trip, p99)", "1.06×", "—", "—"},
		{"ingest→SSE, 100 subscribers, p99", "6.10 ms (median of 3)", "4.40 ms (ingest POST round trip, p99)", "1.39×", "≤ 5 ms", "NO"},
		{"FTS search at 1M, mixed query shapes, p95", "28.3 ms", "1.25 ms (baseline, p95)", "22.6×", "≤ 30 ms", "yes"},
		// The worst shape is named; it reported no baseline.
		{"FTS search at 1M, p95 (worst: common-word)", "41.3 ms", "—", "—", "≤ 30 ms", "NO"},
		{"SessionStart hook at 100k (context build), p99", "19.9 ms", "9.53 ms (same hook, project without history, p99)", "2.09×", "≤ 25 ms", "yes"},
		{"context build alone at 100k, p99", "not run", "—", "—", "—", "—"},
		// Compared with another benchmark's figure of the same run.
		{"SessionStart hook at 100k + 10k memories, p99", "22.4 ms", "19.9 ms (same hook at 100k, no memories, p99)", "1.13×", "≤ 25 ms", "yes"},
		{"worker RSS, idle", "25.1 MB", "5.45 MB (minimal Go HTTP server)", "4.60×", "—", "—"},
		// Failed, with the row count of the spec's default.
		{"worker RSS at 1M, after reads", "FAILED", "—", "—", "≤ 120 MB", "—"},
		{"cold start to healthy, new data dir", "skipped", "—", "—", "—", "—"},
	} {
		got, ok := lines[want.Figure]
		if !ok {
			t.Errorf("no row %q", want.Figure)
			continue
		}
		if got != want {
			t.Errorf("row %q:\n got %+v\nwant %+v", want.Figure, got, want)
		}
	}
}

// TestCapturedRun reads the output of a real `make bench` (testdata/run.txt,
// 2026-11-25): every figure is filled (notMeasured lists those no benchmark
// measures yet; none now).
func TestCapturedRun(t *testing.T) {
	res, _ := parseFile(t, "run.txt")
	// The memories figures came after that run.
	notMeasured := map[string]bool{
		"SessionStart hook at 100k + 10k memories, p50": true,
		"SessionStart hook at 100k + 10k memories, p99": true,
		// The server's CPU and hybrid search came after it too.
		"team: server CPU per FTS search at 1M, mixed shapes": true,
		"hybrid search at 100k, 384 dims, mixed shapes, p95":  true,
		"hybrid search at 1M, 384 dims, mixed shapes, p95":    true,
		"vector index memory at 1M, 384 dims":                 true,
		"team: hybrid search at 100k on PostgreSQL, p95":      true,
		"team: hybrid search at 1M on PostgreSQL, p95":        true,
		// The failure hint came after it too (issue #35).
		"PostToolUseFailure hook at 100k (seen-before hint), p50":                     true,
		"PostToolUseFailure hook at 100k (seen-before hint), p99":                     true,
		"team: PostToolUseFailure hook at 100k on PostgreSQL (seen-before hint), p99": true,
		// The approximate vector index too (issue #38).
		"vector index load at 1M (in the background)":                            true,
		"vector index recall@10 vs exact at 1M, clustered vectors":               true,
		"vector index recall@10 vs exact at 1M, text-like vectors":               true,
		"vector index recall@10 vs exact at 1M, uniform vectors (worst case)":    true,
		"vector index recall@10 vs exact at 1M, one project of 20, worst family": true,
		"semantic search alone at 1M, 384 dims, p95 (worst family)":              true,
		// And the ingest ceiling (issue #38).
		"ingest ceiling: raw SQLite, 16 rows + events per tx": true,
		// And the floor hook.
		"floor hook (socket round trip only), alternated, p50": true,
		"hook post-tool-use, alternated, p50":                  true,
		// And the worker with semantic search on.
		"worker RSS at 1M, semantic search on, after reads":             true,
		"worker's own memory (RssAnon) at 1M, semantic search on":       true,
		"worker idle CPU at 1M, semantic search on, every row embedded": true,
	}
	for _, l := range Compute(spec, res) {
		if notMeasured[l.Figure] {
			if l.Result != "not run" {
				t.Errorf("%q: %q", l.Figure, l.Result)
			}
			continue
		}
		if !strings.HasSuffix(l.Result, "ms") && !strings.HasSuffix(l.Result, "MB") && !strings.HasSuffix(l.Result, "obs/s") && !strings.HasSuffix(l.Result, "ops") && !strings.HasSuffix(l.Result, "µs") {
			t.Errorf("%q has no value: %q", l.Figure, l.Result)
		}
	}
}

func TestEmptyInputSaysNotRun(t *testing.T) {
	for _, l := range Compute(spec, newResults()) {
		if l.Result != "not run" || l.Met != "—" {
			t.Errorf("%+v", l)
		}
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0.00", 3.14159: "3.14", 12.345: "12.3", 123.4: "123", 1234.5: "1,235", 1234567: "1,234,567", -2500: "-2,500"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestTable checks the whole output against testdata/*.golden: the raw
// lines first, then the table. go test -update rewrites them.
func TestTable(t *testing.T) {
	for _, name := range []string{"sample.txt", "empty.txt", "run.txt"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			tableFile := filepath.Join(t.TempDir(), "table.md")
			if err := run(bytes.NewReader(raw), &out, tableFile, false); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.String(), string(raw)) {
				t.Error("the raw output does not come first")
			}
			table, err := os.ReadFile(tableFile)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(out.String(), string(table)) {
				t.Error("-o file differs from the printed table")
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(name, ".txt")+".golden")
			if *update {
				if err := os.WriteFile(golden, table, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(table) != string(want) {
				t.Errorf("table differs from %s (go test -update to accept):\n%s", golden, table)
			}
		})
	}
}
