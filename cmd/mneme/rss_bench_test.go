package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models/benchdb"
)

// procStatus reads a kB field (VmRSS, VmHWM) of /proc/<pid>/status, in MB.
func procStatus(tb testing.TB, pid int, field string) float64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	tb.Fatalf("%s not in /proc/%d/status", field, pid)
	return 0
}

// procCPU is the CPU time (user and system) /proc/<pid>/stat counts for
// the process so far.
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is the first, utime and stime the 12th and 13th.
	_, rest, _ := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		tb.Fatalf("/proc/%d/stat: %q", pid, data)
	}
	ticks := 0.0
	for _, x := range f[11:13] {
		v, _ := strconv.ParseFloat(x, 64)
		ticks += v
	}
	return time.Duration(ticks * float64(time.Second) / 100) // USER_HZ
}

// startServe runs the built binary's `mneme serve` on dataDir and waits for
// /api/health.
func startServe(b *testing.B, dataDir string) (pid, port int) {
	b.Helper()
	bin, _ := buildBinaries(b)
	port = freePort(b)
	cmd := exec.Command(bin, "serve")
	cmd.Env = binEnv(dataDir, port)
	// MNEME_RSS_WORKER_ENV adds to the worker's environment, for trying
	// the runtime's knobs (e.g. "GOGC=50 GOMEMLIMIT=110MiB").
	if v := os.Getenv("MNEME_RSS_WORKER_ENV"); v != "" {
		cmd.Env = append(cmd.Env, strings.Fields(v)...)
	}
	// MNEME_RSS_WORKER_STDERR names a file for the worker's stderr (with
	// GODEBUG=gctrace=1 in MNEME_RSS_WORKER_ENV: its collections).
	if p := os.Getenv("MNEME_RSS_WORKER_STDERR"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		cmd.Stderr = f
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	for deadline := time.Now().Add(60 * time.Second); healthPID(dataDir) != cmd.Process.Pid; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("mneme serve did not answer /api/health within 60s")
		}
	}
	return cmd.Process.Pid, port
}

// BenchmarkWorkerRSS runs the real binary (`mneme serve`) and reads its
// resident memory from /proc/<pid>/status: idle on an empty data dir, and
// on the synthetic database (1M observations unless -short or
// MNEME_BENCH_ROWS) after serving the feed, session list, searches, stats
// and projects (and, in the -semantic variant, with semantic search on).
// Reported: rss-MB (VmRSS now), peak-MB (VmHWM), and anon-MB and file-MB,
// the two parts of rss-MB (RssAnon: the worker's own memory, Go's heap and
// SQLite's page caches; RssFile: mapped files, the binary's pages).
//
// base-rss-MB and base-peak-MB are the same readings of the smallest Go
// HTTP server (bench/minserver), built and run beside it in the same
// benchmark and sent as many requests: the floor of any Go HTTP worker, so
// the difference is what mneme itself holds.
func BenchmarkWorkerRSS(b *testing.B) {
	b.Run("idle", func(b *testing.B) {
		pid, _ := startServe(b, b.TempDir())
		basePID, _ := startMinServer(b)
		for i := 0; i < b.N; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Second)
		b.ReportMetric(procStatus(b, pid, "VmRSS"), "rss-MB")
		b.ReportMetric(procStatus(b, pid, "VmHWM"), "peak-MB")
		b.ReportMetric(procStatus(b, basePID, "VmRSS"), "base-rss-MB")
		b.ReportMetric(procStatus(b, basePID, "VmHWM"), "base-peak-MB")
	})
	rows := benchdb.Rows(b)
	b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
		benchWorkerRSS(b, benchdb.Build(b, rows), false)
	})
	// The same with semantic search on: every row has a vector (the
	// hybrid benchmarks' database), the worker is pointed at a loopback
	// embeddings endpoint of their model, loads its vector index in the
	// background, and answers semantic searches too.
	b.Run(fmt.Sprintf("rows=%d-semantic", rows), func(b *testing.B) {
		benchWorkerRSS(b, benchdb.WithVectors(b, rows), true)
	})
}

