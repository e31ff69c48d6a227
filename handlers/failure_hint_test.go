package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// hookAnswer is what a hook printed: its event and additional context.
type hookAnswer struct {
	Continue           *bool `json:"continue"`
	HookSpecificOutput *struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func readAnswer(t *testing.T, body []byte) hookAnswer {
	t.Helper()
	var a hookAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return a
}

// hint is the additional context of an answer, "" for the neutral one.
func (a hookAnswer) hint() string {
	if a.HookSpecificOutput == nil {
		return ""
	}
	return a.HookSpecificOutput.AdditionalContext
}

const hintCwd = "/home/dev/projects/hinted"

// goTestFailure is the error Claude Code reports for a failing go test
// run of test, with this run's duration and temporary directory.
func goTestFailure(test, dur, tmp string) string {
	return fmt.Sprintf("Exit code 1\n--- FAIL: %s (%s)\n    config_test.go:31: open %s/config.json: no such file or directory\nFAIL\nFAIL\tgithub.com/acme/app/load\t%s\nFAIL", test, dur, tmp, dur)
}

type hintSession struct {
	t   *testing.T
	srv *testutil.Server
	id  string
	n   int
}

func newHintSession(t *testing.T, srv *testutil.Server, id string) *hintSession {
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": id, "cwd": hintCwd, "prompt_id": "p1", "prompt": "make the loader tests pass"})
	return &hintSession{t: t, srv: srv, id: id}
}

func (s *hintSession) fail(cmd, errText string) hookAnswer {
	s.n++
	return readAnswer(s.t, s.srv.Hook(s.t, "post-tool-use-failure", map[string]any{"session_id": s.id, "cwd": hintCwd, "prompt_id": "p1",
		"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": fmt.Sprintf("%s-%d", s.id, s.n),
		"tool_input": map[string]any{"command": cmd}, "error": errText, "is_interrupt": false}))
}

func (s *hintSession) ok(tool string, input, response map[string]any) hookAnswer {
	s.n++
	return readAnswer(s.t, s.srv.Hook(s.t, "post-tool-use", map[string]any{"session_id": s.id, "cwd": hintCwd, "prompt_id": "p1",
		"hook_event_name": "PostToolUse", "tool_name": tool, "tool_use_id": fmt.Sprintf("%s-%d", s.id, s.n),
		"tool_input": input, "tool_response": response}))
}

// observationID is the id of the observation of session s with tool_use_id n.
func (s *hintSession) observationID(n int) int64 {
	var id int64
	modelstest.Row(s.t, s.srv.Store, []any{&id}, `SELECT o.id FROM observations o JOIN sessions s ON s.id = o.session_id
		WHERE s.claude_session_id = ? AND o.tool_use_id = ?`, s.id, fmt.Sprintf("%s-%d", s.id, n))
	return id
}

// A failure fixed in one session and seen again in a later one is
// answered at once (PostToolUseFailure's additionalContext) with when it
// was seen, the call that fixed it, the file changed and the root cause
// remembered; a first-time failure gets nothing, the same hint is not
// given twice in a session, and the hint is built from stored text only:
// a secret in the earlier failure stays redacted. On both backends.
func TestFailureSeenBefore(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const secret = "ghp_" + "R2d2C3poR2d2C3poR2d2C3poR2d2C3poR2d2"

	// The first session: the test fails, a file is changed, it passes.
	a := newHintSession(t, srv, "hint-a")
	first := a.fail("go test ./load/...", goTestFailure("TestLoadConfig", "0.03s", "/tmp/TestLoadConfig2718/001")+"\n"+"token "+secret)
	if got := first.hint(); got != "" {
		t.Fatalf("a failure never seen before got a hint: %q", got)
	}
	a.ok("Edit", map[string]any{"file_path": hintCwd + "/load/config.go", "old_string": "cwd", "new_string": "root"},
		map[string]any{"filePath": hintCwd + "/load/config.go"})
	a.ok("Bash", map[string]any{"command": "go test ./load/..."}, map[string]any{"stdout": "ok  \tgithub.com/acme/app/load\t0.2s\n", "stderr": ""})
	failID, editID, fixID := a.observationID(1), a.observationID(2), a.observationID(3)
	var sessA int64
	modelstest.Row(t, srv.Store, []any{&sessA}, `SELECT id FROM sessions WHERE claude_session_id = 'hint-a'`)
	var cause models.Memory
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		cause = models.Memory{Project: "hinted", SessionID: sessA, PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryCause,
			Text: "the loader read config.json relative to the working directory, not the module root (" + secret + ")", State: models.MemoryCurrent}
		_, err := tx.InsertMemory(&cause)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// A later session: the same test fails, with another duration and
	// temporary directory.
	b := newHintSession(t, srv, "hint-b")
	again := b.fail("cd "+hintCwd+" && go test -count=1 ./load", goTestFailure("TestLoadConfig", "1.20s", "/tmp/TestLoadConfig3141/002"))
	if again.HookSpecificOutput == nil || again.HookSpecificOutput.HookEventName != "PostToolUseFailure" {
		t.Fatalf("the recurring failure got no hint: %+v", again)
	}
	hint := again.hint()
	t.Logf("hint:\n%s", hint)
	for _, want := range []string{"<mneme-context>", "seen before", fmt.Sprintf("#%d ", failID), fmt.Sprintf("fixed then by #%d", fixID),
		fmt.Sprintf("load/config.go (#%d)", editID), fmt.Sprintf("root cause m%d", cause.ID), "relative to the working directory", "</mneme-context>"} {
		if !strings.Contains(hint, want) {
			t.Errorf("the hint lacks %q", want)
		}
	}
	if strings.Contains(hint, secret) || strings.Contains(hint, "R2d2C3po") {
		t.Errorf("the hint carries the secret: %q", hint)
	}
	if !strings.Contains(hint, "[REDACTED") {
		t.Errorf("the hint does not show the cause as stored (redacted): %q", hint)
	}
	if limit := models.DefaultSettings().Injection.FailureHintTokens * 4; len(hint) > limit {
		t.Errorf("hint of %d bytes, over its budget of %d", len(hint), limit)
	}

	// The same failure again in that session: not hinted twice.
	if got := b.fail("go test ./load/...", goTestFailure("TestLoadConfig", "0.50s", "/tmp/TestLoadConfig5/003")).hint(); got != "" {
		t.Errorf("the same hint twice in a session: %q", got)
	}
	// Another test's failure was never seen: nothing.
	if got := b.fail("go test ./load/...", goTestFailure("TestLoadDefaults", "0.03s", "/tmp/TestLoadDefaults1/001")).hint(); got != "" {
		t.Errorf("a first-time failure got a hint: %q", got)
	}

	// A third session is told too (once per session, not once ever); with
	// the budget at 0 the hint is off.
	c := newHintSession(t, srv, "hint-c")
	if got := c.fail("go test ./load/...", goTestFailure("TestLoadConfig", "2s", "/tmp/x/y")).hint(); !strings.Contains(got, "seen before") {
		t.Errorf("a third session got no hint: %q", got)
	}
	st := srv.Capture.Policy().Settings
	st.Injection.FailureHintTokens = 0
	if status, body := srv.Do(t, "PUT", "/api/settings", st, nil); status != 200 {
		t.Fatalf("PUT /api/settings: %d %s", status, body)
	}
	d := newHintSession(t, srv, "hint-d")
	if got := d.fail("go test ./load/...", goTestFailure("TestLoadConfig", "2s", "/tmp/x/y")); got.hint() != "" || got.Continue == nil {
		t.Errorf("with the hint off: %+v", got)
	}
}

// A test run Claude Code reports as a success (PostToolUse) whose output
// says a test failed is known again like a failure: its PostToolUse answer
// carries the hint.
func TestFailureSeenBeforeInPostToolUse(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	a := newHintSession(t, srv, "report-a")
	a.fail("go test ./load/...", goTestFailure("TestLoadConfig", "0.03s", "/tmp/a/b"))
	b := newHintSession(t, srv, "report-b")
	out := "--- FAIL: TestLoadConfig (0.40s)\n    config_test.go:31: open /tmp/c/d/config.json: no such file or directory\nFAIL\nFAIL\tgithub.com/acme/app/load\t0.4s\nFAIL\n"
	got := b.ok("Bash", map[string]any{"command": "go test ./load/... 2>&1 | tee test.log"}, map[string]any{"stdout": out, "stderr": ""})
	if got.HookSpecificOutput == nil || got.HookSpecificOutput.HookEventName != "PostToolUse" || !strings.Contains(got.hint(), "not fixed in that session") {
		t.Errorf("PostToolUse reporting the failing test: %+v", got)
	}
}

// When the lookup does not answer within its budget, the hook is
// answered at once without the hint (the worker is slow); the hint is
// then not marked as given.
func TestFailureHintPastItsBudget(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, func(o *app.Options) { o.FailureHintBudget = 1 }) // 1 ns: every query finds its context expired
	a := newHintSession(t, srv, "slow-a")
	a.fail("go test ./load/...", goTestFailure("TestLoadConfig", "0.03s", "/tmp/a/b"))
	b := newHintSession(t, srv, "slow-b")
	got := b.fail("go test ./load/...", goTestFailure("TestLoadConfig", "0.03s", "/tmp/a/b"))
	if got.hint() != "" || got.Continue == nil || !*got.Continue {
		t.Errorf("past its budget the hook got %+v, want the neutral answer", got)
	}
	var n int64
	modelstest.Row(t, srv.Store, []any{&n}, `SELECT COUNT(*) FROM observations WHERE signature <> ''`)
	if n != 2 {
		t.Errorf("%d failures stored with a signature, want 2", n)
	}
}

