package models

import (
	"context"
	"fmt"
	"testing"
)

// File states go in with one statement for any number of observations
// and files, keyed by session and tool_use_id; a replay keeps the first;
// deleting the observation deletes its states.
func TestFileStates(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	sess := testSession(t, s, "fs")
	var ids []int64
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		for _, tu := range []string{"a", "b"} {
			o := Observation{SessionID: sess, Project: "alpha", ToolUseID: strp(tu), ToolName: "Edit", Kind: KindFileChange, Files: []string{"/p/" + tu}}
			if _, err := tx.InsertObservation(&o); err != nil {
				return err
			}
			ids = append(ids, o.ID)
		}
		return flushFileStates(tx.db, []queuedFileStates{
			{SessionID: sess, ToolUseID: "a", States: []FileState{{Path: "/p/a", Kind: "sha256", SHA256: "aa", Size: 1, MtimeNS: 2}}},
			{SessionID: sess, ToolUseID: "b", States: []FileState{{Path: "/p/b", Kind: "missing"}, {Path: "/p/c", Kind: "stat", Size: 5 << 20, MtimeNS: 9}}},
			{SessionID: sess, ToolUseID: "", States: []FileState{{Path: "/p/none", Kind: "missing"}}},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	// A replay of a's state, and one single-file insert.
	err = s.Writer.Do(ctx, func(tx *Tx) error {
		if err := tx.RecordFileStates(sess, "a", []FileState{{Path: "/p/a", Kind: "sha256", SHA256: "replayed", Size: 7}}); err != nil {
			return err
		}
		return tx.RecordFileStates(sess, "b", []FileState{{Path: "/p/d", Kind: "missing"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.FileStatesOf(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if a := got[ids[0]]; len(a) != 1 || a[0] != (FileState{Path: "/p/a", Kind: "sha256", SHA256: "aa", Size: 1, MtimeNS: 2}) {
		t.Errorf("a: %+v", a)
	}
	if b := got[ids[1]]; len(b) != 3 || b[0].Path != "/p/b" || b[1].Size != 5<<20 || b[2].Path != "/p/d" {
		t.Errorf("b: %+v", b)
	}
	mems, err := s.FileMemories(ctx, "alpha", "/p/c", 0, 10)
	if err != nil || len(mems) != 1 || mems[0].ID != ids[1] || mems[0].State.Kind != "stat" {
		t.Errorf("memories of /p/c: %+v %v", mems, err)
	}
	if err := s.db.Exec(`DELETE FROM observations WHERE id = ?`, ids[1]).Error; err != nil {
		t.Fatal(err)
	}
	var left int
	s.db.Raw(`SELECT count(*) FROM file_states`).Row().Scan(&left)
	if left != 1 {
		t.Errorf("%d states left after deleting b, want a's only", left)
	}
}

// Upgrading a database from before file states gives its observations'
// files 'unknown' states, so the file gate finds them (and claims nothing
// about their staleness); excluded stubs and calls without a tool_use_id
// get none.
func TestMigrationFileStates(t *testing.T) {
	t.Parallel()
	s := openOldStore(t, 9, // before migration 10, file_states
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (1, 's', 'p', ?)`,
		`INSERT INTO observations (session_id, project, tool_use_id, tool_name, kind, title, files, created_at) VALUES (1, 'p', 't1', 'Edit', 'file_change', 'Edited a.go', '["/p/a.go","/p/b.go"]', ?)`,
		`INSERT INTO observations (session_id, project, tool_use_id, tool_name, kind, title, files, excluded_by, created_at) VALUES (1, 'p', 't2', 'Read', 'excluded', 'x', '[]', '*.env', ?)`,
		`INSERT INTO observations (session_id, project, tool_use_id, tool_name, kind, title, files, created_at) VALUES (1, 'p', NULL, 'Edit', 'file_change', 'Edited c.go', '["/p/c.go"]', ?)`,
	)
	var got []FileState
	s.db.Raw(`SELECT path, kind, sha256, size, mtime_ns FROM file_states ORDER BY path`).Scan(&got)
	if len(got) != 2 || got[0].Path != "/p/a.go" || got[1].Path != "/p/b.go" || got[0].Kind != "unknown" {
		t.Errorf("after the upgrade: %+v", got)
	}
}

// States queued in one writer transaction go in after its observations,
// across several statements, each once.
func TestFileStatesBatched(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	sess := testSession(t, s, "fsb")
	const n = 5*rowsPerStatement + 3
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		for i := range n {
			tu := fmt.Sprintf("toolu_%d", i)
			o := Observation{SessionID: sess, Project: "alpha", ToolUseID: &tu, ToolName: "Edit", Kind: KindFileChange, Files: []string{fmt.Sprintf("/p/%d", i)}}
			if err := tx.QueueObservation(&o, func(*Observation) any { return nil }); err != nil {
				return err
			}
			if err := tx.RecordFileStates(sess, tu, []FileState{{Path: o.Files[0], Kind: "missing"}}); err != nil {
				return err
			}
		}
		// A replayed state of the first is ignored.
		return tx.RecordFileStates(sess, "toolu_0", []FileState{{Path: "/p/0", Kind: "sha256", SHA256: "late"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows, late int64
	s.db.Raw(`SELECT COUNT(*) FROM file_states WHERE session_id = ?`, sess).Scan(&rows)
	s.db.Raw(`SELECT COUNT(*) FROM file_states WHERE sha256 = 'late'`).Scan(&late)
	if rows != n || late != 0 {
		t.Fatalf("%d states stored (want %d), %d replays kept", rows, n, late)
	}
}
