package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// systemLinesSession is the session of testdata/constructed/system-lines.transcript.jsonl.
const systemLinesSession = "5e55a1e0-7c3a-4d2b-9f10-2a6b0c1d5e01"

// systemLines lays testdata/constructed/system-lines.transcript.jsonl out
// as ~/.claude/projects, dated an hour ago, and returns the projects dir.
func systemLines(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.FixtureDir(t), "..", "constructed", "system-lines.transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "projects", "-home-dev-projects-webapp")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, systemLinesSession+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	return filepath.Dir(dir)
}

// TestImportSystemWrittenLines: the user-role lines Claude Code, its
// tools and hooks write (testdata/constructed/README.md: one line or more
// a shape, each naming a word of its own and phrased as a rule a user
// might give) become no prompt and no memory through `mneme import`; the
// user's own prompts in the same transcript do, a system block inside one
// cut out, and "From now on always use pnpm …" is a constraint taken from
// the prompt.
func TestImportSystemWrittenLines(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	out := importInto(t, srv, systemLines(t))
	testutil.WaitJobs(t, srv.Store, 60*time.Second)

	var prompts api.Page[models.Prompt]
	srv.GetJSON(t, "/api/prompts?limit=500", &prompts)
	var memories api.Page[models.Memory]
	srv.GetJSON(t, "/api/memories?limit=500", &memories)
	slices.SortFunc(prompts.Items, func(a, b models.Prompt) int { return a.Number - b.Number })
	var texts []string
	for _, p := range prompts.Items {
		texts = append(texts, p.Text)
	}
	t.Logf("%s\nprompts: %q", out, texts)
	for _, m := range memories.Items {
		t.Logf("memory: %s %s %s: %q", m.Source, m.Kind, m.State, m.Text)
	}

	for _, c := range []struct{ shape, word string }{
		{"task notification", "marktasknotify"},
		{"local command caveat (isMeta), and the caveat as plain text", "consider them in your response"},
		{"slash command, <command-name> first", "markslashold"},
		{"slash command, <command-message> first", "markslashnew"},
		{"local command stdout", "markstdout"},
		{"local command stderr", "markstderr"},
		{"bash mode input", "markbashin"},
		{"bash mode stdout", "markbashout"},
		{"bash mode stderr", "markbasherr"},
		{"system reminder", "markreminder"},
		{"IDE context before a prompt", "markide"},
		{"<user-prompt-submit-hook>", "markpromptsubmithook"},
		{"UserPromptSubmit hook success line", "markhooksuccess"},
		{"SessionStart hook success line", "markstarthook"},
		{"Stop hook feedback line", "markstopfeedback"},
		{"interruption marker", "Request interrupted by user]"},
		{"interruption marker for tool use", "Request interrupted by user for tool use"},
		{"compaction summary (isCompactSummary)", "markcompact."},
		{"compaction summary (older, text only)", "markcompactold"},
		{"isMeta line (a skill's body)", "markmeta"},
		{"tool result", "marktoolresult."},
		{"text beside a tool result", "marktoolresulttext"},
		{"system block inside a real prompt", "markembedded"},
	} {
		t.Run(c.shape, func(t *testing.T) {
			word := strings.ToLower(c.word)
			for _, p := range prompts.Items {
				if strings.Contains(strings.ToLower(p.Text), word) {
					t.Errorf("prompt %d is system-written: %q", p.Number, p.Text)
				}
			}
			for _, m := range memories.Items {
				if strings.Contains(strings.ToLower(m.Text), word) || strings.Contains(strings.ToLower(m.OriginalText), word) {
					t.Errorf("memory #%d (%s, from the %s) is system-written: %q", m.ID, m.Kind, m.Source, m.Text)
				}
			}
		})
	}

	want := []string{
		"Add a lint script for the web app.",
		"From now on always use pnpm for the scripts in this repo, never npm.",
		"Now add a test script that runs vitest.",
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("prompts:\n%q\nwant\n%q", texts, want)
	}
	var pnpm bool
	for _, m := range memories.Items {
		if m.Kind == models.MemoryConstraint && m.Source == models.SourcePrompt && strings.Contains(m.Text, "pnpm") && m.PromptNumber == 2 {
			pnpm = true
		}
	}
	if !pnpm {
		t.Errorf("no constraint from prompt 2 (always use pnpm): %+v", memories.Items)
	}
}
