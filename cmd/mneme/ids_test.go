package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestOneIDScheme: every id the CLI prints is taken back as printed:
// `mneme sessions` prints s1 and `mneme show s1` shows it; `mneme search
// --type memory` prints m1 and `mneme show m1` shows it; a tool call's
// #id works as 12 and '#12'. The memory commands pin, edit, retire,
// reinstate and forget one by its id. Exit codes follow the table: 1 for
// nothing found, 2 for a bad command line, 3 for a worker that is down.
func TestOneIDScheme(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	var mem models.Memory
	err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		mem = models.Memory{Project: "notes-app", SessionID: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Keep the notes in one markdown file"}
		_, err := tx.InsertMemory(&mem)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(srv.Port)
	mneme := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", port, "--data-dir", srv.DataDir}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	m := fmt.Sprintf("m%d", mem.ID)

	code, out, errOut := mneme("sessions")
	if code != 0 || !strings.Contains(out, "s1 ") || !strings.Contains(out, "write notes please") || !strings.Contains(out, "notes-app · 1 prompt · 4 tool calls") {
		t.Fatalf("sessions: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mneme("show", "s1", m, "'#2'", "#2", "2")
	if code != 0 || !strings.Contains(out, "s1 write notes please") || !strings.Contains(out, m+" ") || !strings.Contains(out, "Keep the notes in one markdown file") ||
		strings.Count(out, "#2 ") != 1 {
		t.Errorf("show s1 %s #2: exit %d\n%s%s", m, code, out, errOut)
	}
	code, out, _ = mneme("search", "markdown", "--type", "memory")
	if code != 0 || !strings.Contains(out, m+" ") || !strings.Contains(out, "mneme show m<id>") {
		t.Errorf("search --type memory: exit %d\n%s", code, out)
	}
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"memories", "pin", m}, "Pinned " + m + " (decision of notes-app, Claude, now current, pinned)"},
		{[]string{"memories", "edit", m, "Keep", "the", "notes", "in", "notes.md"}, "Edited " + m},
		{[]string{"memories", "retire", m}, "now retired"},
		{[]string{"memories", "reinstate", m}, "now current"},
		{[]string{"memories", "unpin", m}, "Unpinned " + m},
	} {
		if code, out, errOut := mneme(step.args...); code != 0 || !strings.Contains(out, step.want) {
			t.Errorf("%v: exit %d, %q %q; want %q", step.args, code, out, errOut, step.want)
		}
	}
	if _, out, _ = mneme("show", m); !strings.Contains(out, "Keep the notes in notes.md") {
		t.Errorf("the edit did not hold:\n%s", out)
	}
	if code, out, errOut = mneme("memories", "forget", m, "--yes"); code != 0 {
		t.Errorf("memories forget: exit %d\n%s%s", code, out, errOut)
	}

	// Exit codes.
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"show", m}, exitNotFound, "not found: " + m},
		{[]string{"show", "s999"}, exitNotFound, "not found: s999"},
		{[]string{"search", "zzzznothing"}, exitNotFound, ""},
		{[]string{"show", "abc"}, exitUsage, "is not an id"},
		{[]string{"show"}, exitUsage, "requires at least 1 arg"},
		{[]string{"search", "--limit", "abc", "x"}, exitUsage, `invalid argument "abc" for "--limit" flag: give a whole number`},
		{[]string{"sessions", "--nope"}, exitUsage, "unknown flag"},
		{[]string{"nope"}, exitUsage, "unknown command"},
		{[]string{"memories", "--kind", "bogus"}, exitUsage, "kind"},
		{[]string{"memories", "pin", "#12"}, exitUsage, "is not a memory's id"},
	} {
		code, out, errOut := mneme(c.args...)
		if code != c.code || !strings.Contains(errOut+out, c.says) {
			t.Errorf("%v: exit %d, want %d; %q %q", c.args, code, c.code, out, errOut)
		}
		if strings.Contains(errOut, "strconv.") {
			t.Errorf("%v says Go's words: %q", c.args, errOut)
		}
	}
	if err := srv.Shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := mneme("sessions"); code != exitWorker || !strings.Contains(errOut, "not running") {
		t.Errorf("sessions with the worker down: exit %d %q", code, errOut)
	}
}
