//go:build unix

package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// digest is the comparable record of one session (testutil.SessionDigest).
func (m *Mneme) digest(t *testing.T, claudeID string) []string {
	t.Helper()
	var d api.SessionDetail
	m.GetJSON(t, "/api/sessions/"+claudeID, &d)
	return testutil.SessionDigest(d)
}

// counts are the worker's sessions, prompts and observations now (GET
// /api/import). Summaries are left out: they are written in the
// background.
func (m *Mneme) counts(t *testing.T) [3]int64 {
	t.Helper()
	var st api.ImportStatus
	m.GetJSON(t, "/api/import", &st)
	return [3]int64{st.Counts.Sessions, st.Counts.Prompts, st.Counts.Observations}
}

// importTranscripts runs `mneme import` into m's worker.
func (m *Mneme) importTranscripts(t *testing.T, paths ...string) string {
	t.Helper()
	out, err := m.command(append([]string{"--port", strconv.Itoa(m.Port), "--data-dir", m.DataDir, "import"}, paths...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("mneme import: %v\n%s", err, out)
	}
	return string(out)
}

// TestClaudeCodeImportMatchesHooks runs real Claude Code 2.1.330 with
// mneme's hooks (session A with failures, a private part and secrets;
// session B; then A resumed), imports the transcripts Claude Code wrote
// into a fresh data directory, and finds the same sessions, prompts and
// tool calls (titles, kinds, success) as the hooks stored live. Importing
// again, or into the worker that captured the run live, adds nothing; no
// secret reaches the fresh data directory.
func TestClaudeCodeImportMatchesHooks(t *testing.T) {
	ClaudeBin(t)
	m := NewMneme(t)
	m.Serve(t)
	project := NewProject(t, "mneme-e2e-import")
	s1, sidA, sidB := runSessionsAB(t, m, project)

	steps := append(append([]Step(nil), s1.Steps[:len(s1.Steps)-1]...),
		ToolUse("Bash", map[string]any{"command": "echo resumed", "description": "say resumed"}), Text("Resumed and done."))
	m.Resume(t, project, sidA, "Resume the zebra work.", steps...)

	// What Claude Code wrote, dated an hour back: sessions that ended.
	transcripts := filepath.Join(m.Home, ".claude", "projects")
	var files []string
	filepath.WalkDir(transcripts, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, strings.TrimPrefix(p, transcripts+"/"))
			at := time.Now().Add(-time.Hour)
			os.Chtimes(p, at, at)
		}
		return nil
	})
	t.Logf("transcripts: %v", files)
	if len(files) == 0 {
		t.Fatal("Claude Code wrote no transcript")
	}

	fresh := NewMneme(t)
	fresh.Serve(t)
	out := fresh.importTranscripts(t, transcripts)
	t.Logf("mneme import:\n%s", out)
	for _, sid := range []string{sidA, sidB} {
		want, got := m.digest(t, sid), fresh.digest(t, sid)
		t.Logf("session %s as imported:\n  %s", sid, strings.Join(got, "\n  "))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("session %s: the import differs from the live hooks\nimport:\n  %s\nlive:\n  %s",
				sid, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	assertDataDirClean(t, fresh.DataDir)

	first := fresh.counts(t)
	fresh.importTranscripts(t, transcripts)
	if again := fresh.counts(t); again != first {
		t.Errorf("a second import changed the counts: %v → %v", first, again)
	}
	before := m.counts(t)
	m.importTranscripts(t, transcripts)
	if after := m.counts(t); after != before {
		t.Errorf("importing what was captured live duplicated rows: %v → %v", before, after)
	}
	for _, sid := range []string{sidA, sidB} {
		if d := m.digest(t, sid); !reflect.DeepEqual(d, fresh.digest(t, sid)) {
			t.Errorf("session %s changed when imported over its live capture:\n  %s", sid, strings.Join(d, "\n  "))
		}
	}
}