// benchWorkerRSS serves b.N rounds of the feed, session list, searches,
// stats and projects from `mneme serve` on a copy of db (and, with
// semantic, semantic searches after the vector index loaded) and reports
// the worker's and the baseline server's resident memory.
func benchWorkerRSS(b *testing.B, db *benchdb.DB, semantic bool) {
	// The worker gets its own copy of the database: it may write (the
	// summary queue, settings), and the shared one must stay as built.
	dir := db.WorkerCopy(b)
	pid, port := startServe(b, dir)
	basePID, basePort := startMinServer(b)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	paths := []string{"/api/stats", "/api/stats?days=90", "/api/projects", "/api/observations?limit=100",
		"/api/sessions?limit=100", "/api/search?q=" + url.QueryEscape(benchdb.Word(300)),
		"/api/search?q=" + url.QueryEscape(benchdb.Word(3000)), "/api/search?q=" + url.QueryEscape(benchdb.Word(30))}
	// mneme's API wants the worker's secret over TCP (the stand-in
	// ignores the header).
	secret, err := hookwire.ReadSecretFile(filepath.Join(dir, hookwire.SecretFile))
	if err != nil {
		b.Fatal(err)
	}
	do := func(method, u, body string) int {
		req, _ := http.NewRequest(method, u, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	get := func(u string) {
		if status := do(http.MethodGet, u, ""); status != 200 {
			b.Fatalf("GET %s: %d", u, status)
		}
	}
	for i := range paths {
		paths[i] = base + paths[i]
	}
	if semantic {
		fake := embedtest.New(benchdb.VectorDims)
		b.Cleanup(fake.Close)
		body := fmt.Sprintf(`{"embeddings":{"url":%q,"model":%q,"dimensions":%d}}`, fake.URL, benchdb.VectorModel, benchdb.VectorDims)
		if status := do(http.MethodPut, base+"/api/settings", body); status != 200 {
			b.Fatalf("PUT embeddings settings: %d", status)
		}
		// A semantic search answers 503 until the index has loaded.
		sem := base + "/api/search?mode=semantic&q=" + url.QueryEscape(benchdb.Word(300))
		for deadline := time.Now().Add(10 * time.Minute); do(http.MethodGet, sem, "") != 200; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatal("the vector index did not load within 10 minutes")
			}
		}
		paths = append(paths, sem, base+"/api/search?mode=hybrid&q="+url.QueryEscape(benchdb.Word(3000)))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range paths {
			get(p)
			get("http://127.0.0.1:" + strconv.Itoa(basePort) + "/api/health")
		}
	}
	if semantic {
		// An idle worker's CPU with semantic search on, once every row has
		// a vector (the database has them for its observations only: the
		// worker embeds its prompts and summaries first, through the
		// loopback endpoint): the embeddings indexer keeps looking for
		// rows to embed.
		t0 := time.Now()
		for deadline := t0.Add(15 * time.Minute); ; time.Sleep(time.Second) {
			var h api.Health
			req, _ := http.NewRequest(http.MethodGet, base+"/api/health", nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			err = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			if err != nil {
				b.Fatal(err)
			}
			if h.Embeddings.Total > 0 && h.Embeddings.Embedded == h.Embeddings.Total {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("not every row embedded after 15 minutes: %+v", h.Embeddings)
			}
		}
		b.ReportMetric(time.Since(t0).Seconds(), "catch-up-s")
		const idle = 10 * time.Second
		cpu0 := procCPU(b, pid)
		time.Sleep(idle)
		b.ReportMetric(100*float64(procCPU(b, pid)-cpu0)/float64(idle), "idle-cpu-%")
		// Then what a search costs in that worker, all caught up: hybrid
		// searches of 60 words, one at a time, each timed.
		var took []time.Duration
		for i := 0; i < 60; i++ {
			t := time.Now()
			get(base + "/api/search?mode=hybrid&q=" + url.QueryEscape(benchdb.Word(37*i+11)))
			took = append(took, time.Since(t))
		}
		slices.Sort(took)
		b.ReportMetric(ms(percentile(took, 0.5)), "hybrid-p50-ms")
		b.ReportMetric(ms(percentile(took, 0.95)), "hybrid-p95-ms")
	}
	b.ReportMetric(procStatus(b, pid, "VmRSS"), "rss-MB")
	b.ReportMetric(procStatus(b, pid, "VmHWM"), "peak-MB")
	// What of it is the worker's own memory, and what pages of the
	// database file it has mapped (SQLite's mmap): those are the page
	// cache's, shared and given back under pressure.
	b.ReportMetric(procStatus(b, pid, "RssAnon"), "anon-MB")
	b.ReportMetric(procStatus(b, pid, "RssFile"), "file-MB")
	b.ReportMetric(procStatus(b, basePID, "VmRSS"), "base-rss-MB")
	b.ReportMetric(procStatus(b, basePID, "VmHWM"), "base-peak-MB")
}

// startMinServer builds bench/minserver (the smallest Go HTTP server, the
// baseline) and runs it on a free loopback port until the benchmark ends.
func startMinServer(b *testing.B) (pid, port int) {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "minserver")
	build := exec.Command("go", "build", "-o", bin, "./bench/minserver")
	build.Dir = repoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build minserver: %v\n%s", err, out)
	}
	port = freePort(b)
	cmd := exec.Command(bin, strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	u := "http://127.0.0.1:" + strconv.Itoa(port) + "/api/health"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(u); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("minserver did not answer within 30s")
		}
	}
	return cmd.Process.Pid, port
}
