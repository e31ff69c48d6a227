package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// fixtureCLI is a worker fed the fixture session, and a way to run mneme
// subcommands in-process against it.
func fixtureCLI(t *testing.T) (*testutil.Server, func(args ...string) (int, string, string)) {
	t.Helper()
	srv := testutil.NewServer(t)
	for _, ev := range testutil.FixtureEvents(t) {
		srv.Hook(t, eventSlugOf(t, ev), ev)
	}
	port := strconv.Itoa(srv.Port)
	return srv, func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", port, "--data-dir", srv.DataDir}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
}

func TestShowSaysWhichIDsWereNotFound(t *testing.T) {
	t.Parallel()
	_, mneme := fixtureCLI(t)
	code, out, errOut := mneme("show", "2", "999", "prompt:888")
	if code != 1 {
		t.Errorf("show 2 999 prompt:888: exit %d, want 1", code)
	}
	if !strings.Contains(out, "#2 Created notes.md") {
		t.Errorf("show printed no #2:\n%s", out)
	}
	if !strings.Contains(errOut, "not found: #999, prompt:888") {
		t.Errorf("stderr does not name the missing ids: %q", errOut)
	}
	if code, _, errOut := mneme("show", "summary:x"); code != 2 || !strings.Contains(errOut, "prompt:3 or summary:4") {
		t.Errorf("show summary:x: exit %d, %q", code, errOut)
	}
}

// searchRef is the id at the start of a search hit's line.
var searchRef = regexp.MustCompile(`(?m)^(#\d+|prompt:\d+|summary:\d+) `)

// summaryRef is a summary's hit among them.
var summaryRef = regexp.MustCompile(`(?m)^summary:\d+ `)

func TestEverySearchIDOpensWithShow(t *testing.T) {
	t.Parallel()
	_, mneme := fixtureCLI(t)
	var out string
	// The summary of the fixture's turn is written in the background.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, out, _ = mneme("search", "notes", "--limit", "50")
		// The summary's hit may be the first line: match at any line's start.
		if summaryRef.MatchString(out) || time.Now().After(deadline) {
			break
		}
	}
	refs := map[string]bool{}
	for _, m := range searchRef.FindAllStringSubmatch(out, -1) {
		kind := "observation"
		if k, _, ok := strings.Cut(m[1], ":"); ok {
			kind = k
		}
		refs[kind] = true
		code, shown, errOut := mneme("show", m[1])
		if code != 0 || shown == "" {
			t.Errorf("search printed %s, but show %s: exit %d, %s", m[1], m[1], code, errOut)
		}
		if id := strings.TrimLeft(m[1], "#"); !strings.Contains(shown, id) {
			t.Errorf("show %s printed another row:\n%s", m[1], shown)
		}
	}
	for _, kind := range []string{"observation", "prompt", "summary"} {
		if !refs[kind] {
			t.Errorf("search printed no %s hit:\n%s", kind, out)
		}
	}
	if strings.Contains(out, "prompt #") || strings.Contains(out, "summary #") {
		t.Errorf("search still prints ids show cannot open:\n%s", out)
	}
	if code, shown, _ := mneme("show", "prompt:1"); code != 0 || !strings.Contains(shown, "write notes please") || strings.Contains(shown, "hunter2") {
		t.Errorf("show prompt:1: exit %d\n%s", code, shown)
	}
}

func TestExportUnknownSessionSaysWhat(t *testing.T) {
	t.Parallel()
	_, mneme := fixtureCLI(t)
	code, out, errOut := mneme("export", "--session", "999")
	if code == 0 || out != "" {
		t.Errorf("export --session 999: exit %d, stdout %q", code, out)
	}
	for _, want := range []string{`no session "999"`, "mneme open", "mneme search"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
}

func TestReadCommandsSayTheWorkerIsDown(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"search", "x"}, {"show", "3"}, {"export", "--session", "1"}, {"memories"}, {"memories", "accept", "3"}} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", strconv.Itoa(freePort(t)), "--data-dir", dir}, args...), strings.NewReader(""), &out, &errOut)
		msg := errOut.String()
		if code == 0 || !strings.Contains(msg, "the mneme worker is not running: start it with `mneme serve` (or `make run`") {
			t.Errorf("%v with no worker: exit %d, stderr %q", args, code, msg)
		}
		for _, internal := range []string{"dial unix", "http://mneme", "Get \"", "Post \""} {
			if strings.Contains(msg, internal) {
				t.Errorf("%v prints Go internals (%s): %q", args, internal, msg)
			}
		}
	}
}

func TestTailSaysWhatItFollows(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	done, stdout, stderr := runTail(t, "--port", strconv.Itoa(srv.Port), "--data-dir", srv.DataDir, "--project", "alpha", "--count", "1")
	waitSubscribed(t, srv, 1)
	if got := stderr.String(); !strings.Contains(got, "mneme tail: following prompts, tool calls, failures and summaries of project alpha from now on") ||
		!strings.Contains(got, "stopping after 1 event.") {
		t.Errorf("tail's first line: %q", got)
	}
	tailHook(t, srv, "user-prompt-submit", "ta", "alpha", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "hello", "prompt_id": "a1"})
	waitTail(t, done, stdout, stderr)
	if strings.Contains(stdout.String(), "following") {
		t.Errorf("the follow line went to stdout, which holds events only:\n%s", stdout)
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "session", "1 session"}, {0, "session", "0 sessions"}, {2, "summary", "2 summaries"},
		{1, "summary", "1 summary"}, {3, "tool call", "3 tool calls"}, {2, "ledger entry", "2 ledger entries"},
		{2, "key", "2 keys"}, {2, "pass", "2 passes"},
	} {
		if got := plural(c.n, c.noun); got != c.want {
			t.Errorf("plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

func TestStatusCountsInSingular(t *testing.T) {
	t.Parallel()
	_, mneme := fixtureCLI(t)
	_, out, _ := mneme("status")
	if !strings.Contains(out, "1 session, 1 prompt, ") || strings.Contains(out, "1 sessions") {
		t.Errorf("status:\n%s", out)
	}
	if !strings.Contains(out, "version test (commit 0123456789ab), pid ") {
		t.Errorf("status does not give the worker's version and commit:\n%s", out)
	}
}
