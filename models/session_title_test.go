package models

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTitleFrom(t *testing.T) {
	t.Parallel()
	long := "Refactor the payment retry loop so that it backs off exponentially and gives up after five attempts, logging each one"
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"  \n\t\n", ""},
		{"Fix the login bug", "Fix the login bug"},
		{"\n\n  ## Fix   the\tlogin bug  \nmore detail here", "Fix the login bug"},
		{"- make it fast", "make it fast"},
		{"Make Migrate idempotent and add a regression test. The store tests fail when migrations run twice in a row.", "Make Migrate idempotent and add a regression test"},
		{long, "Refactor the payment retry loop so that it backs off exponentially and gives up…"},
		{strings.Repeat("x", 200), strings.Repeat("x", 80) + "…"},
	} {
		t.Run(c.in, func(t *testing.T) {
			got := titleFrom(c.in)
			if got != c.want {
				t.Errorf("titleFrom(%q) = %q, want %q", c.in, got, c.want)
			}
			if n := utf8.RuneCountInString(got); n > autoTitleLen+1 {
				t.Errorf("titleFrom(%q) has %d characters", c.in, n)
			}
			if titleFrom(got) != got {
				t.Errorf("titleFrom is not stable on %q", got)
			}
		})
	}
}

// titleOf reads a session's title and whether the user set it.
func titleOf(t *testing.T, s *Store, id int64) (string, bool) {
	t.Helper()
	sess, err := s.SessionByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sess.Title, sess.TitleEdited
}

// A session is named by its first prompt with text (a private one does
// not name it), then by its summaries' request; a title the user typed
// outlives every later summary, and clearing it brings the automatic one
// back; forgetting the prompt that named the session renames it.
func TestSessionTitleLifecycle(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	id := testSession(t, s, "titled")
	do := func(f func(tx *Tx) error) {
		t.Helper()
		if err := s.Writer.Do(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if title, _ := titleOf(t, s, id); title != "" {
		t.Fatalf("a session without prompts is titled %q", title)
	}
	now := time.Now().UTC()
	do(func(tx *Tx) error {
		_, err := tx.RecordPrompt(id, "alpha", "p1", "secret plans", true, now)
		return err
	})
	if title, _ := titleOf(t, s, id); title != "" {
		t.Fatalf("a private prompt named the session %q", title)
	}
	var second PromptResult
	do(func(tx *Tx) error {
		var err error
		second, err = tx.RecordPrompt(id, "alpha", "p2", "\n  Fix the flaky login test\nIt fails one run in ten.", false, now)
		return err
	})
	do(func(tx *Tx) error {
		_, err := tx.RecordPrompt(id, "alpha", "p3", "now the signup test", false, now)
		return err
	})
	if title, edited := titleOf(t, s, id); title != "Fix the flaky login test" || edited {
		t.Fatalf("after the prompts: %q (edited %v)", title, edited)
	}
	sum := func(kind string, number int, request string) {
		t.Helper()
		do(func(tx *Tx) error {
			return tx.InsertSummary(&Summary{SessionID: id, Project: "alpha", Kind: kind, PromptNumber: number, Request: request, CreatedAt: now})
		})
	}
	sum(SummaryTurn, 3, "Make the signup test pass")
	if title, _ := titleOf(t, s, id); title != "Fix the flaky login test" {
		t.Fatalf("a later turn's summary renamed the session: %q", title)
	}
	sum(SummaryTurn, 2, "Stabilise the login test")
	if title, _ := titleOf(t, s, id); title != "Stabilise the login test" {
		t.Fatalf("the first turn's summary did not name the session: %q", title)
	}
	sum(SummaryFinal, 0, "Stabilise the login and signup tests")
	if title, _ := titleOf(t, s, id); title != "Stabilise the login and signup tests" {
		t.Fatalf("the session summary did not name the session: %q", title)
	}

	do(func(tx *Tx) error { return tx.SetSessionTitle(id, "  Login   tests,\tfinally ") })
	if title, edited := titleOf(t, s, id); title != "Login tests, finally" || !edited {
		t.Fatalf("after the edit: %q (edited %v)", title, edited)
	}
	sum(SummaryFinal, 0, "Something automatic")
	if title, _ := titleOf(t, s, id); title != "Login tests, finally" {
		t.Fatalf("a summary replaced the user's title: %q", title)
	}
	err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.SetSessionTitle(id, strings.Repeat("é", TitleMax+1)) })
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("a title of %d characters: %v, want ErrInvalid", TitleMax+1, err)
	}
	if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.SetSessionTitle(999999, "x") }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("titling a missing session: %v", err)
	}
	do(func(tx *Tx) error { return tx.SetSessionTitle(id, "  ") })
	if title, edited := titleOf(t, s, id); title != "Something automatic" || edited {
		t.Fatalf("after clearing the title: %q (edited %v)", title, edited)
	}

	// Forgetting the first prompt (and, without a rebuilder, the session
	// summaries that quote it) leaves the next prompt to name it.
	do(func(tx *Tx) error { _, err := tx.ForgetPrompt(second.PromptID, nil); return err })
	if title, _ := titleOf(t, s, id); title != "Make the signup test pass" {
		t.Fatalf("after forgetting the prompt that named it: %q", title)
	}
	titles, err := s.SessionTitles(ctx, []int64{id, 999999})
	if err != nil || len(titles) != 1 || titles[id] != "Make the signup test pass" {
		t.Fatalf("SessionTitles: %v, %v", titles, err)
	}
}

// A database from before titles gets them in the migration: from the
// session summary, else the first turn's summary, else the first prompt.
func TestMigrationBackfillsTitles(t *testing.T) {
	t.Parallel()
	s := openOldStore(t, 13,
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (1, 'a', 'p', ?)`,
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (2, 'b', 'p', ?)`,
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (3, 'c', 'p', ?)`,
		`INSERT INTO sessions (id, claude_session_id, project, started_at) VALUES (4, 'd', 'p', ?)`,
		`INSERT INTO prompts (session_id, project, number, text, created_at) VALUES (1, 'p', 1, '

  Add dark mode to the settings page
and more', ?)`,
		`INSERT INTO prompts (session_id, project, number, text, created_at) VALUES (2, 'p', 1, 'first prompt of b', ?)`,
		`INSERT INTO summaries (session_id, project, kind, prompt_number, request, created_at) VALUES (2, 'p', 'turn', 1, 'Speed up the importer', ?)`,
		`INSERT INTO prompts (session_id, project, number, text, created_at) VALUES (3, 'p', 1, 'first prompt of c', ?)`,
		`INSERT INTO summaries (session_id, project, kind, prompt_number, request, created_at) VALUES (3, 'p', 'final', 0, 'Ship the 2.0 release', ?)`,
	)
	want := map[int64]string{1: "Add dark mode to the settings page", 2: "Speed up the importer", 3: "Ship the 2.0 release", 4: ""}
	for id, w := range want {
		if got, edited := titleOf(t, s, id); got != w || edited {
			t.Errorf("session %d: title %q (edited %v), want %q", id, got, edited, w)
		}
	}
}
