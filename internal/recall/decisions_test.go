package recall

import (
	"fmt"
	"testing"

	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

func TestDecisionsOf(t *testing.T) {
	t.Parallel()
	c := cleaner{shape.NewPolicy(models.DefaultSettings())}
	for _, tc := range []struct {
		name, answer, shown, want string
	}{
		{"cue words", "Decision: the config is TOML instead of YAML.\n\nIt listens on :8086. " +
			"The secret comes from WEBHOOKD_SECRET, never from the file. Tests pass. " +
			"We chose NATS over Kafka. You must run `make gen` first.",
			"- 2026-11-20 — done: Decision: the config is TOML instead of YAML.",
			"[The secret comes from WEBHOOKD_SECRET, never from the file. We chose NATS over Kafka. You must run `make gen` first.]"},
		{"a decisions heading", "Done.\n\n## What changed\n- `a.go`: the loader\n\n## Decisions\n- **Port:** `:8086`.\n- Retries: at most 5.\n\nLet me know if you want more.\n\n## Next\nShip it.",
			"", "[Port: `:8086`. Retries: at most 5.]"},
		{"bold labels", "Fixed.\n\n**Root cause:** integer division truncated to 0.\n\n**Important:** prices are cents.\n\n**Files:** a.go.",
			"", "[Root cause: integer division truncated to 0. Important: prices are cents.]"},
		{"nothing", "All done, tests pass.", "", "[]"},
	} {
		if got := fmt.Sprint(decisionsOf(tc.answer, tc.shown, c)); got != tc.want {
			t.Errorf("%s: got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	many := ""
	for i := range 9 {
		many += fmt.Sprintf("Never do thing %d. ", i)
	}
	if n := len(decisionsOf(many, "", c)); n != maxDecisions {
		t.Errorf("%d decisions from one answer, want at most %d", n, maxDecisions)
	}
}
