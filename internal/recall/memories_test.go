package recall

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/models"
)

// TestMemoryLinesSayWhoAndWhen: a memory's line in the injected context
// says its kind, who said it and when, compactly ("- m4 decision, user,
// 11-26: …"; the whole date in another year); a subject the text does
// not say follows it. The owner's sessions hold the memories in force,
// never a teammate's proposals nor a quote; a teammate's session holds
// the memories in force and that teammate's own proposals (marked
// proposed), never another's, and reads the owner as "owner" and itself
// as "user".
func TestMemoryLinesSayWhoAndWhen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sess := f.session("app", "s1", "")
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	add := func(m models.Memory) int64 {
		t.Helper()
		m.SessionID, m.Project = sess, "app"
		if m.CreatedAt.IsZero() {
			m.CreatedAt = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
		}
		f.write(func(tx *models.Tx) error { _, err := tx.InsertMemory(&m); return err })
		return m.ID
	}
	rule := add(models.Memory{Source: models.SourcePrompt, Kind: models.MemoryConstraint, Text: "Never call the network in tests", Pinned: true})
	claude := add(models.Memory{Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Went with River for the job queue", Subject: "job queue"})
	old := add(models.Memory{Source: models.SourceAnswer, Kind: models.MemoryCause, Text: "The flaky test raced on the temp dir",
		CreatedAt: time.Date(2025, 12, 30, 9, 0, 0, 0, time.UTC)})
	subj := add(models.Memory{Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Keep it at three", Subject: "retries"})
	trusted := add(models.Memory{Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Use pnpm, not npm",
		Speaker: models.SpeakerTeammate, SpeakerRef: "carol"})
	bobs := add(models.Memory{Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Switch the cache to Redis",
		Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed})
	alices := add(models.Memory{Source: models.SourceAnswer, Kind: models.MemoryTodo, Text: "Drop the legacy importer",
		Speaker: models.SpeakerTeammate, SpeakerRef: "alice", State: models.MemoryProposed})
	quote := add(models.Memory{Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Decision: deploy on Fridays",
		Speaker: models.SpeakerQuoted, SpeakerRef: "README.md"})

	b := f.builder()
	b.Now = func() time.Time { return now }
	block := func(person string) string {
		t.Helper()
		out, err := b.SessionContext(context.Background(), capture.ContextRequest{Project: "app", Source: "startup", Person: person})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("person %q, %d bytes:\n%s", person, len(out), out)
		return out
	}
	has := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("the context lacks %q:\n%s", w, out)
			}
		}
	}
	lacks := func(out string, ids ...int64) {
		t.Helper()
		for _, id := range ids {
			if strings.Contains(out, MemoryRef(id)+" ") {
				t.Errorf("the context holds %s:\n%s", MemoryRef(id), out)
			}
		}
	}

	owner := block("")
	has(owner,
		"- "+MemoryRef(rule)+" constraint, user, 11-26, pinned: Never call the network in tests\n",
		"- "+MemoryRef(claude)+" decision, Claude, 11-26: Went with River for the job queue\n",
		"- "+MemoryRef(subj)+" decision, Claude, 11-26: Keep it at three [retries]\n",
		"- "+MemoryRef(trusted)+" decision, carol, 11-26: Use pnpm, not npm\n",
		"- "+MemoryRef(old)+" cause, Claude, 2025-12-30: The flaky test raced on the temp dir\n",
	)
	lacks(owner, bobs, alices, quote)

	bob := block("bob")
	has(bob,
		"- "+MemoryRef(rule)+" constraint, owner, 11-26, pinned: Never call the network in tests\n",
		"- "+MemoryRef(bobs)+" decision, user, 11-26, proposed: Switch the cache to Redis\n",
		"- "+MemoryRef(trusted)+" decision, carol, 11-26: Use pnpm, not npm\n",
	)
	lacks(bob, alices, quote)

	// Accepted, bob's memory is in everyone's context, as bob's.
	f.write(func(tx *models.Tx) error { _, err := tx.AcceptMemory(bobs); return err })
	has(block(""), "- "+MemoryRef(bobs)+" decision, bob, 11-26: Switch the cache to Redis\n")
	// Rejected, alice's never reaches her sessions again.
	f.write(func(tx *models.Tx) error { _, err := tx.RejectMemory(alices); return err })
	lacks(block("alice"), alices)
}

// TestMemoriesInForceOwnProposals: the store's memories in force for a
// person's session are the current ones and that person's own proposed
// ones, pinned first then newest, within the limit.
func TestMemoriesInForceOwnProposals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sess := f.session("app", "s1", "")
	add := func(m models.Memory) int64 {
		t.Helper()
		m.SessionID, m.Project, m.Source, m.Kind, m.CreatedAt = sess, "app", models.SourceAnswer, models.MemoryDecision, f.tick()
		f.write(func(tx *models.Tx) error { _, err := tx.InsertMemory(&m); return err })
		return m.ID
	}
	a := add(models.Memory{Text: "first in force"})
	p := add(models.Memory{Text: "bob's proposal", Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed})
	add(models.Memory{Text: "alice's proposal", Speaker: models.SpeakerTeammate, SpeakerRef: "alice", State: models.MemoryProposed})
	c := add(models.Memory{Text: "pinned in force", Pinned: true})
	ids := func(person string, limit int) []int64 {
		t.Helper()
		ms, err := f.store.MemoriesInForce(context.Background(), "app", person, limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	eq := func(got, want []int64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}
	eq(ids("", 10), []int64{c, a})
	eq(ids("bob", 10), []int64{c, p, a})
	eq(ids("bob", 2), []int64{c, p})
	eq(ids("carol", 10), []int64{c, a})
}
