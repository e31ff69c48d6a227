package models

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// FuzzSearch sends arbitrary query strings through Search
// against a real database: every query either runs or is refused with a
// *QueryError (a clear message, HTTP 400), never a raw SQLite error.
func FuzzSearch(f *testing.F) {
	fuzzSearch(f, openTestStore(f))
}

// FuzzSearchPostgres is FuzzSearch on PostgreSQL: no query the tsquery
// translation lets through may make to_tsquery fail (a 500).
func FuzzSearchPostgres(f *testing.F) {
	pgtest.PostgresOnly(f)
	store, err := OpenURL(pgtest.URL(f), f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	fuzzSearch(f, store)
}

func fuzzSearch(f *testing.F, store *Store) {
	for _, q := range []string{
		"migration", "go test", `"unclosed`, "a AND", "NOT", "title:foo", "nosuchcol:foo", "*x", "migr*",
		"NEAR(a b, 3)", "(a OR b) NOT c", "foo_test.go", "-flag", "^start", `""""`, "a:b:c", "\x00", "é*",
		"src/app.ts http://x", "{title input}: x", "AND OR NOT", "((((((((a))))))))",
		"the NOT migration", "title:(go OR test*) NOT output:ok", `"it's a \\ test"*`, "a OR (the)", "text:fix", "learned:x",
		"NEAR", "a + b", "x ,", "title:(a files:b)", "ﬁx", "日本語 テスト", "'quoted' & !bang | <-> :*",
	} {
		f.Add(q)
	}
	ctx := context.Background()
	err := store.Writer.Do(ctx, func(tx *Tx) error {
		ref, err := tx.EnsureSession(&Session{ClaudeSessionID: "fuzz", Project: "p", StartedAt: time.Now()})
		if err != nil {
			return err
		}
		if _, err := tx.RecordPrompt(ref.ID, "p", "p1", "fix the migration test", false, time.Now()); err != nil {
			return err
		}
		id := "toolu_fuzz"
		_, err = tx.InsertObservation(&Observation{SessionID: ref.ID, Project: "p", ToolUseID: &id, ToolName: "Bash", Kind: KindTest, Title: "Ran go test ./...", Output: "ok foo_test.go"})
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		_, err := store.Search(ctx, SearchQuery{Q: q, Limit: 5})
		if err == nil {
			return
		}
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Fatalf("query %q: %T %v, want *QueryError", q, err, err)
		}
		if qe.Msg == "" {
			t.Fatalf("query %q: empty message", q)
		}
	})
}
