package main

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// looseKey is a memory apart from its ids, its session named by Claude
// Code's id ("" outside any session) and its replacement by its text.
type looseKey struct {
	Session, Project, Kind, Text, Original, Source, State, SupersededBy string
	Pinned                                                              bool
	Created                                                             time.Time
	// Provenance: who said it, about what, when in force, who ended it.
	Speaker, SpeakerRef, Subject, Evidence, InForce, Ended, EndedBy string
}

// when is a time that may be unset, comparable.
func when(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func memoryKeys(t *testing.T, srv *testutil.Server) map[string]looseKey {
	t.Helper()
	ms, err := srv.Store.Memories(t.Context(), models.MemoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	text := map[int64]string{}
	for _, m := range ms {
		text[m.ID] = m.Text
	}
	out := map[string]looseKey{}
	for _, m := range ms {
		session := ""
		if m.SessionID != 0 {
			s, err := srv.Store.SessionByID(t.Context(), m.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			session = s.ClaudeSessionID
		}
		out[m.Text] = looseKey{session, m.Project, m.Kind, m.Text, m.OriginalText, m.Source, m.State, text[m.SupersededBy], m.Pinned, m.CreatedAt.UTC(),
			m.Speaker, m.SpeakerRef, m.Subject, m.Evidence, when(m.InForceAt), when(m.EndedAt), m.EndedBy}
	}
	return out
}

// TestExportImportMemoriesOutsideSessions: memories stated outside any
// session (MCP's remember without a session, one of them replacing a
// session's decision) are in `mneme export --all` after the sessions and
// counted, and `mneme import` brings them back with their states, pins,
// links and provenance (who said each, its ref, subject and evidence,
// when in force, when ended and by whom; a teammate's proposal and a
// quote among them), into a fresh store, once: a second import stores
// nothing.
func TestExportImportMemoriesOutsideSessions(t *testing.T) {
	t.Parallel()
	src := testutil.NewServer(t)
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	remember := func(kind, text string) int64 {
		status, body := src.Post(t, "/api/memories", map[string]any{"project": "app", "kind": kind, "text": text})
		if status != http.StatusOK && status != http.StatusCreated {
			t.Fatalf("remember: %d %s", status, body)
		}
		var m models.Memory
		if err := json.Unmarshal(body, &m); err != nil || m.ID == 0 || m.SessionID != 0 {
			t.Fatalf("remember: %s (%v)", body, err)
		}
		return m.ID
	}
	rule := remember(models.MemoryConstraint, "Never commit generated files")
	newer := remember(models.MemoryDecision, "Switched the cache to bbolt instead of SQLite")
	retired := remember(models.MemoryTodo, "Try the new linter")
	err := src.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		s, err := tx.EnsureSession(&models.Session{ClaudeSessionID: "sess-a", Project: "app", Cwd: "/src/app", StartedAt: at})
		if err != nil {
			return err
		}
		old := &models.Memory{SessionID: s.ID, Project: "app", PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Use SQLite for the cache", CreatedAt: at, Subject: "cache", Evidence: "We will use SQLite for the cache."}
		proposal := &models.Memory{SessionID: s.ID, Project: "app", PromptNumber: 2, Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Make the cache shared", CreatedAt: at, Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed}
		quote := &models.Memory{SessionID: s.ID, Project: "app", PromptNumber: 2, Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Decision: deploy on Fridays", CreatedAt: at, Speaker: models.SpeakerQuoted, SpeakerRef: "README.md"}
		for _, m := range []*models.Memory{old, proposal, quote} {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		if _, err := tx.SupersedeMemory(old.ID, newer); err != nil {
			return err
		}
		if _, err := tx.PinMemory(rule, true); err != nil {
			return err
		}
		_, err = tx.SetMemoryState(retired, models.MemoryRetired)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := memoryKeys(t, src)
	if len(want) != 6 || want["Use SQLite for the cache"].SupersededBy != "Switched the cache to bbolt instead of SQLite" {
		t.Fatalf("seeded: %+v", want)
	}
	if o := want["Use SQLite for the cache"]; o.Speaker != models.SpeakerClaude || o.Subject != "cache" || o.Evidence == "" || o.InForce == "" ||
		o.Ended == "" || o.EndedBy != models.SpeakerClaude {
		t.Fatalf("seeded without provenance: %+v", o)
	}

	file := exportAll(t, src)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sessions []struct {
			Memories []models.ExportMemory `json:"memories"`
		} `json:"sessions"`
		Memories []models.ExportMemory `json:"memories"`
		Counts   models.Counts         `json:"counts"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Memories) != 3 || doc.Counts.Memories != 6 || len(doc.Sessions) != 1 || len(doc.Sessions[0].Memories) != 3 {
		t.Fatalf("export: %d memories outside sessions, counts %+v", len(doc.Memories), doc.Counts)
	}
	if r := doc.Sessions[0].Memories[0].SupersededByRef; r == nil || r.Session != "" || r.Project != "app" {
		t.Errorf("the session's memory names its replacement outside sessions as %+v", r)
	}

	dst := testutil.NewServer(t)
	out := importOK(t, dst, file)
	if !strings.Contains(out, "6 memories") {
		t.Errorf("import says:\n%s", out)
	}
	got := memoryKeys(t, dst)
	if len(got) != len(want) {
		t.Fatalf("after import: %d memories, want %d: %+v", len(got), len(want), got)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("memory %q\n got %+v\nwant %+v", k, got[k], w)
		}
	}
	importOK(t, dst, file)
	if again := memoryKeys(t, dst); len(again) != len(want) {
		t.Errorf("a second import: %d memories, want %d", len(again), len(want))
	}
	if n, err := dst.Store.Counts(t.Context()); err != nil || n.Memories != 6 {
		t.Errorf("counts after two imports: %+v %v", n, err)
	}
}
