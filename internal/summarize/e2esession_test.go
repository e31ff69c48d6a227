//go:build unix

package summarize_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/e2e"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestHeuristicRealClaudeSession records a session of the real Claude Code
// binary (MNEME_CLAUDE_BIN), driven by the scripted fake Messages API: it
// writes a buggy Add with a test, runs the real `go test` (fails), fixes
// the bug, runs it again (passes). Its hooks run the real `mneme hook`
// against an in-process worker; the heuristic summaries are compared with
// a golden file.
func TestHeuristicRealClaudeSession(t *testing.T) {
	bin := os.Getenv(e2e.ClaudeBinEnv)
	if bin == "" {
		t.Skipf("set %s to a Claude Code binary to run this test", e2e.ClaudeBinEnv)
	}
	mneme := filepath.Join(t.TempDir(), "mneme")
	if out, err := exec.Command("go", "build", "-o", mneme, filepath.Join(testutil.RepoRoot(t), "cmd", "mneme")).CombinedOutput(); err != nil {
		t.Fatalf("build mneme: %v\n%s", err, out)
	}
	srv := testutil.NewServer(t)
	project := e2e.NewProject(t, "calc")
	home := e2e.NewHome(t)
	slugs := map[string]string{"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "PostToolUse": "post-tool-use",
		"PostToolUseFailure": "post-tool-use-failure", "Stop": "stop", "SessionEnd": "session-end"}
	events := []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"}
	e2e.WriteSettings(t, home, map[string]any{"hooks": e2e.CommandHooks(func(ev string) string {
		return e2e.ShellQuote(mneme) + " --port " + strconv.Itoa(srv.Port) + " --data-dir " + e2e.ShellQuote(srv.DataDir) + " hook " + slugs[ev]
	}, events...)})
	file := func(name string) string { return filepath.Join(project, name) }
	api := e2e.NewFakeAPI(t,
		e2e.ToolUse("Write", map[string]any{"file_path": file("go.mod"), "content": "module calc\n\ngo 1.25\n"}),
		e2e.ToolUse("Write", map[string]any{"file_path": file("calc.go"), "content": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n"}),
		e2e.ToolUse("Write", map[string]any{"file_path": file("calc_test.go"), "content": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n"}),
		e2e.ToolUse("Bash", map[string]any{"command": "go test ./...", "description": "run the tests"}),
		e2e.ToolUse("Edit", map[string]any{"file_path": file("calc.go"), "old_string": "return a - b", "new_string": "return a + b"}),
		e2e.ToolUse("Bash", map[string]any{"command": "go test ./...", "description": "run the tests again"}),
		e2e.Text("Fixed `Add` in calc.go: it subtracted instead of adding. `go test ./...` passes now.\n\nNext step: add a test for negative numbers."),
	)
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	res := e2e.RunClaude(context.Background(), t, e2e.ClaudeOptions{
		Bin: bin, Home: home, Dir: project, BaseURL: api.URL, Timeout: 3 * time.Minute,
		Prompt:   "Write an Add function with a test in this Go project and make the test pass",
		ExtraEnv: []string{"MNEME_NO_AUTOSTART=1", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOCACHE=" + strings.TrimSpace(string(gocache))},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d (timed out %v)\nstdout: %s\nstderr: %s", res.ExitCode, res.TimedOut, res.Stdout, res.Stderr)
	}
	waitJobs(t, srv.Store, 20*time.Second)
	sessions, err := srv.Store.Sessions(context.Background(), modelsSessionFilter("calc"))
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions of calc: %v, %v", sessions, err)
	}
	sums, err := srv.Store.SummariesOfSession(context.Background(), sessions[0].ID)
	if err != nil || len(sums) < 2 {
		t.Fatalf("summaries: %d, %v", len(sums), err)
	}
	golden(t, "real-claude-session.golden", renderSummaries(sums))
}
