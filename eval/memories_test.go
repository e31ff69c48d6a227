//go:build unix

package eval

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/e2e"
)

// EnvMemoryOut names a file that receives the memory table (make eval:
// .cache/eval/memories.md).
const EnvMemoryOut = "MNEME_EVAL_MEMORY_OUT"

// TestEvalMemories runs the memory scenarios through real Claude Code and
// mneme and prints their table: memories recalled, memories wrongly given
// as current (must be 0), and the tokens injected.
func TestEvalMemories(t *testing.T) {
	if os.Getenv(EnvEval) == "" {
		t.Skipf("set %s=1 (make eval) to run the memory benchmark", EnvEval)
	}
	e2e.ClaudeBin(t)
	var results []MemoryResult
	for _, sc := range MemoryScenarios() {
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		t.Run(slug(sc.Name), func(t *testing.T) {
			r := runMemoryScenario(t, &sc)
			if r.Score.Wrong > 0 {
				t.Errorf("%d memories wrongly given as current: %v", r.Score.Wrong, r.Score.WrongNames)
			}
			results = append(results, r)
		})
	}
	table := MemoryTable(results)
	fmt.Printf("\n%s", table)
	if out := os.Getenv(EnvMemoryOut); out != "" {
		stamp := time.Now().UTC().Format("2006-01-02 15:04 UTC")
		if err := os.WriteFile(out, []byte(fmt.Sprintf("Memory benchmark, %s\n\n%s", stamp, table)), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// runMemoryScenario runs the sessions and Next, scoring the SessionStart
// context of each checked session, and checks the stored memories' states
// before Next.
func runMemoryScenario(t *testing.T, sc *MemoryScenario) MemoryResult {
	m := e2e.NewMneme(t)
	m.Serve(t)
	dir := e2e.NewProject(t, sc.Next.Project)
	env := goEnv()
	checked := map[int]bool{}
	for _, i := range sc.checked() {
		checked[i] = true
	}
	r := MemoryResult{Scenario: sc.Name, States: "ok"}
	score := func(i int, fake *e2e.FakeAPI) {
		ctx := e2e.MnemeContext(fake.FirstToolRequestBody())
		if ctx == "" {
			t.Errorf("session %d: no <mneme-context> in its first model request", i+1)
		}
		s := sc.ScoreMemories(ctx)
		t.Logf("session %d: memories section (%d bytes, %d of the context's %d):\n%s", i+1, s.SectionBytes, s.Recalled, s.ContextBytes,
			strings.Join(MemorySection(ctx), "\n"))
		if len(s.Missed) > 0 {
			t.Logf("session %d: missed %v", i+1, s.Missed)
		}
		for _, l := range s.StaleLines {
			t.Logf("session %d: a stale memory outside the memories section: %s", i+1, l)
		}
		r.add(s)
	}
	for i, s := range append(append([]Session{}, sc.Sessions...), sc.Next) {
		if i == len(sc.Sessions) {
			r.States = memoryStates(t, m, sc)
		}
		steps := StepsIn(s.Steps, dir)
		if len(steps) == 0 {
			steps = []e2e.Step{e2e.Text("Noted.")}
		}
		fake := e2e.NewFakeAPI(t, steps...)
		res := claude(t, m, dir, fake.URL, s.Prompt, nil, env)
		if checked[i] {
			score(i, fake)
		}
		if i == len(sc.Sessions) {
			break
		}
		m.WaitSettled(t, res.JSON.SessionID)
		waitSummaries(t, m, res.JSON.SessionID, 1)
	}
	return r
}

// memoryStates checks that each expected memory is stored in its state:
// "ok", or what differs.
func memoryStates(t *testing.T, m *e2e.Mneme, sc *MemoryScenario) string {
	t.Helper()
	var page struct {
		Items []struct {
			Text  string `json:"text"`
			State string `json:"state"`
		} `json:"items"`
	}
	m.GetJSON(t, "/api/memories?limit=500&project="+url.QueryEscape(sc.Next.Project), &page)
	var bad []string
	for _, want := range sc.States {
		re := regexp.MustCompile("(?i)" + want.Text)
		got := "missing"
		for _, it := range page.Items {
			if re.MatchString(it.Text) {
				got = it.State
				break
			}
		}
		if got != want.State {
			bad = append(bad, fmt.Sprintf("%s: %s, want %s", want.Text, got, want.State))
		}
	}
	if len(bad) > 0 {
		t.Errorf("stored memories: %v\nall: %+v", bad, page.Items)
		return strings.Join(bad, "; ")
	}
	return "ok"
}

// MemoryResult is one memory scenario's outcome over its checked sessions.
type MemoryResult struct {
	Scenario string
	Checks   int // contexts scored
	Score    MemoryScore
	// States is "ok" when every stored memory ended in its expected state
	// (MemoryScenario.States), else what differs.
	States string
}

func (r *MemoryResult) add(s MemoryScore) {
	r.Checks++
	r.Score = r.Score.plus(s)
}

// plus adds o's counts to s's.
func (s MemoryScore) plus(o MemoryScore) MemoryScore {
	s.Recalled += o.Recalled
	s.Expected += o.Expected
	s.Wrong += o.Wrong
	s.StaleElsewhere += o.StaleElsewhere
	s.SectionBytes += o.SectionBytes
	s.ContextBytes += o.ContextBytes
	s.Missed = append(s.Missed, o.Missed...)
	s.StaleLines = append(s.StaleLines, o.StaleLines...)
	s.WrongNames = append(s.WrongNames, o.WrongNames...)
	return s
}

// MemoryTable renders the memory results as one markdown table. Tokens
// are per checked context (≈ bytes / 4, as mneme budgets).
func MemoryTable(results []MemoryResult) string {
	var b strings.Builder
	b.WriteString("| scenario | contexts checked | memories recalled | wrongly current | stale, outside the memories section | memories tokens / context | context tokens / context | stored states |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|---|\n")
	var tot MemoryResult
	for _, r := range results {
		memoryRow(&b, r.Scenario, r)
		tot.Checks += r.Checks
		tot.Score = tot.Score.plus(r.Score)
	}
	tot.States = "—"
	memoryRow(&b, "**total**", tot)
	n := max(tot.Checks, 1)
	fmt.Fprintf(&b, "\nSessionStart context: %d bytes (≈%d tokens) over %d checked contexts, mean %d bytes (≈%d tokens)\n",
		tot.Score.ContextBytes, (tot.Score.ContextBytes+3)/4, tot.Checks, tot.Score.ContextBytes/n, (tot.Score.ContextBytes/n+3)/4)
	return b.String()
}

func memoryRow(b *strings.Builder, name string, r MemoryResult) {
	n := max(r.Checks, 1)
	s := r.Score
	pct := 0.0
	if s.Expected > 0 {
		pct = 100 * float64(s.Recalled) / float64(s.Expected)
	}
	fmt.Fprintf(b, "| %s | %d | %d/%d (%.0f%%) | %d | %d | %d | %d | %s |\n",
		name, r.Checks, s.Recalled, s.Expected, pct, s.Wrong, s.StaleElsewhere,
		(s.SectionBytes+3)/4/n, (s.ContextBytes+3)/4/n, r.States)
}
