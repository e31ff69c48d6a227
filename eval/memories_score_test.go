//go:build unix

package eval

import (
	"reflect"
	"testing"
)

func TestMemoryScenariosValid(t *testing.T) {
	for _, sc := range MemoryScenarios() {
		if err := sc.Validate(); err != nil {
			t.Error(err)
		}
		if len(sc.Recall) == 0 || len(sc.Stale) == 0 || len(sc.States) == 0 {
			t.Errorf("%s: nothing to check", sc.Name)
		}
	}
}

// TestScoreMemories: facts are read line by line in the memories section;
// a stale memory there is wrongly current, one in a session line is only
// counted apart.
func TestScoreMemories(t *testing.T) {
	sc := MemoryScenario{
		Recall: []Fact{{Name: "river", All: []string{`decision`, `river`}}, {Name: "retries", All: []string{`retried at most 3`}}},
		Stale:  []Fact{{Name: "asynq", All: []string{`went with asynq`}}},
	}
	ctx := "<mneme-context>\n# mneme: memory of project notifier\n\n## Memories in force (decisions, constraints, causes, todos)\n" +
		"- m3 decision, Claude, 11-26: Switched the job queue from Asynq to River instead.\n" +
		"- m1 decision, Claude, 11-25: Went with Asynq for the job queue.\n\n" +
		"## Recent sessions\n- 2026-11-25 Pick a job queue: Went with Asynq for the job queue; retried at most 3 times\n</mneme-context>"
	got := sc.ScoreMemories(ctx)
	if got.Recalled != 1 || got.Expected != 2 || !reflect.DeepEqual(got.Missed, []string{"retries"}) {
		t.Errorf("recall: %+v (the retries are only in a session line)", got)
	}
	if got.Wrong != 1 || got.StaleElsewhere != 0 {
		t.Errorf("stale: %+v, want 1 wrongly current", got)
	}
	if want := len("## Memories in force (decisions, constraints, causes, todos)") + 1 + len(MemorySection(ctx)[0]) + 1 + len(MemorySection(ctx)[1]) + 1; got.SectionBytes != want {
		t.Errorf("section bytes %d, want %d", got.SectionBytes, want)
	}
	// Without the stale line in the section, the session line counts apart.
	ctx2 := "<mneme-context>\n## Memories in force\n- m3 decision, Claude, 11-26: Switched the job queue from Asynq to River instead.\n\n" +
		"## Recent sessions\n- Went with Asynq for the job queue\n</mneme-context>"
	if got := sc.ScoreMemories(ctx2); got.Wrong != 0 || got.StaleElsewhere != 1 || got.Recalled != 1 {
		t.Errorf("%+v: want 0 wrong, 1 elsewhere, 1 recalled", got)
	}
	if got := sc.ScoreMemories("<mneme-context>\n## Recent sessions\n- nothing\n</mneme-context>"); got.Recalled != 0 || got.SectionBytes != 0 {
		t.Errorf("no section: %+v", got)
	}
}
