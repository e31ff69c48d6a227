//go:build unix

package eval

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/e2e"
)

func TestScenariosValid(t *testing.T) {
	names := map[string]bool{}
	for _, sc := range Scenarios() {
		if err := sc.Validate(); err != nil {
			t.Error(err)
		}
		if names[slug(sc.Name)] {
			t.Errorf("two scenarios named %q", sc.Name)
		}
		names[slug(sc.Name)] = true
		for _, s := range append(sc.Sessions, sc.Next) {
			if s.Project == "" || strings.ContainsAny(s.Project, " /") {
				t.Errorf("%s: bad project %q", sc.Name, s.Project)
			}
		}
	}
}

func TestScoreText(t *testing.T) {
	sc := Scenario{
		Facts: []Fact{
			{Name: "a", All: []string{`alpha`}, Query: "a"},
			{Name: "b", All: []string{`beta`, `gamma\.go`}, Query: "b"},
			{Name: "c", All: []string{`delta`}, Query: "c"},
		},
		Wrong: []Fact{{Name: "x", All: []string{`leak`}}},
	}
	got := sc.ScoreText("ALPHA and beta in gamma.go, a leak")
	if got.Found != 2 || got.Wrong != 1 || got.Facts != 3 || len(got.Missed) != 1 || got.Missed[0] != "c" {
		t.Fatalf("%+v", got)
	}
	if r := got.Recall(); r < 0.33 || r > 0.34 {
		t.Errorf("recall %v, want 1/3 (2 found, 1 wrong)", r)
	}
	if sc.ScoreText("beta only").Found != 0 {
		t.Errorf("a fact needs all its patterns")
	}
	if m := sc.Missing("delta"); len(m) != 2 || m[0].Name != "a" {
		t.Errorf("missing: %+v", m)
	}
}

func TestBaselineBudget(t *testing.T) {
	var obs []Observation
	for i := 10; i > 0; i-- {
		obs = append(obs, Observation{ID: int64(i), Title: "Ran `make` number " + strings.Repeat("x", i), CreatedAt: time.Unix(0, 0)})
	}
	for _, budget := range []int{0, 50, 200, 10_000} {
		got := Baseline("p", obs, budget)
		if budget >= 200 && len(got) > budget {
			t.Errorf("budget %d: %d bytes", budget, len(got))
		}
		if budget == 10_000 && !strings.Contains(got, "#1 ") {
			t.Errorf("a large budget holds every title:\n%s", got)
		}
		if budget == 200 && (!strings.Contains(got, "#10 ") || strings.Contains(got, "#1 ")) {
			t.Errorf("newest first, whole lines:\n%s", got)
		}
	}
}

// requestBody builds a Messages request body whose messages carry the
// given tool results, and whose first message carries ctx as SessionStart
// context.
func requestBody(ctx string, results ...string) []byte {
	msgs := []map[string]any{{"role": "user", "content": "go"}}
	if ctx != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": "SessionStart hook additional context: " + ctx})
	}
	for i, r := range results {
		msgs = append(msgs, map[string]any{"role": "user", "content": []map[string]any{{
			"type": "tool_result", "tool_use_id": "t" + string(rune('0'+i)), "content": r}}})
	}
	b, _ := json.Marshal(map[string]any{"messages": msgs})
	return b
}

func TestPlanner(t *testing.T) {
	sc := &Scenario{
		Next: Session{Project: "p", Prompt: "go"},
		Facts: []Fact{
			{Name: "known", All: []string{`known`}, Query: "q0"},
			{Name: "one", All: []string{`one`}, Query: "q1"},
			{Name: "two", All: []string{`two`}, Query: "q2"},
		},
	}
	p := &Planner{Scenario: sc, Final: "bye"}
	ctx := "<mneme-context>\nknown\n</mneme-context>"
	step := func(results ...string) e2e.Step {
		return p.Answer(e2e.Request{ToolResults: len(results), Body: requestBody(ctx, results...)})
	}
	s0 := step()
	if s0.Tool != ToolSearch || s0.Input["query"] != "q1" || s0.Input["project"] != "p" {
		t.Fatalf("step 0: %+v", s0)
	}
	if again := step(); again.Input["query"] != "q1" {
		t.Errorf("a retried request must get the same step: %+v", again)
	}
	s1 := step("#12  2026-11-20 14:03  bash  Ran x\n#7  2026-11-20 14:03  bash  Ran y\n")
	if s1.Tool != ToolGetObservations || len(s1.Input["ids"].([]int64)) != 2 {
		t.Fatalf("step 1: %+v", s1)
	}
	s2 := step("r0", "full records")
	if s2.Tool != ToolSearch || s2.Input["query"] != "q2" {
		t.Fatalf("step 2: %+v", s2)
	}
	// A search without hits goes on to the next fact, here none: the end.
	s3 := step("r0", "r1", "No results.")
	if s3.IsTool() || s3.Text != "bye" {
		t.Fatalf("step 3: %+v", s3)
	}
	if p.Context() != ctx || p.Calls() != 3 {
		t.Errorf("context %q, calls %d", p.Context(), p.Calls())
	}
}

func TestTable(t *testing.T) {
	r := []Result{
		{Scenario: "a", Start: Score{Found: 2, Facts: 4, Bytes: 400}, MCP: Score{Found: 4, Facts: 4, Bytes: 800}, Calls: 2, Base: Score{Found: 1, Facts: 4, Bytes: 400}},
		{Scenario: "b", Start: Score{Found: 1, Wrong: 1, Facts: 2, Bytes: 400, Missed: []string{"f"}}, MCP: Score{Found: 2, Wrong: 1, Facts: 2, Bytes: 400}, Base: Score{Facts: 2, Bytes: 40, Missed: []string{"f"}}},
	}
	got := Table(r)
	for _, want := range []string{
		"| a | 4 | 2/4 (50%) | 400 | 100 | 20.0 | 4/4 (100%) | 2 | 100 | 1/4 (25%) | 10.0 | 0/0/0 |",
		"| b | 2 | 0/2 (0%) | 400 | 100 | 0.0 | 1/2 (50%) | 0 | 0 | 0/2 (0%) | 0.0 | 1/1/0 |",
		"| **total** | 6 | 2/6 (33%) | 800 | 200 | 10.0 | 5/6 (83%) | 2 | 100 | 1/6 (17%) | 9.1 | 1/1/0 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks\n%s\ngot\n%s", want, got)
		}
	}
	if got, want := ContextSize(r), "SessionStart context: 800 bytes (≈200 tokens) over 2 scenarios, mean 400 bytes (≈100 tokens)\n"; got != want {
		t.Errorf("context size %q, want %q", got, want)
	}
	if m := Misses(r); !strings.Contains(m, "- b:\n  - f (MCP: found, baseline: missed)") {
		t.Errorf("misses:\n%s", m)
	}
}

// The wrong claims match what they mean and nothing near it.
func TestWrongClaims(t *testing.T) {
	for _, sc := range Scenarios() {
		if sc.Name != "held out: a test still failing" {
			continue
		}
		for text, want := range map[string]int{
			"I suspect degrees are passed where radians are expected; `go test ./...` still fails": 0,
			"done: `go test ./...` passes (1 package ok)":                                          1,
			"- #9 Ran `go test ./...`: 1 package ok (2026-11-25)":                                  1,
		} {
			if got := sc.ScoreText(text).Wrong; got != want {
				t.Errorf("%q: %d wrong claims, want %d", text, got, want)
			}
		}
	}
}
