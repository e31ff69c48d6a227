package models

import (
	"context"
	"testing"
)

// A database of schema 6 (before the command fields and the index queue)
// upgrades with its rows intact: Bash calls are marked for classification,
// a Write whose title said "Created" made its file, the rows stay in the
// search index with nothing queued, and the index passes its integrity
// check.
func TestMigrationCommandFieldsAndQueue(t *testing.T) {
	t.Parallel()
	s := openOldStore(t, 6,
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (1, 's', 'p', ?)`,
		`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, created_at) VALUES (1, 1, 'p', 'Bash', 'test', 'Ran `+"`go test`"+`: 3 packages ok', 'go test ./...', 'ok', '[]', ?)`,
		`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, created_at) VALUES (2, 1, 'p', 'Write', 'file_change', 'Created oldfile.go (3 lines)', '/p/oldfile.go', 'package p', '["/p/oldfile.go"]', ?)`,
		`INSERT INTO observations (id, session_id, project, tool_name, kind, title, input, output, files, created_at) VALUES (3, 1, 'p', 'Write', 'file_change', 'Wrote oldfile.go (4 lines)', '/p/oldfile.go', 'package p', '["/p/oldfile.go"]', ?)`,
	)
	ctx := context.Background()
	var rows []struct {
		ID          int64
		CommandKind string
		FileCreated bool
	}
	s.db.Raw(`SELECT id, command_kind, file_created FROM observations ORDER BY id`).Scan(&rows)
	if len(rows) != 3 || rows[0].CommandKind != CommandUnclassified || rows[1].CommandKind != "" || !rows[1].FileCreated || rows[2].FileCreated {
		t.Errorf("after the upgrade: %+v", rows)
	}
	if n, _ := s.pendingIndex(ctx); n != 0 {
		t.Errorf("%d rows queued: the rows indexed before stay indexed", n)
	}
	hits, err := s.Search(ctx, SearchQuery{Q: "oldfile", Limit: 10})
	if err != nil || len(hits) != 2 {
		t.Errorf("search after the upgrade: %d hits, %v", len(hits), err)
	}
	if err := s.db.Exec(`INSERT INTO observations_fts(observations_fts) VALUES ('integrity-check')`).Error; err != nil {
		t.Errorf("integrity check: %v", err)
	}
}
