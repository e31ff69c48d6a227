package shape

import (
	"encoding/json"
	"fmt"
	"github.com/mneme-dev/mneme/internal/jsonl"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/models"
)

// outcomeItem is one labelled Bash call of testdata/outcomes.
type outcomeItem struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Command string `json:"command"`
	Exit    int    `json:"exit"`
	Output  string `json:"output"`
	Want    string `json:"want"`
}

func readOutcomes(t *testing.T, name string) []outcomeItem {
	t.Helper()
	items, err := jsonl.Read[outcomeItem](filepath.Join("testdata", "outcomes", name))
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// outcomeTitle is the title the worker stores for it: exit 0 arrives as a
// PostToolUse with the output as stdout, any other exit as a
// PostToolUseFailure whose error is "Exit code N" and the output, as
// Claude Code sends them.
func outcomeTitle(pol *Policy, it outcomeItem) string {
	in, _ := json.Marshal(map[string]string{"command": it.Command})
	p := &Payload{SessionID: "s", Cwd: "/home/dev/app", ToolName: it.Tool, ToolInput: in, ToolUseID: "t-" + it.ID}
	if it.Exit == 0 {
		p.HookEventName = hookwire.PostToolUse
		p.ToolResponse, _ = json.Marshal(map[string]any{"stdout": it.Output, "stderr": "", "interrupted": false})
	} else {
		p.HookEventName = hookwire.PostToolUseFailure
		p.Error = fmt.Sprintf("Exit code %d\n%s", it.Exit, it.Output)
	}
	return observe(pol, p).Title
}

func wanted(title, want string) bool {
	for _, alt := range strings.Split(want, "|") {
		if alt != "" && strings.Contains(title, alt) {
			return true
		}
	}
	return false
}

// TestOutcomeBenchmark scores the titles on both halves of
// testdata/outcomes (see its README): an item is right when its title
// contains one of its wanted alternatives. The floors only guard against
// a regression; `go test -v -run TestOutcomeBenchmark` prints the table
// and every miss.
func TestOutcomeBenchmark(t *testing.T) {
	pol := NewPolicy(models.DefaultSettings())
	floors := map[string]float64{"tune.jsonl": 0.95, "heldout.jsonl": 0.9}
	var table strings.Builder
	fmt.Fprintf(&table, "%-14s %5s %5s %7s\n", "half", "items", "right", "score")
	for _, name := range []string{"tune.jsonl", "heldout.jsonl"} {
		items := readOutcomes(t, name)
		right := 0
		for _, it := range items {
			title := outcomeTitle(pol, it)
			if n := len([]rune(title)); n > 200 {
				t.Errorf("%s %s: title of %d runes", name, it.ID, n)
			}
			if wanted(title, it.Want) {
				right++
				continue
			}
			t.Logf("miss %s %s: %q, want %q", name, it.ID, title, it.Want)
		}
		score := float64(right) / float64(len(items))
		fmt.Fprintf(&table, "%-14s %5d %5d %6.1f%%\n", name, len(items), right, 100*score)
		if score < floors[name] {
			t.Errorf("%s: %.1f%% right, below the floor of %.1f%%", name, 100*score, 100*floors[name])
		}
	}
	t.Log("\n" + table.String())
}

func TestOutcomeTitlesShow(t *testing.T) {
	if os.Getenv("MNEME_SHOW_OUTCOMES") == "" {
		t.Skip("set MNEME_SHOW_OUTCOMES=1 to print every title")
	}
	pol := NewPolicy(models.DefaultSettings())
	for _, name := range []string{"tune.jsonl", "heldout.jsonl"} {
		for _, it := range readOutcomes(t, name) {
			t.Logf("%-24s %s", it.ID, outcomeTitle(pol, it))
		}
	}
}
