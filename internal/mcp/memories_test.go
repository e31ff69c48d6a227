package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/mcp"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestMCPSearchMemoriesVoiceAndAsOf: search type=memory shows who said
// each memory and its state on its row (user, Claude, a teammate, a
// quote; current, superseded by mN, proposed, noted); as_of keeps what
// was in force at that time, and a bad as_of is a tool error saying why.
func TestMCPSearchMemoriesVoiceAndAsOf(t *testing.T) {
	t.Parallel()
	w := &world{srv: testutil.NewServer(t)}
	day := func(d int) time.Time { return time.Date(2026, 11, d, 10, 0, 0, 0, time.UTC) }
	var old, newer, rule, quote, proposed models.Memory
	err := w.srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		old = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Use SQLite for the cache", CreatedAt: day(10)}
		newer = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Switched the cache to bbolt", CreatedAt: day(25)}
		rule = models.Memory{Project: "app", Source: models.SourcePrompt, Kind: models.MemoryConstraint, Text: "Never touch the cache by hand", CreatedAt: day(1)}
		quote = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Decision: the cache is Redis",
			Speaker: models.SpeakerQuoted, SpeakerRef: "README.md", CreatedAt: day(12)}
		proposed = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Make the cache shared",
			Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed, CreatedAt: day(13)}
		for _, m := range []*models.Memory{&old, &newer, &rule, &quote, &proposed} {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		_, err := tx.SupersedeMemory(old.ID, newer.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, w.api(), mcp.Options{Project: "app"})
	text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "cache", "type": "memory", "project": "app"})
	t.Logf("\n%s", text)
	for _, want := range []string{
		fmt.Sprintf("m%d  2026-11-10  decision  Claude  superseded by m%d  Use SQLite for the cache", old.ID, newer.ID),
		fmt.Sprintf("m%d  2026-11-25  decision  Claude  current  Switched the cache to bbolt", newer.ID),
		fmt.Sprintf("m%d  2026-11-01  constraint  user  current  Never touch the cache by hand", rule.ID),
		fmt.Sprintf("m%d  2026-11-12  decision  quoted: README.md  noted  Decision: the cache is Redis", quote.ID),
		fmt.Sprintf("m%d  2026-11-13  decision  bob  proposed  Make the cache shared", proposed.ID),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the memory search lacks %q", want)
		}
	}
	text = mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "cache", "type": "memory", "project": "app", "as_of": "2026-11-20"})
	t.Logf("\n%s", text)
	row := func(id int64) string { return fmt.Sprintf("\nm%d  ", id) }
	if !strings.Contains(text, "in force on 2026-11-20") || !strings.Contains(text, row(old.ID)) || !strings.Contains(text, row(rule.ID)) {
		t.Errorf("as_of 2026-11-20 lacks what was in force then")
	}
	for _, id := range []int64{newer.ID, quote.ID, proposed.ID} {
		if strings.Contains(text, row(id)) {
			t.Errorf("as_of 2026-11-20 lists m%d, not in force then", id)
		}
	}
	if text, isErr := call(t, cs, mcp.ToolSearch, map[string]any{"query": "cache", "type": "memory", "as_of": "last week"}); !isErr || !strings.Contains(text, "as_of must be a date") {
		t.Errorf("a bad as_of: %v %s", isErr, text)
	}
	if text, isErr := call(t, cs, mcp.ToolSearch, map[string]any{"query": "cache", "as_of": "2026-11-20"}); !isErr || !strings.Contains(text, "type=memory") {
		t.Errorf("as_of without type memory: %v %s", isErr, text)
	}
}

// TestMCPGetByAnyRef: get_observations takes every id as rows and the
// context print it: a tool call (#12 or 12), a memory (m6), a session
// (s7); it answers each one found in the order asked, and names the ones
// not stored.
func TestMCPGetByAnyRef(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var mem models.Memory
	err := w.srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		mem = models.Memory{Project: "api-server", SessionID: w.session, Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Went with goose for the zebra migrations", Subject: "migrations", Evidence: "Went with goose for the zebra migrations, since it is plain SQL."}
		_, err := tx.InsertMemory(&mem)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, w.api(), mcp.Options{Project: "api-server"})
	var d struct {
		Observations []models.Observation `json:"observations"`
	}
	w.srv.GetJSON(t, fmt.Sprintf("/api/sessions/%d", w.session), &d)
	obs := d.Observations
	ids := []any{fmt.Sprintf("m%d", mem.ID), fmt.Sprintf("s%d", w.session), fmt.Sprintf("#%d", obs[0].ID), "m999999"}
	text := mustCall(t, cs, mcp.ToolGetObservations, map[string]any{"ids": ids})
	t.Logf("\n%s", text)
	for _, want := range []string{
		fmt.Sprintf("m%d  decision · Claude · current · project api-server", mem.ID),
		fmt.Sprintf("from session s%d", w.session), "about: migrations", "read from: Went with goose",
		fmt.Sprintf("session s%d  \"make the zebra migration pass", w.session),
		fmt.Sprintf("#%d  ", obs[0].ID),
		"Not found: m999999.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("get_observations lacks %q", want)
		}
	}
	if i, j := strings.Index(text, fmt.Sprintf("m%d  ", mem.ID)), strings.Index(text, fmt.Sprintf("#%d  ", obs[0].ID)); i < 0 || j < i {
		t.Errorf("the records are not in the order asked")
	}
	if text, isErr := call(t, cs, mcp.ToolGetObservations, map[string]any{"ids": []any{"x12"}}); !isErr || !strings.Contains(text, "x12") {
		t.Errorf("a bad id: %v %s", isErr, text)
	}
}
