package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// BenchObservations is the size of the benchmark database.
const benchObservations = 100_000

// seeded is the benchmark database of one backend, seeded once per test
// binary.
type seeded struct {
	once    sync.Once
	dir     string // removed after the run
	keptDir string // MNEME_BENCH_KEEP: kept (SQLite)
	url     string // PostgreSQL: the seeded database, as long as the process
	err     error
}

var seeds [2]seeded // SQLite, PostgreSQL

// benchServer starts a worker on the seeded benchmark database of the
// matrix's backend: the SQLite file, or with MNEME_TEST_BACKEND=postgres
// the PostgreSQL database seeded with the same rows.
func benchServer(b *testing.B) *testutil.Server { return benchServerOn(b, pgtest.OnPostgres()) }

// benchServerOn is benchServer on PostgreSQL (team mode) when pg is set.
func benchServerOn(b *testing.B, pg bool) *testutil.Server {
	dir, url := seedBench(b, pg)
	return testutil.NewServerIn(b, dir, func(o *app.Options) { o.DatabaseURL = url })
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := range seeds {
		if seeds[i].dir != "" {
			os.RemoveAll(seeds[i].dir)
		}
	}
	os.Exit(code)
}

var vocab = strings.Fields(`parser lexer tokenizer storage migration handler router middleware session cache index query
	config settings redaction privacy stream broker retention summary context budget token worker spool install hook
	template layout search timeline export import stats chart sqlite fts5 bm25 goroutine channel mutex deadlock panic
	timeout retry backoff json yaml http fiber gorm templ chromedp test benchmark race flaky build release docker
	linux arm64 unicode utf8 escape csrf origin host cookie header bearer password secret rotate compress truncate`)

