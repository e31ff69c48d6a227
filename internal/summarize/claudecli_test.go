package summarize_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

// fakeClaude builds testdata/fakeclaude once per test binary.
func fakeClaude(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fakeclaude")
		if err != nil {
			fakeErr = err
			return
		}
		fakeBin = filepath.Join(dir, "claude")
		out, err := exec.Command("go", "build", "-o", fakeBin, "./testdata/fakeclaude").CombinedOutput()
		if err != nil {
			fakeErr = errors.New(string(out))
		}
	})
	if fakeErr != nil {
		t.Fatalf("build fake claude: %v", fakeErr)
	}
	return fakeBin
}

type record struct {
	PID           int      `json:"pid"`
	Args          []string `json:"args"`
	Stdin         string   `json:"stdin"`
	SummarizerEnv string   `json:"summarizerEnv"`
	Grandchild    int      `json:"grandchild"`
	Start         int64    `json:"start"`
	End           int64    `json:"end"`
}

func records(t *testing.T, dir string) []record {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []record
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r record
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, r)
	}
	return out
}

// alive reports whether pid is still in the process table as a live
// (not zombie) process, with its state letter.
func alive(pid int) (bool, string) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, "gone"
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	state := strings.Fields(s[i+1:])[0]
	return state != "Z" && state != "X", state
}

