package app_test

import (
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// Bash calls stored by an older mneme (the migration marks them '?') get
// their command kind and test outcome at the worker's first start, read
// once from their command and title; nothing reads titles afterwards.
func TestStartClassifiesOlderCommands(t *testing.T) {
	dir := t.TempDir()
	store := testutil.OpenStore(t, dir)
	now := time.Now().UTC()
	rows := []struct {
		kind, input, title string
		success            bool
	}{
		{models.KindTest, "go test ./...", "Ran `go test ./...`: 3 packages ok", true},
		{models.KindFailure, "pytest -q", "`pytest -q` failed: exit 1 — 2 failed, 5 passed", false},
		{models.KindTest, "npm test", "Ran `npm test`: interrupted", true},
		{models.KindBash, "ls -la", "Ran `ls -la`: exit 0", true},
	}
	modelstest.Exec(t, store, `INSERT INTO sessions (id, claude_session_id, project, status, started_at) VALUES (1, 'old', 'p', 'active', ?)`, now)
	for _, r := range rows {
		// The '?' is bound: GORM's PostgreSQL dialect takes a ? in a
		// string literal for a placeholder too.
		modelstest.Exec(t, store, `INSERT INTO observations (session_id, project, tool_name, kind, title, input, success, command_kind, created_at)
			VALUES (1, 'p', 'Bash', ?, ?, ?, ?, ?, ?)`, r.kind, r.title, r.input, r.success, "?", now)
	}
	store.Close()

	srv := testutil.NewServerIn(t, dir)
	var got []struct{ CommandKind, TestOutcome string }
	modelstest.Scan(t, srv.Store, &got, `SELECT command_kind, test_outcome FROM observations ORDER BY id`)
	want := []struct{ CommandKind, TestOutcome string }{
		{models.CommandTest, "3 packages ok"}, {models.CommandTest, "2 failed, 5 passed"},
		{models.CommandTest, "interrupted"}, {models.CommandShell, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d (%s): %+v, want %+v", i, rows[i].title, got[i], want[i])
		}
	}
}