// seedBench builds, once per test binary and backend, a database with 100k
// observations over 1,000 sessions in 5 projects, with prompts and
// summaries: the SQLite file in the returned data directory, or the
// PostgreSQL database at the returned URL when pg is set.
func seedBench(b *testing.B, pg bool) (dataDir, url string) {
	sd := &seeds[0]
	if pg {
		sd = &seeds[1]
	}
	sd.once.Do(func() {
		if dir := os.Getenv("MNEME_BENCH_KEEP"); dir != "" && !pg {
			// Reuse (or keep) a seeded database between runs.
			if _, err := os.Stat(dir + "/mneme.db"); err == nil {
				sd.keptDir = dir
				return
			}
			sd.keptDir, sd.err = dir, os.MkdirAll(dir, 0o700)
		} else {
			sd.dir, sd.err = os.MkdirTemp("", "mneme-bench-")
		}
		if sd.err != nil {
			return
		}
		dir := sd.dir + sd.keptDir
		var store *models.Store
		if pg {
			// A database that lives as long as the test process: every
			// benchmark's worker opens it (see benchServerOn).
			if sd.url, _, sd.err = pgtest.NewDatabase(); sd.err != nil {
				return
			}
			store, sd.err = models.OpenPostgres(sd.url, dir)
		} else {
			store, sd.err = models.Open(dir + "/mneme.db")
		}
		if sd.err != nil {
			return
		}
		defer store.Close()
		r := rand.New(rand.NewPCG(1, 2))
		// Words follow a Zipf law over the real words above, then 5,000
		// made-up ones: a few terms are everywhere, most are rare.
		all := append([]string{}, vocab...)
		syl := strings.Fields("ka lo mi ner tus va ro pel din sha qu ex zor fi ban")
		for len(all) < len(vocab)+5000 {
			all = append(all, syl[r.IntN(len(syl))]+syl[r.IntN(len(syl))]+syl[r.IntN(len(syl))])
		}
		zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.07, 2, uint64(len(all)-1))
		words := func(n int) string {
			w := make([]string, n)
			for i := range w {
				w[i] = all[zipf.Uint64()]
			}
			return strings.Join(w, " ")
		}
		start := time.Now().Add(-90 * 24 * time.Hour).UTC()
		sd.err = store.Writer.Do(context.Background(), func(tx *models.Tx) error {
			perSession := benchObservations / 1000
			for s := 0; s < 1000; s++ {
				project := fmt.Sprintf("proj%d", s%5)
				at := start.Add(time.Duration(s) * 2 * time.Hour)
				sess := models.Session{ClaudeSessionID: fmt.Sprintf("seed-%d", s), Project: project, Cwd: "/home/dev/" + project,
					Status: models.StatusCompleted, StartedAt: at, LastAssistantMessage: "Done: " + words(25)}
				if err := tx.Insert(&sess); err != nil {
					return err
				}
				for p := 1; p <= 3; p++ {
					if err := tx.Insert(&models.Prompt{SessionID: sess.ID, Project: project, Number: p, Text: "please " + words(20), CreatedAt: at}); err != nil {
						return err
					}
				}
				for k := 0; k < perSession; k++ {
					ok := r.IntN(8) != 0
					kind, tool, files := models.KindBash, "Bash", []string{}
					if k%4 == 1 {
						kind, tool, files = models.KindFileChange, "Edit", []string{fmt.Sprintf("/home/dev/%s/%s/%s.go", project, vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))])}
					}
					if !ok {
						kind = models.KindFailure
					}
					tu := fmt.Sprintf("tu-%d-%d", s, k)
					err := tx.Insert(&models.Observation{SessionID: sess.ID, Project: project, PromptNumber: 1, ToolUseID: &tu, ToolName: tool, Kind: kind,
						Title: "Ran `" + words(4) + "`", Input: "go test ./" + vocab[r.IntN(len(vocab))] + "/...", Output: words(60), Files: files,
						Success: ok, Importance: []float64{0.5, 0.7, 0.9, 1}[r.IntN(4)], CreatedAt: at.Add(time.Duration(k) * time.Second)})
					if err != nil {
						return err
					}
				}
				if s%2 == 0 {
					if err := tx.Insert(&models.Summary{SessionID: sess.ID, Project: project, Kind: models.SummaryFinal, Request: words(12),
						Completed: words(20), Learned: words(15), NextSteps: words(10), CreatedAt: at.Add(time.Hour)}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if sd.err == nil {
			// The steady state autovacuum keeps a live database in
			// (statistics, visibility map); a no-op on SQLite.
			sd.err = store.Analyze(context.Background())
		}
	})
	if sd.err != nil {
		b.Fatal(sd.err)
	}
	return sd.dir + sd.keptDir, sd.url
}

// runID keeps session ids of one benchmark run apart from those of earlier
// runs on a kept database (MNEME_BENCH_KEEP).
var runID = time.Now().UnixNano()

// reportLatency reports p50 and p99 of the measured calls.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// BenchmarkSessionStartHook100k (ns/op includes an untimed prompt per
// session and the baseline call; read p50/p99) posts SessionStart for a new
// session of a project with 20k observations (100k in the database) to the
// real worker over HTTP and waits for the context it returns: session
// creation, commit and context building, end to end.
//
// base-p50-ms and base-p99-ms are the same hook round trip, interleaved
// with the measured one on the same worker and database, for a new session
// of a project that has no history at all: HTTP, decoding, session creation
// and commit, and a context build that finds nothing. The difference is
// what building the context from 100k observations costs.
func BenchmarkSessionStartHook100k(b *testing.B) { sessionStartHook100k(b, benchServer(b)) }

// BenchmarkSessionStartHook100kPostgres is BenchmarkSessionStartHook100k in
// team mode: the worker on a PostgreSQL database seeded with the same rows.
func BenchmarkSessionStartHook100kPostgres(b *testing.B) {
	sessionStartHook100k(b, benchServerOn(b, true))
}

func sessionStartHook100k(b *testing.B, srv *testutil.Server) {
	lat := make([]time.Duration, 0, b.N)
	base := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Alternate which call goes first, so neither always follows the
		// other (warm caches, a commit just done).
		if i%2 == 1 {
			base = append(base, sessionStartWithoutHistory(b, srv, i))
		}
		t0 := time.Now()
		id := fmt.Sprintf("bench-start-%d-%d-%d", runID, b.N, i)
		body := srv.Hook(b, "session-start", ev(id, "SessionStart", map[string]any{"source": "startup", "project": "proj1"}))
		lat = append(lat, time.Since(t0))
		// Give the session a prompt (not timed), as a real one would have:
		// otherwise the latest sessions soon are all empty ones, which the
		// context skips, and later iterations would get less to build.
		srv.Hook(b, "user-prompt-submit", ev(id, "UserPromptSubmit", map[string]any{"prompt": "continue the " + vocab[i%len(vocab)] + " work", "prompt_id": "p", "project": "proj1"}))
		if i == 0 {
			if ctx := additional(b, body); len(ctx) < 1000 {
				b.Fatalf("little context: %q", ctx)
			} else {
				b.ReportMetric(float64(len(ctx)), "context-bytes")
			}
		}
		if i%2 == 0 {
			base = append(base, sessionStartWithoutHistory(b, srv, i))
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
	reportBaseLatency(b, base)
}

// sessionStartWithoutHistory times SessionStart for a new session of a
// project never seen before (one per call, so none gains history).
func sessionStartWithoutHistory(b *testing.B, srv *testutil.Server, i int) time.Duration {
	id := fmt.Sprintf("bench-start-base-%d-%d-%d", runID, b.N, i)
	t0 := time.Now()
	body := srv.Hook(b, "session-start", ev(id, "SessionStart", map[string]any{"source": "startup", "project": id}))
	took := time.Since(t0)
	if ctx := additional(b, body); ctx != "" {
		b.Fatalf("a project without history got context: %q", ctx)
	}
	return took
}

// reportBaseLatency reports p50 and p99 of a same-run baseline.
func reportBaseLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "base-p50-ms")
	b.ReportMetric(q(0.99), "base-p99-ms")
}

