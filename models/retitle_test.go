package models

import (
	"fmt"
	"testing"
	"time"
)

// Bash observations stored before titles said what happened get theirs
// from their command and output as stored, in batches; a second run
// changes nothing; interrupted, excluded and other tools' rows keep theirs.
func TestRetitleBash(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	now := time.Now().UTC()
	if err := s.db.Exec(`INSERT INTO sessions (id, claude_session_id, project, status, started_at) VALUES (1, 'old', 'p', 'active', ?)`, now).Error; err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		tool, kind, title, input, output, outcome string
		success                                   bool
		want                                      string
	}{
		{"Bash", KindFailure, "`go test ./...` failed: exit 1 — 2 tests failed", "go test ./...",
			"Exit code 1\n--- FAIL: TestParseHeader (0.00s)\n--- FAIL: TestTotals (0.00s)\nFAIL", "2 tests failed", false,
			"`go test ./...`: 2 failed: TestParseHeader, TestTotals (exit 1)"},
		{"Bash", KindBash, "Ran `curl -i localhost:8080/me`: exit 0", "curl -i localhost:8080/me",
			"HTTP/1.1 401 Unauthorized\nContent-Length: 0", "", true,
			"Ran `curl -i localhost:8080/me`: HTTP/1.1 401 Unauthorized"},
		{"Bash", KindTest, "Ran `go test ./...`: 3 packages ok", "go test ./...",
			"ok  \ta\t0.1s\nok  \tb\t0.1s\nok  \tc\t0.1s", "3 packages ok", true,
			"Ran `go test ./...`: 3 packages ok"},
		{"Bash", KindTest, "Ran `npm test`: interrupted", "npm test", "", "interrupted", true, "Ran `npm test`: interrupted"},
		{"Bash", KindFailure, "Bash interrupted", "sleep 100", "", "", false, "Bash interrupted"},
		{"Bash", KindExcluded, "Bash: excluded by privacy rule secret/**", "", "", "", true, "Bash: excluded by privacy rule secret/**"},
		{"Bash", KindBash, "Ran the migration", "make migrate", "schema upgraded", "", true, "Ran the migration"},
		{"Read", KindRead, "Read main.go (40 lines)", "/p/main.go", "package main", "", true, "Read main.go (40 lines)"},
	}
	for i, r := range rows {
		commandKind := ""
		if r.tool == "Bash" {
			commandKind = CommandShell
			if r.kind == KindTest || r.outcome != "" {
				commandKind = CommandTest
			}
		}
		if err := s.db.Exec(`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, success, command_kind, test_outcome, created_at)
			VALUES (?, 1, 'p', ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?)`, i+1, r.tool, r.kind, r.title, r.input, r.output, r.success, commandKind, r.outcome, now).Error; err != nil {
			t.Fatal(err)
		}
	}
	insertSteps(t, s, len(rows)) // more rows than a batch: every one is read
	want := map[int64]string{int64(len(rows) + retitleBatch + 10): fmt.Sprintf("`./step-%d`: step %d: error: disk full (exit 2)", retitleBatch+9, retitleBatch+9)}
	for i, r := range rows {
		want[int64(i+1)] = r.want
	}
	checkRederived(t, s, retitleBash, "title", want)
}

// A database of schema 19 gets the new titles as it upgrades.
func TestMigrationRetitlesBash(t *testing.T) {
	t.Parallel()
	_, title := oldTscFailure(t, 19, "title")
	if want := "`tsc`: src/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'. (exit 2)"; title != want {
		t.Errorf("title %q, want %q", title, want)
	}
}
