package models

import (
	"context"
	"database/sql"
	"regexp"
	"strings"

	"github.com/mneme-dev/mneme/internal/outcome"
)

// retitleBatch bounds how many rows a title migration holds at once.
const retitleBatch = 500

// retitleBash derives again the title of every Bash observation stored
// before titles said what happened (a migration follow-up, issue #35):
// "`go test ./...`: 2 failed: TestA, TestB (exit 1)" for "`go test ./...`
// failed: exit 1 — 2 tests failed", from the command and output as
// stored (already redacted). It reads and writes a batch of rows at a
// time, by id, and changes only the titles that differ, so a second run
// changes nothing. Interrupted calls and excluded ones keep theirs.
func retitleBash(ctx context.Context, tx *sql.Tx, postgres bool) error {
	return rederive(ctx, tx, postgres, "title", `SELECT id, kind, title, input, output, success, command_kind, test_outcome FROM observations
		WHERE tool_name = 'Bash' AND id > ? ORDER BY id LIMIT ?`, func(rows *sql.Rows) (int64, string, string, error) {
		var o Observation
		err := rows.Scan(&o.ID, &o.Kind, &o.Title, &o.Input, &o.Output, &o.Success, &o.CommandKind, &o.TestOutcome)
		title := storedBashTitle(o)
		if title == "" {
			title = o.Title
		}
		return o.ID, o.Title, title, err
	})
}

// rederive derives column col of observations again for the rows sel
// reads (its parameters: after which id, how many), a batch at a time by
// id; derive scans one row and says its id, its value and the value it
// should have. Only the values that differ are written, so a second run
// changes nothing.
func rederive(ctx context.Context, tx *sql.Tx, postgres bool, col, sel string, derive func(*sql.Rows) (id int64, was, want string, err error)) error {
	update := `UPDATE observations SET ` + col + ` = ? WHERE id = ?`
	if postgres {
		sel = strings.NewReplacer("id > ?", "id > $1", "LIMIT ?", "LIMIT $2").Replace(sel)
		update = `UPDATE observations SET ` + col + ` = $1 WHERE id = $2`
	}
	type change struct {
		id    int64
		value string
	}
	var last int64
	for {
		rows, err := tx.QueryContext(ctx, sel, last, retitleBatch)
		if err != nil {
			return err
		}
		var changes []change
		n := 0
		for rows.Next() {
			id, was, want, err := derive(rows)
			if err != nil {
				rows.Close()
				return err
			}
			n, last = n+1, id
			if want != was {
				changes = append(changes, change{id, want})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range changes {
			if _, err := tx.ExecContext(ctx, update, c.value, c.id); err != nil {
				return err
			}
		}
		if n < retitleBatch {
			return nil
		}
	}
}

// madeTitleRe matches the Bash titles mneme made: "Ran `cmd`: …" and
// "`cmd` failed…".
var madeTitleRe = regexp.MustCompile("^(Ran )?`")

// storedBashTitle is the title of a stored Bash observation by what it
// holds, or "" when it keeps the one it has.
func storedBashTitle(o Observation) string {
	switch {
	case o.Kind == KindExcluded, strings.HasSuffix(o.Title, ": interrupted"), strings.TrimSpace(o.Input) == "":
		return ""
	case !madeTitleRe.MatchString(o.Title):
		return "" // not a title mneme made (a compatibility route's, say)
	}
	isTest := o.Kind == KindTest || o.CommandKind == CommandTest
	return outcome.BashTitle(o.Input, o.Output, o.Success, isTest, o.TestOutcome)
}