var benchPrompts = []string{
	"why does the tokenizer panic on unicode input",
	"the sqlite fts5 index is slow, check bm25 ranking in search",
	"fix the flaky race in the broker goroutine channel",
	"write a haiku about autumn leaves",
	"add csrf protection to the settings handler and check the origin header",
	"release build for linux arm64 fails in docker",
}

// BenchmarkRelatedMemory100k is the related-memory lookup alone (keywords,
// FTS5 BM25 over 100k observations, relevance) for varied prompts.
func BenchmarkRelatedMemory100k(b *testing.B) { relatedMemory100k(b, benchServer(b)) }

func relatedMemory100k(b *testing.B, srv *testutil.Server) {
	builder := &recall.Builder{Store: srv.Store, Policy: srv.Capture.Policy}
	// One prompt in seven quotes a recent title of the project: a lookup
	// that finds something, so formatting is measured too.
	var title string
	modelstest.Row(b, srv.Store, []any{&title}, `SELECT title FROM observations WHERE project = 'proj2' ORDER BY id DESC LIMIT 1 OFFSET 300`)
	prompts := append(append([]string{}, benchPrompts...), "what happened when we "+strings.Trim(title, "Ran `"))
	lat := make([]time.Duration, 0, b.N)
	hits := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		out, err := builder.RelatedMemory(context.Background(), "proj2", 0, prompts[i%len(prompts)])
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		if out != "" {
			hits++
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
	b.ReportMetric(float64(hits)/float64(b.N), "answered/op")
}

// noKeywordPrompts have no search keywords (only stop words and short
// words): the worker stores them but looks nothing up.
var noKeywordPrompts = []string{
	"ok, go on",
	"yes please, do that",
	"thanks, now the next one",
	"okay, check it again",
	"sure, try it",
	"go on",
}

// BenchmarkUserPromptSubmitHook100k is UserPromptSubmit end to end over
// HTTP: the prompt is stored and related memory searched before the answer.
//
// base-p50-ms and base-p99-ms are the same hook round trip, interleaved
// with the measured one, for a prompt with no keywords in another session
// of the same project: HTTP, decoding and storing the prompt, without the
// lookup. The difference is what the related-memory lookup over 100k
// observations costs.
func BenchmarkUserPromptSubmitHook100k(b *testing.B) {
	srv := benchServer(b)
	for _, p := range noKeywordPrompts {
		if kws := recall.Keywords(p, recall.MaxKeywords); len(kws) > 0 {
			b.Fatalf("baseline prompt %q has keywords %q", p, kws)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	base := make([]time.Duration, 0, b.N)
	prompt := func(session, text string, i int) time.Duration {
		t0 := time.Now()
		srv.Hook(b, "user-prompt-submit", ev(session, "UserPromptSubmit", map[string]any{
			"prompt": text, "prompt_id": fmt.Sprintf("p-%d", i), "project": "proj3"}))
		return time.Since(t0)
	}
	session := fmt.Sprintf("bench-prompt-%d-%d", runID, b.N)
	baseSession := fmt.Sprintf("bench-prompt-base-%d-%d", runID, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 1 {
			base = append(base, prompt(baseSession, noKeywordPrompts[i%len(noKeywordPrompts)], i))
		}
		lat = append(lat, prompt(session, benchPrompts[i%len(benchPrompts)], i))
		if i%2 == 0 {
			base = append(base, prompt(baseSession, noKeywordPrompts[i%len(noKeywordPrompts)], i))
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
	reportBaseLatency(b, base)
}

// BenchmarkSessionContext100k is the context building alone, without HTTP
// and without creating the session.
func BenchmarkSessionContext100k(b *testing.B) {
	srv := benchServer(b)
	builder := &recall.Builder{Store: srv.Store, Policy: srv.Capture.Policy}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := builder.SessionContext(context.Background(), capture.ContextRequest{Project: "proj1", Source: "startup"}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// BenchmarkSessionStartHook100kMemories is BenchmarkSessionStartHook100k
// (SQLite) with 10,000 memories of the project asking besides the 100k
// observations: a quarter in force, pinned a few, the rest superseded,
// done or retired, each naming a file. Compare its p99-ms with
// BenchmarkSessionStartHook100k's in the same run.
func BenchmarkSessionStartHook100kMemories(b *testing.B) {
	pgtest.SkipOnPostgres(b, "a copy of the seeded SQLite file")
	dir := seedBenchMemories(b, "proj1")
	srv := testutil.NewServerIn(b, dir)
	sessionStartHook100k(b, srv)
}

// seedBenchMemories is a copy of the seeded SQLite database (see
// seedBench) with 10,000 memories of project: a quarter in force, pinned
// a few, the rest superseded, done or retired, each naming a file.
func seedBenchMemories(b *testing.B, project string) string {
	src, _ := seedBench(b, false)
	dir := b.TempDir()
	raw, err := os.ReadFile(src + "/mneme.db")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dir+"/mneme.db", raw, 0o600); err != nil {
		b.Fatal(err)
	}
	store, err := models.Open(dir + "/mneme.db")
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	states := []string{models.MemoryCurrent, models.MemorySuperseded, models.MemoryDone, models.MemoryRetired}
	for batch := 0; batch < 20; batch++ {
		err := store.Writer.Do(context.Background(), func(tx *models.Tx) error {
			for i := batch * 500; i < (batch+1)*500; i++ {
				m := models.Memory{Project: project, Source: models.SourceClaude, Kind: models.MemoryKinds[i%4],
					Text:  fmt.Sprintf("memory %d: keep the %s %s in `%s.go`", i, vocab[i%len(vocab)], vocab[(i*7)%len(vocab)], vocab[(i*3)%len(vocab)]),
					Files: []string{vocab[(i*3)%len(vocab)] + ".go"}, State: states[i%4], Pinned: i%1000 == 0}
				if _, err := tx.InsertMemory(&m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkRelatedMemory100kMemories is BenchmarkRelatedMemory100k
// (SQLite) with 10,000 memories of the project asking (see
// seedBenchMemories), whose words are the benchmark prompts' own: compare
// their p50-ms and p99-ms in the same run.
func BenchmarkRelatedMemory100kMemories(b *testing.B) {
	pgtest.SkipOnPostgres(b, "a copy of the seeded SQLite file")
	relatedMemory100k(b, testutil.NewServerIn(b, seedBenchMemories(b, "proj2")))
}
