package models

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/failsig"
)

// Failures stored before signatures get theirs from what they hold, in
// batches; a second run changes nothing; successes and excluded stubs
// get none. On both backends.
func TestBackfillSignatures(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	now := time.Now().UTC()
	if err := s.db.Exec(`INSERT INTO sessions (id, claude_session_id, project, status, started_at) VALUES (1, 'old', 'p', 'active', ?)`, now).Error; err != nil {
		t.Fatal(err)
	}
	goFail := "Exit code 1\n--- FAIL: TestLoad (0.03s)\n    load_test.go:9: open /tmp/TestLoad1/001/x: no such file\nFAIL"
	rows := []struct {
		tool, input, output, excluded string
		success                       bool
		want                          string
	}{
		{"Bash", "go test ./load", goFail, "", false, "Bash | go test | TestLoad | -"},
		{"Edit", "/p/main.go", "<tool_use_error>String to replace not found in file.</tool_use_error>", "", false, "Edit | - | - | String to replace not found in file."},
		{"Bash", "go test ./load", "ok  \tload\t0.1s", "", true, ""},
		{"Bash", "", "", "secret/**", false, ""},
	}
	// Raw inserts, as an older mneme stored them: no signature.
	for i, r := range rows {
		if err := s.db.Exec(`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, success, excluded_by, created_at)
			VALUES (?, 1, 'p', ?, 'failure', 't', ?, ?, '[]', ?, ?, ?)`, i+1, r.tool, r.input, r.output, r.success, r.excluded, now).Error; err != nil {
			t.Fatal(err)
		}
	}
	insertSteps(t, s, len(rows)) // more rows than a batch: every one is read
	last := int64(len(rows) + retitleBatch + 10)
	want := map[int64]string{last: "Bash | ./step-N | - | step N: error: disk full"}
	for i, r := range rows {
		want[int64(i+1)] = r.want
	}
	first := checkRederived(t, s, backfillSignatures, "signature", want)
	if first[last] != first[last-1] {
		t.Errorf("two steps' failures, two signatures: %q, %q", first[last-1], first[last])
	}
	// The index answers the lookup "seen before" makes.
	got, err := s.EarlierFailures(ctx, "p", first[1], 0, 0, 5)
	if err != nil || len(got) != 1 || got[0].ID != 1 {
		t.Fatalf("EarlierFailures: %v %+v", err, got)
	}
}

// A database of schema 20 gets the column, the index and the failures'
// signatures as it upgrades; what is stored afterwards gets its own at
// insert.
func TestMigrationSignatures(t *testing.T) {
	t.Parallel()
	s, sig := oldTscFailure(t, 20, "signature")
	if want := "Bash | tsc | TS2322 | src/a.ts(N,N): error TS2322: Type 'string' is not assignable to type 'number'."; sig != want {
		t.Errorf("signature %q, want %q", sig, want)
	}
	var plan []struct{ Detail string }
	if err := s.db.Raw(`EXPLAIN QUERY PLAN SELECT id FROM observations WHERE project = 'p' AND signature = 'x' AND signature <> '' ORDER BY id DESC LIMIT 5`).Scan(&plan).Error; err != nil {
		t.Fatal(err)
	}
	if len(plan) == 0 || !strings.Contains(plan[0].Detail, "observations_signature") {
		t.Errorf("the lookup does not use the index: %+v", plan)
	}
	o := Observation{SessionID: 1, Project: "p", ToolName: "Bash", Kind: KindFailure, Title: "x", Input: "tsc", Output: "Exit code 2\nsrc/b.ts(1,1): error TS2322: Type 'string' is not assignable to type 'number'."}
	if err := s.Writer.Do(context.Background(), func(tx *Tx) error { _, err := tx.InsertObservation(&o); return err }); err != nil {
		t.Fatal(err)
	}
	if want := failsig.Key("Bash", o.Input, o.Output); o.Signature != want || want == "" {
		t.Errorf("inserted with signature %q, want %q", o.Signature, want)
	}
}

// A restored failure's signature is derived from the row as restored,
// never taken from the file it came from.
func TestRestoreDerivesSignatures(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	tu := "toolu_1"
	o := Observation{ToolUseID: &tu, ToolName: "Bash", Kind: KindFailure, Title: "x", Input: "go test ./load",
		Output: "Exit code 1\n--- FAIL: TestLoad (0.1s)\nFAIL", Signature: "crafted: not this", CreatedAt: at}
	err := s.Writer.Do(t.Context(), func(tx *Tx) error {
		_, err := tx.Restore(&RestoreRows{Session: Session{ClaudeSessionID: "r1", Project: "p", StartedAt: at}, Observations: []Observation{o}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range observationColumn(t, s, "signature") {
		if want := "Bash | go test | TestLoad | -"; sig != want {
			t.Errorf("restored with signature %q, want %q", sig, want)
		}
	}
}
