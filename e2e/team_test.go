//go:build unix

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// TestClaudeCodeTeamMode: real Claude Code on a teammate's machine sends
// its hooks to a team worker on PostgreSQL, with a person's token made by
// `mneme token create` on the worker's machine. The whole session is
// stored there, recorded as the person's, redacted before it left the
// teammate's machine, and nothing waits in the teammate's spool.
func TestClaudeCodeTeamMode(t *testing.T) {
	ClaudeBin(t)
	team := NewMneme(t)
	team.DatabaseURL = pgtest.URL(t)
	team.Serve(t)
	out, err := team.command("token", "create", "--person", "alice").CombinedOutput()
	if err != nil {
		t.Fatalf("mneme token create: %v\n%s", err, out)
	}
	token := regexp.MustCompile(`MNEME_TOKEN=(mneme_pt_[0-9a-f]{64})`).FindStringSubmatch(string(out))
	if token == nil {
		t.Fatalf("mneme token create printed no token:\n%s", out)
	}

	// Alice's machine: mneme installed into Claude Code, no worker of its
	// own; MNEME_URL and MNEME_TOKEN in Claude Code's environment.
	alice := NewMneme(t)
	project := NewProject(t, "mneme-team-notes")
	s1 := newSession1(project)
	fake := NewFakeAPI(t, s1.Steps...)
	res := RunClaude(context.Background(), t, ClaudeOptions{
		Bin: ClaudeBin(t), Home: alice.Home, Dir: project, BaseURL: fake.URL, Prompt: s1.Prompt,
		Timeout:  claudeRunTimeout,
		ExtraEnv: []string{"MNEME_URL=" + team.URL, "MNEME_TOKEN=" + token[1]},
	})
	if res.TimedOut || res.ExitCode != 0 || res.JSON == nil || res.JSON.IsError || res.JSON.SessionID == "" {
		t.Fatalf("claude failed: exit %d, timed out %v, json %+v\nstderr: %s", res.ExitCode, res.TimedOut, res.JSON, res.Stderr)
	}
	if strings.Contains(strings.ToLower(res.Stderr), "hook") {
		t.Errorf("claude reported a hook problem:\n%s", res.Stderr)
	}

	d, raw := team.WaitSettled(t, res.JSON.SessionID)
	t.Logf("team worker holds session %s: %d observations", res.JSON.SessionID, len(d.Observations))
	if !strings.Contains(string(raw), `"capturedBy":"alice"`) {
		t.Errorf("the session is not recorded as alice's: %.400s", raw)
	}
	if len(d.Observations) != len(s1.Steps)-1 {
		t.Errorf("%d observations stored, want %d (one per tool call)", len(d.Observations), len(s1.Steps)-1)
	}
	if len(d.Prompts) != 1 || !strings.Contains(d.Prompts[0].Text, "[REDACTED:github_token]") {
		t.Errorf("prompt not stored redacted: %+v", d.Prompts)
	}
	assertNoSecrets(t, "the team worker's session", string(raw))

	// Nothing stayed behind on Alice's machine: her spools are empty.
	for _, dir := range []string{"spool-remote", "spool"} {
		entries, _ := os.ReadDir(filepath.Join(alice.DataDir, dir))
		for _, e := range entries {
			if !e.IsDir() && e.Name() != ".replay.lock" {
				t.Errorf("alice's %s still holds %s", dir, e.Name())
			}
		}
	}
}
