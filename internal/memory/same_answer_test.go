package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/memory"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// prepareWrite runs one turn's extraction the way the summary job does:
// Prepare off the writer, then Write in one transaction.
func prepareWrite(t *testing.T, store *models.Store, tr memory.Turn) int {
	t.Helper()
	ctx := context.Background()
	b, err := memory.Prepare(ctx, store, tr, memory.Extract(tr, models.DefaultSettings().Memory), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = store.Writer.Do(ctx, func(tx *models.Tx) error {
		var err error
		n, err = b.Write(tx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// One answer that states a choice and, further down, a change of it, and a
// prompt whose rule the same turn's answer goes against: memories of one
// answer (or one turn) are never compared with each other, whether the
// turn is extracted once, its job runs again, or a later Stop of the
// session repeats the same answer. A later turn's change does supersede:
// the check is not vacuous.
func TestSameAnswerNeverSupersedesItself(t *testing.T) {
	srv := testutil.NewServer(t)
	store := srv.Store
	ctx := context.Background()
	var sid int64
	err := store.Writer.Do(ctx, func(tx *models.Tx) error {
		s, err := tx.EnsureSession(&models.Session{ClaudeSessionID: "same-answer", Project: "notifier", Cwd: t.TempDir(), StartedAt: time.Now()})
		sid = s.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	answer := "Done.\n\nKey decisions:\n" +
		"- Went with Asynq for the job queue, backed by the local Redis.\n" +
		"- Switched the job queue from Asynq to River instead, so jobs live in the Postgres we already run.\n" +
		"- Went with npm for running the scripts, since there is no lockfile yet.\n\n" +
		"Next steps:\n- Add a test for `ExportCSV` with an empty invoice list."
	first := memory.Turn{Project: "notifier", SessionID: sid, PromptNumber: 1, At: time.Now(),
		Prompts: []string{"No, don't use npm for the scripts in this repo: always run them with pnpm."}, Answer: answer}
	if n := prepareWrite(t, store, first); n < 5 {
		t.Fatalf("stored %d memories of the turn, want its 4 answer statements and the prompt's rule", n)
	}
	current := func() []models.Memory {
		ms, err := store.Memories(ctx, models.MemoryFilter{Project: "notifier"})
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	allCurrent := func(when string) {
		for _, m := range current() {
			t.Logf("%s: #%d p%d %s %s %s: %s", when, m.ID, m.PromptNumber, m.Source, m.Kind, m.State, m.Text)
			if m.State != models.MemoryCurrent {
				t.Errorf("%s: %q is %s (by #%d): memories of one answer compared with each other", when, m.Text, m.State, m.SupersededBy)
			}
		}
	}
	allCurrent("extracted once")

	// The same job again: nothing new, nothing superseded.
	if n := prepareWrite(t, store, first); n != 0 {
		t.Errorf("the job run again stored %d memories", n)
	}
	allCurrent("job run again")

	// A later Stop of the session that repeats the answer (no new answer
	// of its own): nothing stored twice, nothing superseded.
	again := first
	again.PromptNumber, again.Prompts = 2, []string{"ok"}
	if n := prepareWrite(t, store, again); n != 0 {
		t.Errorf("the repeated answer stored %d memories again", n)
	}
	allCurrent("answer repeated by a later turn")
	if n := len(current()); n != 5 {
		t.Errorf("%d memories after the repeats, want 5", n)
	}

	// A later, different answer that changes the queue supersedes both
	// queue decisions, and completes the todo.
	later := memory.Turn{Project: "notifier", SessionID: sid, PromptNumber: 3, At: time.Now(), Prompts: []string{"River is too slow here."},
		Answer: "Key decisions:\n- Switched the job queue from River to NATS JetStream instead, since ops already run NATS.\n\n" +
			"Added the test for `ExportCSV` with an empty invoice list in export_test.go."}
	prepareWrite(t, store, later)
	states := map[string]string{}
	for _, m := range current() {
		states[m.Text[:32]] = m.State
	}
	for prefix, want := range map[string]string{
		"Went with Asynq for the job queu": models.MemorySuperseded, "Switched the job queue from Asyn": models.MemorySuperseded,
		"Switched the job queue from Rive": models.MemoryCurrent,
		"Add a test for `ExportCSV` with ": models.MemoryDone, "Went with npm for running the sc": models.MemoryCurrent,
	} {
		if states[prefix] != want {
			t.Errorf("after a later turn, %q… is %q, want %s (all: %v)", prefix, states[prefix], want, states)
		}
	}
}