// sampleInput is a small but real input loaded from a worker's database.
func sampleInput(t *testing.T) *summarize.Input {
	t.Helper()
	srv := testutil.NewServer(t)
	replay(t, srv, jwtSession("cli-sample"))
	waitJobs(t, srv.Store, 30*time.Second)
	in, err := summarize.LoadInput(context.Background(), srv.Store, sessionID(t, srv.Store, "cli-sample"), models.SummaryFinal, 0)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestClaudeCLI(t *testing.T) {
	bin := fakeClaude(t)
	in := sampleInput(t)
	tests := []struct {
		mode      string
		timeout   time.Duration
		wantErr   string // substring; "" means success
		permanent bool
	}{
		{mode: "ok", timeout: 10 * time.Second},
		{mode: "text", timeout: 10 * time.Second},
		{mode: "hang", timeout: 700 * time.Millisecond, wantErr: "did not finish in time"},
		{mode: "exit1", timeout: 10 * time.Second, wantErr: "exited with status 1: Error: Invalid API key"},
		{mode: "garbage", timeout: 10 * time.Second, wantErr: "not in the summary format", permanent: true},
		{mode: "flood", timeout: 10 * time.Second, wantErr: "wrote more than", permanent: true},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			dir := t.TempDir()
			c := &summarize.ClaudeCLI{Path: bin, Model: "claude-haiku-4-5", MaxOutput: 64 << 10,
				Env: []string{"FAKE_CLAUDE_MODE=" + tc.mode, "FAKE_CLAUDE_RECORD=" + dir}}
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			start := time.Now()
			res, err := c.Summarize(ctx, in)
			took := time.Since(start)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Summarize: %v", err)
				}
				if res.Completed != "Created internal/auth/jwt.go; go test ./... passes." || res.NextSteps != "Read the signing key from the config file." {
					t.Errorf("parsed result = %+v", res)
				}
				if tc.mode == "ok" && (res.InputTokens != 1500 || res.OutputTokens != 95 || res.CostUSD != 0.0042 || res.Model != "claude-haiku-4-5-20251001") {
					t.Errorf("usage = in %d out %d cost %v model %q", res.InputTokens, res.OutputTokens, res.CostUSD, res.Model)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if errors.Is(err, hookwire.ErrPermanent) != tc.permanent {
					t.Errorf("permanent(%v) = %v", err, !tc.permanent)
				}
			}
			if tc.mode == "hang" && took > 5*time.Second {
				t.Errorf("hung run took %s to be killed", took)
			}
			recs := records(t, dir)
			if len(recs) != 1 {
				t.Fatalf("%d runs recorded, want 1", len(recs))
			}
			r := recs[0]
			// What it was run with: print mode, JSON output, no tools, hooks
			// disabled, the marker set, the record on stdin.
			args := strings.Join(r.Args, " ")
			for _, want := range []string{"-p", "--output-format json", "--no-session-persistence", `--settings {"disableAllHooks":true}`, "--model claude-haiku-4-5"} {
				if !strings.Contains(args, want) {
					t.Errorf("args %q lack %q", args, want)
				}
			}
			if r.SummarizerEnv != "1" {
				t.Errorf("MNEME_SUMMARIZER = %q in the child", r.SummarizerEnv)
			}
			if !strings.Contains(r.Stdin, "Prompt 1: Add JWT auth middleware") || !strings.Contains(r.Stdin, "missing env var JWT_SECRET") || !strings.Contains(r.Stdin, "NEXT_STEPS:") {
				t.Errorf("stdin lacks the record:\n%s", r.Stdin)
			}
			// No orphans: the child is reaped, and whatever it started is
			// dead too (process group killed).
			for _, pid := range []int{r.PID, r.Grandchild} {
				if pid == 0 {
					continue
				}
				deadline := time.Now().Add(60 * time.Second)
				for {
					live, state := alive(pid)
					if !live && (pid != r.PID || state == "gone") {
						t.Logf("pid %d (child=%v): %s", pid, pid == r.PID, state)
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("process %d still in the process table (state %s)", pid, state)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

// fakeProcesses lists live processes running the fake binary: after the
// tests none may remain.
func fakeProcesses(t *testing.T, bin string) []string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		exe, err := os.Readlink(filepath.Join(d, "exe"))
		if err != nil || exe != bin {
			continue
		}
		if live, state := alive(atoi(filepath.Base(d))); live {
			out = append(out, filepath.Base(d)+" "+state)
		}
	}
	return out
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func TestClaudeCLINoOrphans(t *testing.T) {
	bin := fakeClaude(t)
	in := sampleInput(t)
	for range 3 {
		c := &summarize.ClaudeCLI{Path: bin, Env: []string{"FAKE_CLAUDE_MODE=hang"}}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		if _, err := c.Summarize(ctx, in); err == nil {
			t.Fatal("a hanging run succeeded")
		}
		cancel()
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		left := fakeProcesses(t, bin)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fake claude processes left in the process table: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClaudeCLIOneAtATime runs four summaries at once: the runs must not
// overlap.
func TestClaudeCLIOneAtATime(t *testing.T) {
	bin := fakeClaude(t)
	in := sampleInput(t)
	dir := t.TempDir()
	c := &summarize.ClaudeCLI{Path: bin, Env: []string{"FAKE_CLAUDE_MODE=slow", "FAKE_CLAUDE_RECORD=" + dir}}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Summarize(context.Background(), in); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	recs := records(t, dir)
	if len(recs) != 4 {
		t.Fatalf("%d runs, want 4", len(recs))
	}
	for i, a := range recs {
		for j, b := range recs {
			if i != j && a.Start < b.End && b.Start < a.End {
				t.Errorf("runs %d and %d overlapped", a.PID, b.PID)
			}
		}
	}
}

// TestClaudeCLIMissingBinary is a permanent error, not a retry loop.
func TestClaudeCLIMissingBinary(t *testing.T) {
	t.Parallel()
	c := &summarize.ClaudeCLI{Path: filepath.Join(t.TempDir(), "no-such-claude")}
	_, err := c.Summarize(context.Background(), &summarize.Input{})
	if err == nil || !errors.Is(err, hookwire.ErrPermanent) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("err = %v", err)
	}
}

// TestQueueClaudeCLIFallback runs the worker's queue with claude-cli set:
// a good answer is stored as claude-cli with its tokens in the ledger; a
// garbage answer falls back to the heuristic summary and says so.
func TestQueueClaudeCLIFallback(t *testing.T) {
	bin := fakeClaude(t)
	for _, tc := range []struct {
		mode, generator, note string
		ledger                int64
	}{
		{"ok", "claude-cli", "", 1},
		{"garbage", "heuristic", "claude-cli failed after 1 attempt (answer is not in the summary format", 0},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Setenv("FAKE_CLAUDE_MODE", tc.mode)
			t.Setenv("FAKE_CLAUDE_RECORD", t.TempDir())
			srv := testutil.NewServer(t)
			setSummarizer(t, srv, func(s *models.SummarizerSettings) { s.Kind = "claude-cli"; s.ClaudePath = bin })
			replay(t, srv, jwtSession("q-" + tc.mode)[:12]) // up to the first Stop
			waitJobs(t, srv.Store, 20*time.Second)
			sums, err := srv.Store.SummariesOfSession(context.Background(), sessionID(t, srv.Store, "q-"+tc.mode))
			if err != nil || len(sums) != 1 {
				t.Fatalf("summaries = %v, %v", sums, err)
			}
			s := sums[0]
			if s.Generator != tc.generator || !strings.HasPrefix(s.Note, tc.note) {
				t.Errorf("generator %q note %q", s.Generator, s.Note)
			}
			if s.Completed == "" {
				t.Error("empty completed")
			}
			tot, err := summarize.Totals(context.Background(), srv.Store, srv.Capture.Policy().Settings, time.Now())
			if err != nil || tot.All.Calls != tc.ledger {
				t.Errorf("ledger = %+v, %v", tot, err)
			}
		})
	}
}

// setSummarizer changes the summarizer settings the way the settings page
// does: stored, then applied.
func setSummarizer(t *testing.T, srv *testutil.Server, edit func(*models.SummarizerSettings)) {
	t.Helper()
	st := srv.Capture.Policy().Settings
	edit(&st.Summarizer)
	if err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error { return tx.WriteSettings(st) }); err != nil {
		t.Fatal(err)
	}
	srv.UseSettings(t, st)
}
