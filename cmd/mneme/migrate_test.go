package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// migrateTables are the tables migrate copies, compared row for row.
var migrateTables = []string{"sessions", "prompts", "private_prompts", "observations", "summaries", "file_states", "token_ledger", "settings", "memories"}

// tableCounts counts the rows of migrateTables in st.
func tableCounts(t *testing.T, st *models.Store) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, tb := range migrateTables {
		out[tb] = modelstest.Int(t, st, `SELECT COUNT(*) FROM `+tb)
	}
	return out
}

// migrateCLI runs `mneme migrate` in-process on dataDir's database.
func migrateCLI(t *testing.T, dataDir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	all := append([]string{"--data-dir", dataDir, "migrate"}, args...)
	code = run(all, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// settle waits until the worker's summary jobs are done: the summarizer
// writes summaries (and what they state as memories) in the background,
// each with its job's end, in one transaction.
func settle(t *testing.T, srv *testutil.Server) {
	t.Helper()
	testutil.WaitJobs(t, srv.Store, 60*time.Second)
}

// sessionDetail reads one session whole from st, as the API shows it.
func sessionDetail(t *testing.T, st *models.Store, claudeID string) api.SessionDetail {
	t.Helper()
	ctx := t.Context()
	s, err := st.SessionByClaudeID(ctx, claudeID)
	if err != nil {
		t.Fatalf("session %s: %v", claudeID, err)
	}
	d := api.SessionDetail{Session: s}
	if d.Prompts, err = st.PromptsOfSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if d.Summaries, err = st.SummariesOfSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	err = st.EachObservationOf(ctx, s.ID, true, 500, func(obs []models.Observation) error {
		for _, o := range obs {
			o.Files = append([]string(nil), o.Files...)
			d.Observations = append(d.Observations, o)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// stored is a session's stored text and times, without the ids that
// differ between the two databases: what must be byte-identical. Times
// are compared to the microsecond, PostgreSQL's precision (SQLite keeps
// the nanoseconds live capture gives some of them).
func stored(d api.SessionDetail) string {
	us := func(t *time.Time) { *t = t.Truncate(time.Microsecond) }
	s := *d.Session
	s.ID = 0
	us(&s.StartedAt)
	if s.EndedAt != nil {
		end := s.EndedAt.Truncate(time.Microsecond)
		s.EndedAt = &end
	}
	var b strings.Builder
	j := func(v any) { x, _ := json.Marshal(v); b.Write(x); b.WriteByte('\n') }
	j(s)
	for _, p := range d.Prompts {
		p.ID, p.SessionID = 0, 0
		us(&p.CreatedAt)
		j(p)
	}
	for _, o := range d.Observations {
		o.ID, o.SessionID = 0, 0
		us(&o.CreatedAt)
		j(o)
	}
	for _, m := range d.Summaries {
		m.ID, m.SessionID = 0, 0
		us(&m.CreatedAt)
		j(m)
	}
	return b.String()
}

// seedMigrateMemories stores memories in hist and in session claudeID: a
// decision of hist superseded by one of the other session, and a pinned
// rule whose text the user edited.
func seedMigrateMemories(tx *models.Tx, hist *models.Session, claudeID string, at time.Time) error {
	other, err := tx.EnsureSession(&models.Session{ClaudeSessionID: claudeID})
	if err != nil {
		return err
	}
	old := &models.Memory{SessionID: hist.ID, Project: hist.Project, PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision,
		Text: "Use the REST client for billing", Files: []string{"billing/client.go"}, CreatedAt: at}
	rule := &models.Memory{SessionID: hist.ID, Project: hist.Project, PromptNumber: 1, Source: models.SourcePrompt, Kind: models.MemoryConstraint,
		Text: "Never log card numbers", CreatedAt: at}
	newer := &models.Memory{SessionID: other.ID, Project: hist.Project, PromptNumber: 1, Source: models.SourceSummary, Kind: models.MemoryDecision,
		Text: "Switched billing to the gRPC client instead of REST", Change: true, CreatedAt: at.Add(time.Hour)}
	for _, m := range []*models.Memory{old, rule, newer} {
		if _, err := tx.InsertMemory(m); err != nil {
			return err
		}
	}
	if _, err := tx.SupersedeMemory(old.ID, newer.ID); err != nil {
		return err
	}
	if _, err := tx.PinMemory(rule.ID, true); err != nil {
		return err
	}
	_, err = tx.EditMemory(rule.ID, "Never log card numbers, even masked")
	return err
}

// memoryDigest is st's memories without their ids, the superseded-by link
// as the text of the memory it names, times to the microsecond.
func memoryDigest(t *testing.T, st *models.Store) []string {
	t.Helper()
	ms, err := st.Memories(t.Context(), models.MemoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	text := map[int64]string{}
	for _, m := range ms {
		text[m.ID] = m.Text
	}
	var out []string
	for _, m := range ms {
		s, err := st.SessionByID(t.Context(), m.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		by := text[m.SupersededBy]
		m.ID, m.SessionID, m.SupersededBy = 0, 0, 0
		m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC().Truncate(time.Microsecond), m.UpdatedAt.UTC().Truncate(time.Microsecond)
		b, _ := json.Marshal(m)
		out = append(out, s.ClaudeSessionID+" "+string(b)+" superseded by "+by)
	}
	sort.Strings(out)
	return out
}

// migrateSource is a worker holding the fixture session, a history
// session, a tool call carrying a secret (redacted at capture), a private
// prompt, ledger entries (one of a summary, one of no session) and
// changed settings.
func migrateSource(t *testing.T) *testutil.Server {
	t.Helper()
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	seedHistory(t, srv, "history-1", 40)
	const sid = "secret-session"
	srv.Hook(t, "session-start", map[string]any{"session_id": sid, "hook_event_name": "SessionStart", "cwd": "/home/dev/app", "source": "startup"})
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": sid, "hook_event_name": "UserPromptSubmit", "cwd": "/home/dev/app", "prompt": "deploy it"})
	srv.Hook(t, "post-tool-use", map[string]any{"session_id": sid, "hook_event_name": "PostToolUse", "cwd": "/home/dev/app", "tool_name": "Bash",
		"tool_use_id": "toolu_secret", "tool_input": map[string]any{"command": "aws configure set key AKIAZ7QWERTYUIOP1234"},
		"tool_response": map[string]any{"stdout": "ok"}})
	ctx := t.Context()
	st, err := srv.Store.LoadSettings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Privacy.RedactionRules = append(st.Privacy.RedactionRules, privacy.Rule{Name: "ticket", Pattern: `TICKET-\d+`, Enabled: true})
	hist, err := srv.Store.SessionByClaudeID(ctx, "history-1")
	if err != nil {
		t.Fatal(err)
	}
	sums, err := srv.Store.SummariesOfSession(ctx, hist.ID)
	if err != nil || len(sums) == 0 {
		t.Fatalf("history summaries: %v %d", err, len(sums))
	}
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	err = srv.Store.Writer.Do(ctx, func(tx *models.Tx) error {
		if err := tx.WriteSettings(st); err != nil {
			return err
		}
		if _, err := tx.AddPrivatePrompts(hist.ID, []models.PrivatePrompt{{Number: 2, PromptID: "p2"}}); err != nil {
			return err
		}
		if err := tx.RecordTokens(&models.LedgerEntry{SessionID: hist.ID, SummaryID: sums[0].ID, Generator: "anthropic-api", Model: "m",
			InputTokens: 100, OutputTokens: 20, CostUSD: 0.001, CreatedAt: at}); err != nil {
			return err
		}
		if err := tx.RecordTokens(&models.LedgerEntry{Generator: "anthropic-api", Model: "m", InputTokens: 7, OutputTokens: 3, CreatedAt: at}); err != nil {
			return err
		}
		return seedMigrateMemories(tx, hist, sid, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	settle(t, srv)
	return srv
}

// TestMigrate copies a worker's SQLite memory into PostgreSQL while the
// worker runs, compares both row for row, and runs again: nothing new.
func TestMigrate(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	srv := migrateSource(t)

	code, out, errOut := migrateCLI(t, srv.DataDir, "--to", url)
	if code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("first run:\n%s", out)
	if !strings.Contains(out, "new: 3 sessions") || !strings.Contains(out, "1 private prompt, 2 ledger entries") ||
		!strings.Contains(out, "settings: 1 copied") || !strings.Contains(out, "not copied: events") {
		t.Errorf("first run's summary:\n%s", out)
	}
	if !strings.Contains(out, "into "+models.RedactURL(url)) {
		t.Errorf("the target is not named (redacted):\n%s", out)
	}

	// Again, the worker still running: nothing new.
	code, out, errOut = migrateCLI(t, srv.DataDir, "--to", url)
	if code != 0 {
		t.Fatalf("second migrate: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("second run:\n%s", out)
	if !strings.Contains(out, "nothing new") || !strings.Contains(out, "new: 0 sessions, 0 prompts, 0 observations, 0 summaries, 0 file states, 0 private prompts, 0 ledger entries") {
		t.Errorf("second run copied something:\n%s", out)
	}
	srv.Shutdown(5 * time.Second)

	src, err := models.OpenReadOnly(filepath.Join(srv.DataDir, "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := models.OpenPostgres(url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()

	want, got := tableCounts(t, src), tableCounts(t, dst)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("rows per table:\n SQLite   %v\n Postgres %v", want, got)
	}
	if ma, mb := memoryDigest(t, src), memoryDigest(t, dst); !reflect.DeepEqual(ma, mb) || len(ma) < 3 ||
		!strings.Contains(strings.Join(mb, "\n"), "superseded by Switched billing") {
		t.Errorf("memories:\n SQLite   %q\n Postgres %q", ma, mb)
	}
	if want["file_states"] == 0 || want["summaries"] == 0 {
		t.Errorf("the source has no file states or summaries to copy: %v", want)
	}

	sessions, err := src.SessionsAfter(t.Context(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		a, b := sessionDetail(t, src, s.ClaudeSessionID), sessionDetail(t, dst, s.ClaudeSessionID)
		if da, db := testutil.SessionDigest(a), testutil.SessionDigest(b); !reflect.DeepEqual(da, db) {
			t.Errorf("session %s digest:\n SQLite   %q\n Postgres %q", s.ClaudeSessionID, da, db)
		}
		if sa, sb := stored(a), stored(b); sa != sb {
			t.Errorf("session %s stored rows differ:\n SQLite\n%s Postgres\n%s", s.ClaudeSessionID, sa, sb)
		}
	}

	// The secrets stay redacted: the fixture's <private> password and the
	// key in a command.
	for _, secret := range []string{"hunter2", "AKIAZ7QWERTYUIOP1234"} {
		var n int64
		modelstest.Row(t, dst, []any{&n}, `SELECT (SELECT COUNT(*) FROM prompts WHERE text LIKE ?) + (SELECT COUNT(*) FROM observations WHERE input LIKE ? OR output LIKE ? OR title LIKE ?)`,
			"%"+secret+"%", "%"+secret+"%", "%"+secret+"%", "%"+secret+"%")
		if n != 0 {
			t.Errorf("%s is in %d PostgreSQL rows", secret, n)
		}
	}
	sec := sessionDetail(t, dst, "secret-session")
	if len(sec.Observations) != 1 || !strings.Contains(sec.Observations[0].Input, "[REDACTED:aws_access_key]") {
		t.Errorf("the secret tool call in PostgreSQL: %+v", sec.Observations)
	}

	// The settings came along (the custom rule), the ledger's entry points
	// at the target's summary.
	st, err := dst.LoadSettings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Privacy.RedactionRules; r[len(r)-1].Name != "ticket" {
		t.Errorf("settings not copied: %+v", r)
	}
	hist, _ := dst.SessionByClaudeID(t.Context(), "history-1")
	var ledgerSession, ledgerSummary int64
	modelstest.Row(t, dst, []any{&ledgerSession, &ledgerSummary}, `SELECT session_id, summary_id FROM token_ledger WHERE input_tokens = 100`)
	var sumSession int64
	modelstest.Row(t, dst, []any{&sumSession}, `SELECT session_id FROM summaries WHERE id = ?`, ledgerSummary)
	if ledgerSession != hist.ID || sumSession != hist.ID {
		t.Errorf("ledger entry: session %d summary %d (of session %d), want session %d", ledgerSession, ledgerSummary, sumSession, hist.ID)
	}
}

// TestMigrateKeepsTargetSettings: the target's own settings win, and the
// output says which were skipped.
func TestMigrateKeepsTargetSettings(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	srv := migrateSource(t)
	dst, err := models.OpenPostgres(url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	own := models.DefaultSettings()
	own.Injection.Sessions = 9
	if err := dst.Writer.Do(t.Context(), func(tx *models.Tx) error { return tx.WriteSettings(own) }); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	code, out, errOut := migrateCLI(t, srv.DataDir, "--to", url)
	if code != 0 || !strings.Contains(out, "skipped runtime: the target has its own") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	dst, err = models.OpenPostgres(url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if st, _ := dst.LoadSettings(t.Context()); st.Injection.Sessions != 9 {
		t.Errorf("the target's settings were overwritten: %+v", st.Injection)
	}
}

// TestMigrateErrors: a URL that is not PostgreSQL's, a server that does
// not answer (shown without its password), no source database.
func TestMigrateErrors(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.NewServerIn(t, dir)
	srv.Shutdown(5 * time.Second)
	port := freePort(t)
	for _, c := range []struct {
		name, dataDir string
		args          []string
		want          string
	}{
		{"mysql URL", dir, []string{"--to", "mysql://u:pw@localhost/db"}, "is not a PostgreSQL URL"},
		{"no --to", dir, nil, "--to is required"},
		{"unreachable", dir, []string{"--to", "postgres://u:hunter3@127.0.0.1:" + strconv.Itoa(port) + "/db?connect_timeout=3"}, "cannot open the target database: open postgres://u:xxxxx@127.0.0.1:" + strconv.Itoa(port)},
		{"no source", t.TempDir(), []string{"--to", "postgres://u@127.0.0.1/db"}, "no mneme database at"},
		{"--from missing", dir, []string{"--from", filepath.Join(dir, "nope.db"), "--to", "postgres://u@127.0.0.1/db"}, "no mneme database at " + filepath.Join(dir, "nope.db")},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := migrateCLI(t, c.dataDir, c.args...)
			t.Logf("exit %d: %s", code, errOut)
			if code == 0 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q, want %q (stdout %q)", code, errOut, c.want, out)
			}
			if strings.Contains(out+errOut, "hunter3") {
				t.Errorf("the password is shown: %s%s", out, errOut)
			}
		})
	}
}

// TestMigrateRate copies a source of small sessions and one big one
// (written in parts) and logs the rate (it fails on nothing slow); then it
// copies it again into a fresh database, interrupted after a moment, and
// runs again: the second run completes it. make test copies 7 sessions and
// 2,000 observations; make test-large (MNEME_TEST_LARGE=1) 16 and 10,000.
func TestMigrateRate(t *testing.T) {
	t.Parallel()
	small, each, big := 6, 200, 800
	if large() {
		small, each, big = 15, 500, 2500
	}
	total := small*each + big
	srv := testutil.NewServer(t)
	for i := range small {
		seedHistory(t, srv, fmt.Sprintf("bulk-%02d", i), each)
	}
	seedHistory(t, srv, "bulk-big", big)
	settle(t, srv)
	srv.Shutdown(5 * time.Second)
	from := filepath.Join(srv.DataDir, "mneme.db")

	url := pgtest.URL(t)
	var out bytes.Buffer
	start := time.Now()
	if err := runMigrate(t.Context(), from, url, &out, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	took := time.Since(start)
	t.Logf("%d observations: %s\n%s", total, took, out.String())
	t.Logf("MIGRATE RATE: %.0f observations/s (%d sessions, %s)", float64(total)/took.Seconds(), small+1, took.Round(time.Millisecond))
	if want := fmt.Sprintf("new: %d sessions, %d prompts, %d observations, %d summaries", small+1, 2*(small+1), total, 2*(small+1)); !strings.Contains(out.String(), want) {
		t.Errorf("first run:\n%s", out.String())
	}

	// Interrupted, then run again.
	url2 := pgtest.URL(t)
	ctx, cancel := context.WithTimeout(t.Context(), took/3)
	out.Reset()
	err := runMigrate(ctx, from, url2, &out, &out)
	cancel()
	t.Logf("interrupted run: %v\n%s", err, out.String())
	out.Reset()
	if err := runMigrate(t.Context(), from, url2, &out, &out); err != nil {
		t.Fatalf("re-run: %v\n%s", err, out.String())
	}
	t.Logf("re-run:\n%s", out.String())
	src, err := models.OpenReadOnly(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := models.OpenPostgres(url2, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if want, got := tableCounts(t, src), tableCounts(t, dst); !reflect.DeepEqual(want, got) {
		t.Errorf("after the interrupted run and a re-run:\n SQLite   %v\n Postgres %v", want, got)
	}
	if a, b := stored(sessionDetail(t, src, "bulk-big")), stored(sessionDetail(t, dst, "bulk-big")); a != b {
		t.Errorf("the session written in parts differs (%d and %d bytes)", len(a), len(b))
	}
}
