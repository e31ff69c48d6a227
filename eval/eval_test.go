//go:build unix

package eval

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/e2e"
)

// EnvEval switches TestEval on; `make eval` sets it.
const EnvEval = "MNEME_EVAL"

// EnvOut names a file that receives the table (make eval: .cache/eval/table.md).
const EnvOut = "MNEME_EVAL_OUT"

// runTimeout bounds one Claude Code run; the long scenario's sessions make
// about 40 model requests.
const runTimeout = 3 * time.Minute

func TestMain(m *testing.M) {
	code := m.Run()
	e2e.RemoveMnemeBin()
	os.Exit(code)
}

// TestEval runs every scenario through real Claude Code and mneme and
// prints the recall table.
func TestEval(t *testing.T) {
	if os.Getenv(EnvEval) == "" {
		t.Skipf("set %s=1 (make eval) to run the recall benchmark", EnvEval)
	}
	e2e.ClaudeBin(t)
	var results []Result
	for _, sc := range Scenarios() {
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		t.Run(slug(sc.Name), func(t *testing.T) {
			results = append(results, runScenario(t, &sc))
		})
	}
	table := Table(results) + "\n" + ContextSize(results)
	misses := Misses(results)
	fmt.Printf("\n%s\nMissed at SessionStart:\n%s", table, misses)
	if out := os.Getenv(EnvOut); out != "" {
		stamp := time.Now().UTC().Format("2006-01-02 15:04 UTC")
		doc := fmt.Sprintf("Recall benchmark, %s\n\n%s\nMissed at SessionStart:\n%s", stamp, table, misses)
		if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// slug names a subtest after a scenario with letters, digits and dashes
// only: a temporary directory takes its name, and the hook commands quote
// paths with other characters.
func slug(name string) string {
	f := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
	return strings.Join(f, "-")
}

// goEnv lets the scenarios' `go test` use this machine's build cache and
// never reach the network.
func goEnv() []string {
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod"}
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		env = append(env, "GOCACHE="+strings.TrimSpace(string(out)))
	}
	return env
}

// runScenario runs the sessions, then the next session with the planner as
// the model, and scores the three texts.
func runScenario(t *testing.T, sc *Scenario) Result {
	m := e2e.NewMneme(t)
	m.Serve(t)
	dirs := map[string]string{}
	for _, p := range sc.Projects() {
		dirs[p] = e2e.NewProject(t, p)
		for name, content := range sc.Files[p] {
			if err := os.WriteFile(filepath.Join(dirs[p], name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := goEnv()
	for i, s := range sc.Sessions {
		fake := e2e.NewFakeAPI(t, StepsIn(s.Steps, dirs[s.Project])...)
		res := claude(t, m, dirs[s.Project], fake.URL, s.Prompt, nil, env)
		if n := len(fake.ToolRequests()); n != len(s.Steps) {
			t.Errorf("session %d made %d model requests, want %d", i+1, n, len(s.Steps))
		}
		m.WaitSettled(t, res.JSON.SessionID)
		waitSummaries(t, m, res.JSON.SessionID, 1)
	}

	// The baseline reads the database as it is before the next session.
	var page struct {
		Items []Observation `json:"items"`
	}
	m.GetJSON(t, "/api/observations?limit=100&project="+url.QueryEscape(sc.Next.Project), &page)

	if sc.MaxInjectTokens > 0 {
		var saved map[string]any
		m.PutJSON(t, "/api/settings", map[string]any{"injection": map[string]any{"maxInjectTokens": sc.MaxInjectTokens}}, &saved)
	}
	p := &Planner{Scenario: sc, Final: "Noted."}
	fake, err := e2e.StartFakeAPIWith(e2e.FakeOptions{Answer: p.Answer, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	claude(t, m, dirs[sc.Next.Project], fake.URL, sc.Next.Prompt,
		[]string{"--allowedTools", AllowedTools, "--output-format", "json"}, env)
	ctxText := p.Context()
	if ctxText == "" {
		t.Errorf("the next session's first request carried no <mneme-context>")
	}
	reqs := fake.ToolRequests()
	withTools := ctxText
	if len(reqs) > 0 {
		for _, r := range ToolResults(reqs[len(reqs)-1].Body) {
			withTools += "\n" + r
		}
	}
	r := Result{
		Scenario: sc.Name,
		Start:    sc.ScoreText(ctxText),
		MCP:      sc.ScoreText(withTools),
		Calls:    p.Calls(),
		Base:     sc.ScoreText(Baseline(sc.Next.Project, page.Items, len(ctxText))),
	}
	t.Logf("SessionStart context (%d bytes):\n%s", len(ctxText), ctxText)
	t.Logf("with MCP (%d calls): missed %v", r.Calls, r.MCP.Missed)
	return r
}

// claude runs one session and fails the test unless Claude Code exits 0.
func claude(t *testing.T, m *e2e.Mneme, dir, baseURL, prompt string, args, env []string) e2e.ClaudeResult {
	t.Helper()
	res := e2e.RunClaude(context.Background(), t, e2e.ClaudeOptions{
		Bin: e2e.ClaudeBin(t), Home: m.Home, Dir: dir, BaseURL: baseURL, Prompt: prompt,
		Args: args, ExtraEnv: env, Timeout: runTimeout,
	})
	if res.TimedOut || res.ExitCode != 0 || res.JSON == nil || res.JSON.IsError {
		t.Fatalf("claude failed: exit %d, timed out %v, json %+v\nstdout: %s\nstderr: %s",
			res.ExitCode, res.TimedOut, res.JSON, res.Stdout, res.Stderr)
	}
	return res
}

// waitSummaries waits until the session's summaries are settled (its
// summary jobs done: e2e.Mneme.WaitSummarized), which the next session's
// context reads, and fails unless each of its prompts' turns stored a turn
// summary: a turn's memories are written with it. A session's final
// summary is not waited for: one that would only restate its single turn's
// is not stored (models.Summary.Restates), and its job is done all the
// same.
func waitSummaries(t *testing.T, m *e2e.Mneme, claudeID string, prompts int) {
	t.Helper()
	stored := map[int]bool{}
	for _, j := range m.WaitSummarized(t, claudeID) {
		if j.Kind == "turn" && j.Status == "done" && j.SummaryID != 0 {
			stored[j.PromptNumber] = true
		}
	}
	for n := 1; n <= prompts; n++ {
		if !stored[n] {
			t.Errorf("session %s: no turn summary of prompt %d", claudeID, n)
		}
	}
}
