package retention

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

// openStore opens a store on the matrix's backend (testutil.OpenStore's,
// which this package's own tests cannot import: testutil builds workers,
// which use retention).
func openStore(t *testing.T) *models.Store {
	t.Helper()
	url := ""
	if pgtest.OnPostgres() {
		url = pgtest.URL(t)
	}
	s, err := models.OpenURL(url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// seed stores one session with n observations per age (in days).
func seed(t *testing.T, s *models.Store, now time.Time, perAge map[int]int) {
	t.Helper()
	err := s.Writer.Do(context.Background(), func(tx *models.Tx) error {
		sess := models.Session{ClaudeSessionID: "s", Project: "p", StartedAt: now, Status: models.StatusActive}
		if err := tx.Insert(&sess); err != nil {
			return err
		}
		for age, n := range perAge {
			for i := 0; i < n; i++ {
				o := models.Observation{SessionID: sess.ID, Project: "p", ToolName: "Bash", Kind: "bash",
					Title: fmt.Sprintf("aged%d item %d", age, i), Files: []string{"/p/secret-KEY-1234.txt"}, Success: true,
					CreatedAt: now.Add(-time.Duration(age)*24*time.Hour - time.Minute)}
				if _, err := tx.InsertObservation(&o); err != nil {
					return err
				}
				if _, err := tx.AppendEvent(models.EventObservation, "p", sess.ID, o.ID, map[string]any{"title": o.Title}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Events are stamped now; backdate them like their rows.
	modelstest.Exec(t, s, `UPDATE events SET created_at = (SELECT created_at FROM observations WHERE id = events.ref_id) WHERE kind = ?`, models.EventObservation)
}

func TestApplyDeletesInBatches(t *testing.T) {
	s := openStore(t)
	now := time.Now().UTC()
	seed(t, s, now, map[int]int{400: Batch + 250, 40: 30, 1: 20})
	tests := []struct {
		days      int
		count     int64
		remaining int64
	}{
		{0, 0, Batch + 300},   // keep forever
		{500, 0, Batch + 300}, // nothing that old
		{365, Batch + 250, 50},
		{30, 30, 20},
	}
	for _, tt := range tests {
		n, err := CountOlder(context.Background(), s, tt.days, now)
		if err != nil || n != tt.count {
			t.Fatalf("CountOlder(%d) = %d, %v; want %d", tt.days, n, err, tt.count)
		}
		deleted, err := Apply(context.Background(), s, tt.days, now)
		if err != nil || deleted != tt.count {
			t.Fatalf("Apply(%d) = %d, %v; want %d", tt.days, deleted, err, tt.count)
		}
		if err := s.FlushSearchIndex(context.Background()); err != nil {
			t.Fatal(err)
		}
		var left, fts, events int64
		modelstest.Row(t, s, []any{&left}, `SELECT COUNT(*) FROM observations`)
		indexed := `SELECT COUNT(*) FROM observations_fts WHERE observations_fts MATCH 'item'`
		if s.Postgres() {
			indexed = `SELECT COUNT(*) FROM observations WHERE fts @@ to_tsquery('english', 'item')`
		}
		modelstest.Row(t, s, []any{&fts}, indexed)
		modelstest.Row(t, s, []any{&events}, `SELECT COUNT(*) FROM events WHERE kind = 'observation'`)
		if left != tt.remaining || fts != tt.remaining || events != tt.remaining {
			t.Fatalf("after %d days: %d rows, %d indexed, %d events; want %d", tt.days, left, fts, events, tt.remaining)
		}
	}
}

func TestJobRunsOnKick(t *testing.T) {
	s := openStore(t)
	now := time.Now().UTC()
	seed(t, s, now, map[int]int{100: 5, 1: 3})
	st := models.DefaultSettings()
	st.Retention.ObservationDays = 7
	j := Start(s, func() models.Settings { return st }, nil)
	defer j.Stop()
	j.Kick()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int64
		modelstest.Row(t, s, []any{&n}, `SELECT COUNT(*) FROM observations`)
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job did not run: %d rows", n)
		}
	}
}

func TestReapplyKeepsJSONValid(t *testing.T) {
	s := openStore(t)
	seed(t, s, time.Now().UTC(), map[int]int{1: 3})
	r := privacy.New([]privacy.Rule{{Name: "k", Pattern: `KEY-\d+`, Enabled: true}})
	res, err := Reapply(context.Background(), s, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed["observations"] != 3 {
		t.Fatalf("changed %+v", res.Changed)
	}
	obs, err := s.ObservationsOfSession(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if len(o.Files) != 1 || o.Files[0] != "/p/secret-[REDACTED:k].txt" {
			t.Fatalf("files = %q", o.Files)
		}
	}
	// A second pass finds nothing left to change.
	if res, _ := Reapply(context.Background(), s, r); res.Total() != 0 {
		t.Fatalf("second pass changed %+v", res.Changed)
	}
}

// Reapply covers every text column of every table holding captured data
// (data stored by an older mneme, with fewer rules, is the case it is
// for): none holds the secret afterwards, search does not find it, an
// identifier is rewritten as ingest would have cleaned it, and once the
// -wal is checkpointed the database file holds no byte of it.
func TestReapplyCoversEveryTextColumn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mneme.db")
	s, err := models.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const key = "npm_iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g" // a kind an older mneme did not know
	now := time.Now().UTC()
	stmts := []string{
		`INSERT INTO sessions (id, claude_session_id, project, cwd, git_branch, source, status, started_at, end_reason, transcript_path, last_assistant_message)
			VALUES (1, 'sess-` + key + `', 'proj-` + key + `', '/home/` + key + `', 'br-` + key + `', 'src-` + key + `', 'active', ?, 'r ` + key + `', '/t/` + key + `.jsonl', 'm ` + key + `')`,
		`INSERT INTO prompts (session_id, project, number, text, prompt_id, created_at) VALUES (1, 'p', 1, 'use ` + key + ` now', 'pid-` + key + `', ?)`,
		`INSERT INTO private_prompts (session_id, number, prompt_id) VALUES (1, 2, 'pp-` + key + `')`,
		`INSERT INTO observations (session_id, project, tool_use_id, tool_name, kind, title, input, output, files, created_at, excluded_by)
			VALUES (1, 'p', 'tu-` + key + `', 'mcp__x__y ` + key + `', 'mcp', 'title ` + key + `', '{"token":"` + key + `"}', 'out ` + key + `', '["/f/` + key + `"]', ?, '')`,
		`INSERT INTO summaries (session_id, project, kind, request, investigated, learned, completed, next_steps, last_user_message, last_assistant_message, note, created_at)
			VALUES (1, 'p', 'turn', 'rq ` + key + `', 'iv ` + key + `', 'ln ` + key + `', 'cp ` + key + `', 'ns ` + key + `', 'lu ` + key + `', 'la ` + key + `', 'note ` + key + `', ?)`,
		`INSERT INTO events (kind, project, session_id, ref_id, data, created_at) VALUES ('prompt', 'p', 1, 1, '{"claudeSessionId":"sess-` + key + `","text":"` + key + `"}', ?)`,
		`INSERT INTO summary_jobs (session_id, kind, prompt_number, status, next_attempt_at, last_error, created_at, updated_at, assistant_message)
			VALUES (1, 'turn', 1, 'failed', ?, 'err ` + key + `', ?, ?, 'am ` + key + `')`,
		`INSERT INTO token_ledger (session_id, day, generator, model, created_at) VALUES (1, '2025-01-01', 'claude-cli', 'model-` + key + `', ?)`,
	}
	for _, q := range stmts {
		args := make([]any, strings.Count(q, "?"))
		for i := range args {
			args[i] = now
		}
		modelstest.Exec(t, s, q, args...)
	}
	r := privacy.New(privacy.BuiltinRules())
	res, err := Reapply(context.Background(), s, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"sessions", "prompts", "private_prompts", "observations", "summaries", "events", "summary_jobs", "token_ledger"} {
		if res.Changed[table] != 1 {
			t.Errorf("%s: %d rows rewritten, want 1 (%+v)", table, res.Changed[table], res.Changed)
		}
	}
	tables, err := s.TextTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tables {
		for _, col := range tt.Cols {
			var n int64
			modelstest.Scan(t, s, &n, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE instr(%s, ?) > 0`, tt.Name, col), "iK2ZWeqhFWCEPy")
			if n != 0 {
				t.Errorf("%s.%s still holds the secret", tt.Name, col)
			}
		}
	}
	var sid string
	modelstest.Scan(t, s, &sid, `SELECT claude_session_id FROM sessions`)
	if want := r.CleanID("sess-" + key); sid != want {
		t.Errorf("session id %q, want %q as ingest makes it", sid, want)
	}
	var files string
	modelstest.Scan(t, s, &files, `SELECT files FROM observations`)
	if !json.Valid([]byte(files)) {
		t.Errorf("files is no longer JSON: %s", files)
	}
	for _, q := range []string{"iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g", "npm_iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g"} {
		if hits, err := s.Search(context.Background(), models.SearchQuery{Q: `"` + q + `"`}); err != nil || len(hits) > 0 {
			t.Errorf("search for %s: %d hits, %v", q, len(hits), err)
		}
	}
	if res, _ := Reapply(context.Background(), s, r); res.Total() != 0 {
		t.Errorf("a second pass changed %+v", res.Changed)
	}
	modelstest.Exec(t, s, `PRAGMA wal_checkpoint(TRUNCATE)`)
	b, _ := os.ReadFile(path)
	for _, part := range []string{"iK2ZWeqhFWCEPy", strings.ToLower("iK2ZWeqhFWCEPy")} {
		if i := bytes.Index(b, []byte(part)); i >= 0 {
			t.Errorf("the database file still holds %q at %d: %q", part, i, b[max(0, i-60):i+40])
		}
	}
}
