//go:build unix

package eval

import (
	"os"
	"testing"

	"github.com/mneme-dev/mneme/e2e"
)

// Smoke scenarios: one of each kind, the cheap ones (shell commands
// only, no `go` run inside them), which make eval scores in full.
const (
	smokeScenario       = "commands: which work, which fail"
	smokeMemoryScenario = "decision superseded two sessions later"
)

// TestEvalSmoke runs one recall scenario and one memory scenario through
// the benchmark's own runner, so that `make test` catches a harness that
// no longer runs (as when it waited for a final summary a one-turn session
// no longer stores) without the whole `make eval`. Both scenarios are
// deterministic and make eval scores them in full: every fact reaches the
// next session's SessionStart context, with no wrong claim, and every
// memory in force is there with none wrongly current.
//
// It skips when Claude Code is not installed (e2e.ClaudeBin), under -short,
// and under MNEME_EVAL, where TestEval and TestEvalMemories run them.
func TestEvalSmoke(t *testing.T) {
	if os.Getenv(EnvEval) != "" {
		t.Skip("make eval runs every scenario")
	}
	if testing.Short() {
		t.Skip("runs real Claude Code sessions")
	}
	e2e.ClaudeBin(t)
	t.Run("recall", func(t *testing.T) {
		t.Parallel()
		sc := findScenario(t, smokeScenario)
		r := runScenario(t, &sc)
		if r.Start.Found != r.Start.Facts || r.Start.Wrong != 0 {
			t.Errorf("SessionStart recall %s, %d wrong claims; missed %v", frac(r.Start), r.Start.Wrong, r.Start.Missed)
		}
		if r.Calls != 0 {
			t.Errorf("%d MCP calls for facts the context lacked", r.Calls)
		}
		if r.Base.Facts != r.Start.Facts {
			t.Errorf("the baseline was scored on %d facts, want %d", r.Base.Facts, r.Start.Facts)
		}
		t.Logf("\n%s\n%s", Table([]Result{r}), ContextSize([]Result{r}))
	})
	t.Run("memories", func(t *testing.T) {
		t.Parallel()
		sc := findMemoryScenario(t, smokeMemoryScenario)
		r := runMemoryScenario(t, &sc)
		s := r.Score
		if r.Checks != len(sc.checked()) || s.Recalled != s.Expected || s.Wrong != 0 || r.States != "ok" {
			t.Errorf("%d contexts checked, memories recalled %d/%d (missed %v), %d wrongly current %v, stored states %s",
				r.Checks, s.Recalled, s.Expected, s.Missed, s.Wrong, s.WrongNames, r.States)
		}
		t.Logf("\n%s", MemoryTable([]MemoryResult{r}))
	})
}

func findScenario(t *testing.T, name string) Scenario {
	t.Helper()
	for _, sc := range Scenarios() {
		if sc.Name == name {
			if err := sc.Validate(); err != nil {
				t.Fatal(err)
			}
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return Scenario{}
}

func findMemoryScenario(t *testing.T, name string) MemoryScenario {
	t.Helper()
	for _, sc := range MemoryScenarios() {
		if sc.Name == name {
			if err := sc.Validate(); err != nil {
				t.Fatal(err)
			}
			return sc
		}
	}
	t.Fatalf("no memory scenario %q", name)
	return MemoryScenario{}
}
