package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// memoryKey is what a memory is, apart from its ids: what must survive
// an export and an import.
type memoryKey struct {
	Session, Kind, Text, Original, Source, State, SupersededBy string
	Prompt                                                     int
	Files, Idents                                              string
	Pinned                                                     bool
	Created, Updated                                           time.Time
}

// memoriesOf reads every memory of srv's store as memoryKeys, the
// superseded-by link as the text of the memory it names.
func memoriesOf(t *testing.T, srv *testutil.Server) map[string]memoryKey {
	t.Helper()
	ms, err := srv.Store.Memories(t.Context(), models.MemoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	text := map[int64]string{}
	for _, m := range ms {
		text[m.ID] = m.Text
	}
	out := map[string]memoryKey{}
	for _, m := range ms {
		s, err := srv.Store.SessionByID(t.Context(), m.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := json.Marshal(m.Files)
		id, _ := json.Marshal(m.Idents)
		out[m.Text] = memoryKey{s.ClaudeSessionID, m.Kind, m.Text, m.OriginalText, m.Source, m.State, text[m.SupersededBy],
			m.PromptNumber, string(f), string(id), m.Pinned, m.CreatedAt.UTC(), m.UpdatedAt.UTC()}
	}
	return out
}

// TestExportAllMemoriesRoundTrip: the full export carries each session's
// memories (kind, texts, source, prompt number, files, identifiers,
// state, pin, times, and "superseded by" across sessions), and importing
// it into a fresh store brings the same memories back, whichever session
// comes first; a second import stores nothing.
func TestExportAllMemoriesRoundTrip(t *testing.T) {
	t.Parallel()
	src := testutil.NewServer(t)
	ctx := t.Context()
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	err := src.Store.Writer.Do(ctx, func(tx *models.Tx) error {
		a, err := tx.EnsureSession(&models.Session{ClaudeSessionID: "sess-a", Project: "app", Cwd: "/src/app", StartedAt: at})
		if err != nil {
			return err
		}
		b, err := tx.EnsureSession(&models.Session{ClaudeSessionID: "sess-b", Project: "app", Cwd: "/src/app", StartedAt: at.Add(time.Hour)})
		if err != nil {
			return err
		}
		old := &models.Memory{SessionID: a.ID, Project: "app", PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Use SQLite for the cache", Files: []string{"internal/cache/cache.go"}, Idents: []string{"Cache"}, CreatedAt: at}
		rule := &models.Memory{SessionID: a.ID, Project: "app", PromptNumber: 2, Source: models.SourcePrompt, Kind: models.MemoryConstraint,
			Text: "Never call the network in tests", CreatedAt: at.Add(time.Minute)}
		todo := &models.Memory{SessionID: a.ID, Project: "app", PromptNumber: 2, Source: models.SourceSummary, Kind: models.MemoryTodo,
			Text: "Add a benchmark for the cache", CreatedAt: at.Add(2 * time.Minute)}
		newer := &models.Memory{SessionID: b.ID, Project: "app", PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Switched the cache to bbolt instead of SQLite", Change: true, CreatedAt: at.Add(time.Hour)}
		for _, m := range []*models.Memory{old, rule, todo, newer} {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		if _, err := tx.SupersedeMemory(old.ID, newer.ID); err != nil {
			return err
		}
		if _, err := tx.CompleteMemory(todo.ID, models.SpeakerClaude); err != nil {
			return err
		}
		if _, err := tx.PinMemory(rule.ID, true); err != nil {
			return err
		}
		_, err = tx.EditMemory(rule.ID, "Never call the network in unit tests")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := memoriesOf(t, src)
	if len(want) != 4 || want["Use SQLite for the cache"].SupersededBy == "" {
		t.Fatalf("seeded memories: %+v", want)
	}

	status, body := src.Get(t, "/api/export/all")
	if status != http.StatusOK {
		t.Fatalf("export: %d %s", status, body)
	}
	var export struct {
		Sessions []json.RawMessage `json:"sessions"`
		Counts   models.Counts     `json:"counts"`
	}
	if err := json.Unmarshal(body, &export); err != nil {
		t.Fatal(err)
	}
	if export.Counts.Memories != 4 || len(export.Sessions) != 2 {
		t.Fatalf("export counts %+v, %d sessions: want 4 memories in 2 sessions", export.Counts, len(export.Sessions))
	}
	// The later session first: the link is made when the earlier comes.
	lines := string(export.Sessions[1]) + "\n" + string(export.Sessions[0]) + "\n"

	dst := testutil.NewServer(t)
	for round, wantNew := range []int64{4, 0} {
		status, out := dst.Do(t, http.MethodPost, "/api/import/export-rows", lines, http.Header{"Content-Type": {"application/x-ndjson"}})
		if status != http.StatusOK {
			t.Fatalf("import %d: %d %s", round, status, out)
		}
		var res models.RestoreCounts
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatal(err)
		}
		if res.New.Memories != wantNew || res.New.Memories+res.Existing.Memories != 4 || len(res.Refused) != 0 {
			t.Errorf("import %d: %s, want %d new memories of 4", round, out, wantNew)
		}
		got := memoriesOf(t, dst)
		if len(got) != len(want) {
			t.Fatalf("import %d: %d memories, want %d", round, len(got), len(want))
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("import %d: memory %q\n got %+v\nwant %+v", round, k, got[k], w)
			}
		}
	}
}

// A memory of a full export with a value extraction never stores is
// refused with its session, the field named.
func TestImportExportRowsRefusesCraftedMemory(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const at = "2026-11-20T10:00:00Z"
	crafted := map[string]string{
		`"kind":"rumour"`:                            `memories[0].kind "rumour"`,
		`"state":"zombie"`:                           `memories[0].state "zombie"`,
		`"source":"oracle"`:                          `memories[0].source "oracle"`,
		`"speaker":"the boss"`:                       `memories[0].speaker "the boss" must be user, claude, quoted or teammate`,
		`"text":"` + strings.Repeat("x", 1001) + `"`: `memories[0].text 1001 bytes is over 1000`,
		`"promptNumber":-3`:                          `memories[0].promptNumber -3 is out of range`,
	}
	var body strings.Builder
	for field := range crafted {
		id := "crafted-" + field[1:5]
		m := `{"kind":"decision","state":"current","source":"answer","text":"Use X","promptNumber":1,"createdAt":"` + at + `",` + field + `}`
		body.WriteString(`{"session":{"claudeSessionId":"` + id + `","project":"app","status":"active","startedAt":"` + at + `"},"memories":[` + m + "]}\n")
	}
	status, out := srv.Do(t, http.MethodPost, "/api/import/export-rows", body.String(), http.Header{"Content-Type": {"application/x-ndjson"}})
	if status != http.StatusOK {
		t.Fatalf("%d %s", status, out)
	}
	var res models.RestoreCounts
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if res.New.Sessions != 0 || res.New.Memories != 0 || len(res.Refused) != len(crafted) {
		t.Fatalf("answer %s: want all %d refused", out, len(crafted))
	}
	all := strings.Join(res.Refused, "\n")
	for _, want := range crafted {
		if !strings.Contains(all, want) {
			t.Errorf("refusals %q lack %q", all, want)
		}
	}
	if n, err := srv.Store.Counts(t.Context()); err != nil || n.Sessions != 0 || n.Memories != 0 {
		t.Errorf("stored %+v (%v), want nothing", n, err)
	}
}
