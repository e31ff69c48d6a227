package recall

import (
	"fmt"
	"testing"

	"github.com/mneme-dev/mneme/internal/ingest"
	"github.com/mneme-dev/mneme/models"
)

func TestDecisionsOf(t *testing.T) {
	c := cleaner{ingest.NewPolicy(models.DefaultSettings())}
	answer := "Decision: the config is TOML instead of YAML.\n\nIt listens on :8086. " +
		"The secret comes from WEBHOOKD_SECRET, never from the file. Tests pass. " +
		"We chose NATS over Kafka. You must run `make gen` first. Always vendor."
	got := decisionsOf(answer, "- 2026-11-20 — done: Decision: the config is TOML instead of YAML.", c)
	want := "[The secret comes from WEBHOOKD_SECRET, never from the file. We chose NATS over Kafka. You must run `make gen` first.]"
	if fmt.Sprint(got) != want {
		t.Errorf("decisions = %q\nwant %s", got, want)
	}
	if d := decisionsOf("All done, tests pass.", "", c); len(d) != 0 {
		t.Errorf("no cue, no decision: %q", d)
	}
}
