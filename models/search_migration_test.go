package models

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestMigrationPrefixIndex: a database made before the prefix indexes
// (schema 5) keeps every row findable after migrating, and the triggers
// made again keep the index in step with inserts, updates and deletes.
func TestMigrationPrefixIndex(t *testing.T) {
	t.Parallel()
	s := openOldStore(t, 5,
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (1, 's', 'p', ?)`,
		`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, created_at) VALUES (1, 1, 'p', 'Bash', 'bash', 'Ran the migration', '{}', 'schema upgraded', '[]', ?)`,
		`INSERT INTO prompts (id, session_id, project, number, text, created_at) VALUES (1, 1, 'p', 1, 'please migrate the schema', ?)`,
		`INSERT INTO summaries (id, session_id, project, kind, request, created_at) VALUES (1, 1, 'p', 'final', 'Migrate the schema', ?)`,
	)
	ctx, now := context.Background(), time.Now().UTC()
	search := func(q string) []string {
		t.Helper()
		hits, err := s.Search(ctx, SearchQuery{Q: q})
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Type[:1]+":"+itoa(h.ID))
		}
		sort.Strings(got)
		return got
	}
	for _, fts := range []string{"observations_fts", "prompts_fts", "summaries_fts"} {
		var def string
		if err := s.db.Raw(`SELECT sql FROM sqlite_master WHERE name = ?`, fts).Row().Scan(&def); err != nil || !strings.Contains(def, "prefix='2 3 4 5 6'") {
			t.Errorf("%s after migrating: %q, %v; want prefix indexes", fts, def, err)
		}
	}
	if got, want := search("migr*"), []string{"o:1", "p:1", "s:1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after migrating: migr* = %v, want %v", got, want)
	}
	for _, stmt := range []string{
		`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, created_at) VALUES (2, 1, 'p', 'Bash', 'bash', 'Ran the linter', '{}', 'lint clean', '[]', ?)`,
		`UPDATE observations SET title = 'Ran the formatter' WHERE id = 1`,
		`INSERT INTO prompts (id, session_id, project, number, text, created_at) VALUES (2, 1, 'p', 2, 'now lint it', ?)`,
		`DELETE FROM summaries WHERE id = 1`,
	} {
		args := []any{}
		if len(stmt) > 6 && stmt[:6] == "INSERT" {
			args = append(args, now)
		}
		if err := s.db.Exec(stmt, args...).Error; err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"lint*", []string{"o:2", "p:2"}},
		{"form*", []string{"o:1"}},
		{"migr*", []string{"p:1"}},
		{"schem*", []string{"o:1", "p:1"}},
	} {
		if got := search(tt.q); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("after writes: %s = %v, want %v", tt.q, got, tt.want)
		}
	}
	var problems string
	for _, fts := range []string{"observations_fts", "prompts_fts", "summaries_fts"} {
		if err := s.db.Exec(`INSERT INTO ` + fts + `(` + fts + `, rank) VALUES ('integrity-check', 1)`).Error; err != nil {
			problems += fts + ": " + err.Error() + "; "
		}
	}
	if problems != "" {
		t.Errorf("integrity-check: %s", problems)
	}
}
