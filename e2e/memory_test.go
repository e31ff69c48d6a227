//go:build unix

package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

type apiMemory struct {
	ID           int64  `json:"id"`
	Kind         string `json:"kind"`
	Source       string `json:"source"`
	Text         string `json:"text"`
	State        string `json:"state"`
	SupersededBy int64  `json:"supersededBy"`
}

// waitMemories polls /api/memories of project until ok holds of them.
func (m *Mneme) waitMemories(t *testing.T, project string, ok func([]apiMemory) bool) []apiMemory {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var page struct {
			Items []apiMemory `json:"items"`
		}
		m.GetJSON(t, "/api/memories?project="+project, &page)
		if ok(page.Items) || time.Now().After(deadline) {
			return page.Items
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func memoryWith(ms []apiMemory, part string) (apiMemory, bool) {
	for _, m := range ms {
		if strings.Contains(m.Text, part) {
			return m, true
		}
	}
	return apiMemory{}, false
}

// Real Claude Code over four sessions: the first one's final answer
// states decisions in a colon-label list ("Key decisions:" and bullets)
// and the user's prompt gives a correction; two sessions later one
// decision is replaced. The fourth session's first model request carries
// the decisions and the correction in force, and not the replaced one;
// its prompt's related-memory hint does not repeat the decision in force
// it asks about, which the context holds. A fifth session, with no room
// for memories in its context, is hinted that decision.
func TestClaudeCodeMemoriesCarryDecisions(t *testing.T) {
	ClaudeBin(t)
	m := NewMneme(t)
	m.Serve(t)
	dir := NewProject(t, "mneme-e2e-memory")
	project := filepath.Base(dir)

	run := func(prompt, answer string) string {
		t.Helper()
		fake := NewFakeAPI(t, Text(answer))
		res := m.Claude(t, fake, dir, prompt)
		if res.JSON == nil || res.JSON.Result != answer {
			t.Fatalf("session result %+v", res.JSON)
		}
		m.WaitSettled(t, res.JSON.SessionID)
		return res.JSON.SessionID
	}
	run("Set up the webhook server. No, don't use a retry library: always write the backoff loop by hand.",
		"I set up the HTTP server and the storage layer.\n\nKey decisions:\n"+
			"- Use SQLite in WAL mode for the store instead of Bolt, because it handles concurrent readers.\n"+
			"- Serve the API on port 8086.\n\nLet me know if you want changes.")
	first := m.waitMemories(t, project, func(ms []apiMemory) bool { return len(ms) >= 3 })
	for _, want := range []string{"WAL mode", "port 8086", "backoff loop by hand"} {
		if _, ok := memoryWith(first, want); !ok {
			t.Fatalf("no memory says %q after session 1: %+v", want, first)
		}
	}
	if c, _ := memoryWith(first, "backoff loop"); c.Kind != "constraint" || c.Source != "prompt" {
		t.Errorf("the user's correction is stored as %+v", c)
	}

	run("Add the health endpoint.", "Added the health endpoint; it answers 200.")
	run("Port 8086 clashes with InfluxDB on this machine.",
		"Done.\n\nKey decisions:\n- Switched the API port from 8086 to 9090 instead, since 8086 clashes with InfluxDB.")
	all := m.waitMemories(t, project, func(ms []apiMemory) bool {
		old, ok := memoryWith(ms, "port 8086.")
		return ok && old.State == "superseded"
	})
	old, _ := memoryWith(all, "port 8086.")
	repl, ok := memoryWith(all, "9090")
	if !ok || old.State != "superseded" || old.SupersededBy != repl.ID {
		t.Fatalf("the replaced decision: %+v, its replacement %+v", old, repl)
	}

	cs := runContextSession(t, m, dir, "What port does the API use?")
	t.Logf("context:\n%s", cs.Block)
	for _, want := range []string{"WAL mode", "backoff loop by hand", "9090"} {
		if !strings.Contains(cs.Block, want) {
			t.Errorf("the next session's model request lacks %q", want)
		}
	}
	if strings.Contains(cs.Block, "port 8086.") {
		t.Error("the next session's model request carries the replaced decision")
	}
	// The prompt asks about the port, and the context already holds the
	// decision in force about it: the UserPromptSubmit hint does not
	// repeat it, and never names the one it replaced.
	related := relatedContext(cs.Text)
	t.Logf("related memory:\n%s", related)
	if strings.Contains(related, fmt.Sprintf("m%d ", repl.ID)) {
		t.Errorf("the prompt's related-memory hint repeats m%d, which the session's context holds", repl.ID)
	}
	if strings.Contains(related, fmt.Sprintf("m%d ", old.ID)) {
		t.Errorf("the prompt's related-memory hint names the replaced decision m%d", old.ID)
	}
	// With no room for memories in the context (memory.budgetShare 0),
	// the hint names the decision in force, and still not the replaced one.
	var st map[string]any
	m.PutJSON(t, "/api/settings", map[string]any{"memory": map[string]any{"budgetShare": 0}}, &st)
	cs = runContextSession(t, m, dir, "What port does the API use?")
	if strings.Contains(cs.Block, fmt.Sprintf("m%d ", repl.ID)) {
		t.Fatalf("with memory.budgetShare 0 the context still holds m%d:\n%s", repl.ID, cs.Block)
	}
	related = relatedContext(cs.Text)
	t.Logf("related memory, no memories in the context:\n%s", related)
	if !strings.Contains(related, fmt.Sprintf("m%d (relevance ", repl.ID)) || !regexp.MustCompile(`decision, [^,:]+, [0-9-]+: Switched the API port from 8086 to 9090`).MatchString(related) {
		t.Errorf("the prompt's related-memory hint does not name the decision in force m%d", repl.ID)
	}
	if strings.Contains(related, fmt.Sprintf("m%d ", old.ID)) {
		t.Errorf("the prompt's related-memory hint names the replaced decision m%d", old.ID)
	}
}
