package summarize_test

import (
	"testing"

	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/models"
)

// A failed command is fixed by a later success of the same program and
// subcommand with other arguments, not by another command of the same
// program without a subcommand.
func TestTrackerCommandFamily(t *testing.T) {
	t.Parallel()
	bash := func(id int64, cmd string, ok bool) models.Observation {
		return models.Observation{ID: id, ToolName: "Bash", Kind: models.KindBash, Input: cmd, Success: ok}
	}
	var tr summarize.Tracker
	for _, o := range []models.Observation{
		bash(1, "go build ./...", false),
		bash(2, "cat a.txt", false),
		bash(3, "go build -o bin/app .", true),
		bash(4, "cat b.txt", true),
	} {
		tr.Add(o)
	}
	if len(tr.Failures) != 2 {
		t.Fatalf("%d failures", len(tr.Failures))
	}
	if f := tr.Failures[0]; !f.Fixed || f.FixedBy.ID != 3 {
		t.Errorf("go build ./... should be fixed by #3: %+v", f)
	}
	if f := tr.Failures[1]; f.Fixed {
		t.Errorf("cat a.txt is not fixed by cat b.txt: %+v", f)
	}
}
