//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gateMarker is how Claude Code 2.1.330 puts a PreToolUse hook's
// additionalContext into the next model request (in the role "system"
// message, like SessionStart's).
const gateMarker = "PreToolUse:Read hook additional context: "

// gateText returns the file gate's block in a model request's text (up to
// the end of its </mneme-context>), or "".
func gateText(text string) string { return hookContext(text, gateMarker) }

// readSession runs a session whose model reads path and stops; it returns
// the texts of its tool-carrying model requests and its session id.
func readSession(t *testing.T, m *Mneme, proj, path string) ([]string, string) {
	t.Helper()
	fake := NewFakeAPI(t, ToolUse("Read", map[string]any{"file_path": path}), Text("Read it."))
	res := m.Claude(t, fake, proj, "look at the notes")
	reqs := fake.ToolRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (the Read, then after its result)", len(reqs))
	}
	texts := make([]string, len(reqs))
	for i, r := range reqs {
		texts[i] = RequestText(r.Body)
	}
	m.WaitSettled(t, res.JSON.SessionID)
	return texts, res.JSON.SessionID
}

// TestClaudeCodeFileGate: session 1 creates notes.md and fails to edit
// it; in session 2 the model reads notes.md, and the PreToolUse gate's
// memory of the file (the failure, not fixed, and the creation, with
// their ids) reaches the model in the request after the Read, and only
// there. The file is then edited outside Claude Code: in session 3 the
// same memories come marked "changed since", at SessionStart and at the
// Read.
func TestClaudeCodeFileGate(t *testing.T) {
	m := NewMneme(t)
	m.Serve(t)
	proj := NewProject(t, "gate-app")
	notes := filepath.Join(proj, "notes.md")

	// The Edit must fail while it runs: Claude Code rejects a bad
	// old_string before the tool runs, and fires no hook for it. An
	// immutable file (chattr +i, which stops root too) fails the write.
	if out, err := exec.Command("chattr", "-V", "+i", proj).CombinedOutput(); err != nil {
		t.Skipf("chattr +i does not work here (%v: %s): no way to fail an Edit as root", err, out)
	}
	exec.Command("chattr", "-i", proj).Run()
	t.Cleanup(func() { exec.Command("chattr", "-i", notes).Run() })
	fake := NewFakeAPI(t,
		ToolUse("Write", map[string]any{"file_path": notes, "content": "# Notes\nstatus: draft\n"}),
		ToolUse("Bash", map[string]any{"command": "chattr +i notes.md", "description": "lock the notes"}),
		ToolUse("Edit", map[string]any{"file_path": notes, "old_string": "status: draft", "new_string": "status: shipped"}),
		Text("The edit failed: the notes are locked."))
	res := m.Claude(t, fake, proj, "write the release notes and mark them shipped")
	s1, _ := m.WaitSettled(t, res.JSON.SessionID)
	if err := exec.Command("chattr", "-i", notes).Run(); err != nil {
		t.Fatal(err)
	}
	var created, failed int64
	for _, o := range s1.Observations {
		switch {
		case o.ToolName == "Write" && o.Success:
			created = o.ID
		case o.ToolName == "Edit" && !o.Success:
			failed = o.ID
		}
	}
	if created == 0 || failed == 0 {
		t.Fatalf("session 1 stored %+v; want a Write and a failed Edit", s1.Observations)
	}

	texts, _ := readSession(t, m, proj, notes)
	if g := gateText(texts[0]); g != "" {
		t.Errorf("the gate's memory reached the model before the Read:\n%s", g)
	}
	gate := gateText(texts[1])
	t.Logf("after the Read, the model got:\n%s", gate)
	for _, want := range []string{
		"<mneme-context>\nmneme: memory of file notes.md from earlier sessions",
		fmt.Sprintf("#%d Edit notes.md failed: ", failed),
		"FAILED, not fixed",
		fmt.Sprintf("#%d Created notes.md", created),
	} {
		if !strings.Contains(gate, want) {
			t.Errorf("the gate's context lacks %q", want)
		}
	}
	if strings.Contains(gate, "changed since") {
		t.Errorf("nothing changed yet")
	}

	// Edited by hand.
	if err := os.WriteFile(notes, []byte("# Notes\nstatus: final (edited by hand)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	texts, _ = readSession(t, m, proj, notes)
	start := texts[0]
	if !strings.Contains(start, fmt.Sprintf("#%d Edit notes.md failed", failed)) || !strings.Contains(start, "(changed since)") ||
		!strings.Contains(start, "changed `notes.md` (1×, latest #"+fmt.Sprint(created)) {
		t.Errorf("SessionStart does not mark the memories of notes.md changed since:\n%s", contextOf(start))
	}
	stale := gateText(texts[1])
	t.Logf("after the outside edit, the Read got:\n%s", stale)
	if strings.Count(stale, "changed since") != 2 {
		t.Errorf("the gate does not mark both memories changed since:\n%s", stale)
	}
}

// contextOf is the SessionStart block in a request's text, for messages.
func contextOf(text string) string {
	return hookContext(text, "SessionStart hook additional context: ")
}
