package recall

import (
	"fmt"
	"testing"

	"github.com/mneme-dev/mneme/models"
)

func TestFoldRoutine(t *testing.T) {
	t.Parallel()
	mk := func(id int64, title string, ok bool, imp float64) models.Observation {
		return models.Observation{ID: id, ToolName: "Bash", Title: title, Success: ok, Importance: imp}
	}
	// Newest first, as loaded.
	obs := []models.Observation{
		mk(9, "Ran `grep -c x f_09.json`: exit 0", true, 0.5),
		mk(8, "Created f_09.json (1 line)", true, 0.7),
		mk(7, "Ran `grep -c x f_08.json`: exit 0", true, 0.5),
		mk(6, "Created f_08.json (1 line)", true, 0.7),
		mk(5, "Ran `go test ./...`: 3 packages ok", true, 0.9),
		mk(4, "Ran `go test ./...`: 2 packages ok", true, 0.9),
		mk(3, "Ran `grep -c x f_07.json`: exit 0", true, 0.5),
		mk(2, "Ran `echo decision >> DECISIONS.md`: exit 0", true, 0.5),
		mk(1, "`curl http://x:1/`: exit 7", false, 1),
	}
	kept, like := foldRoutine(obs, 6)
	var ids []int64
	for _, o := range kept {
		ids = append(ids, o.ID)
	}
	// The grep runs fold into #9; file changes and tests never fold.
	if fmt.Sprint(ids) != "[9 8 6 5 4 2]" || like[9] != 2 || len(like) != 1 {
		t.Fatalf("kept %v, like %v", ids, like)
	}
	if kept, _ := foldRoutine(obs, 20); len(kept) != 7 {
		t.Errorf("a large n keeps every distinct one: %d", len(kept))
	}
}