// The session page and the feed's live row (the fragment the stream's
// event is rendered by) mark a failure seen before, linked to the earlier
// failure and to its fix on their session's page.
func TestSeenBeforeMarks(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	a := newHintSession(t, srv, "mark-a")
	a.fail("go test ./load/...", goTestFailure("TestLoadConfig", "0.03s", "/tmp/a/b"))
	a.ok("Bash", map[string]any{"command": "go test ./load/..."}, map[string]any{"stdout": "ok  \tload\t0.2s\n", "stderr": ""})
	b := newHintSession(t, srv, "mark-b")
	b.fail("go test ./load/...", goTestFailure("TestLoadConfig", "0.9s", "/tmp/c/d"))
	failID, fixID, againID := a.observationID(1), a.observationID(2), b.observationID(1)
	var sessA, sessB int64
	modelstest.Row(t, srv.Store, []any{&sessA}, `SELECT id FROM sessions WHERE claude_session_id = 'mark-a'`)
	modelstest.Row(t, srv.Store, []any{&sessB}, `SELECT id FROM sessions WHERE claude_session_id = 'mark-b'`)
	earlier := fmt.Sprintf(`href="/sessions/%d#obs-%d"`, sessA, failID)
	fix := fmt.Sprintf(`href="/sessions/%d#obs-%d"`, sessA, fixID)

	get := func(path string) string {
		t.Helper()
		status, body := srv.Get(t, path)
		if status != 200 {
			t.Fatalf("GET %s: %d", path, status)
		}
		return string(body)
	}
	page := get(fmt.Sprintf("/sessions/%d", sessB))
	for _, want := range []string{fmt.Sprintf(`data-seen-before="%d"`, failID), earlier, fix, "seen before"} {
		if !strings.Contains(page, want) {
			t.Errorf("the session page lacks %s", want)
		}
	}
	if strings.Contains(get(fmt.Sprintf("/sessions/%d", sessA)), "data-seen-before") {
		t.Errorf("the first failure is marked seen before")
	}
	var ev int64
	modelstest.Row(t, srv.Store, []any{&ev}, `SELECT id FROM events WHERE kind = 'observation' AND ref_id = ?`, againID)
	row := get(fmt.Sprintf("/fragments/event/%d", ev))
	for _, want := range []string{fmt.Sprintf(`data-seen-before="%d"`, failID), earlier, fix} {
		if !strings.Contains(row, want) {
			t.Errorf("the live row lacks %s:\n%s", want, row)
		}
	}
}

// A command that is no test run is fixed by the same command succeeding
// later, as the summaries read it: the hint names that call.
func TestFailureSeenBeforeFixedBySameCommand(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	a := newHintSession(t, srv, "deploy-a")
	a.fail("./deploy.sh --env staging", "Exit code 2\nerror: lock held by pid 4242 since 2026-11-20T10:00:00Z")
	a.ok("Bash", map[string]any{"command": "rm -f .deploy.lock"}, map[string]any{"stdout": "", "stderr": ""})
	a.ok("Bash", map[string]any{"command": "./deploy.sh --env staging"}, map[string]any{"stdout": "deployed\n", "stderr": ""})
	b := newHintSession(t, srv, "deploy-b")
	hint := b.fail("./deploy.sh --env staging", "Exit code 2\nerror: lock held by pid 777 since 2026-11-27T18:30:12Z").hint()
	if want := fmt.Sprintf("fixed then by #%d Ran `./deploy.sh --env staging`", a.observationID(3)); !strings.Contains(hint, want) {
		t.Errorf("the hint lacks %q:\n%s", want, hint)
	}
}
