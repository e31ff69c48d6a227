package transcript

import (
	"github.com/mneme-dev/mneme/internal/hookwire"
	testfifo "github.com/mneme-dev/mneme/internal/testutil/fifo"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/shape"
)

// collect is a Sink that keeps what it is sent.
type collect struct {
	mu  sync.Mutex
	evs []*Event
}

func (c *collect) Send(_ context.Context, ev *Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evs = append(c.evs, ev)
	return nil
}

// fixture is a file of testdata/claude-code-2.1.330 (testutil cannot be
// imported here: it builds a worker, which imports this package).
func fixture(_ testing.TB, name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "claude-code-2.1.330", name)
}

// hookEvents reads session-basic.hooks.jsonl.
func hookEvents(t *testing.T) []json.RawMessage {
	data, err := os.ReadFile(fixture(t, "session-basic.hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		out = append(out, l)
	}
	return out
}

// old copies a file into dir, dated an hour ago (an ended session).
func old(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	os.Chtimes(path, at, at)
	return path
}

func run(t *testing.T, paths []string, opts Options) (Stats, []*Event) {
	t.Helper()
	var c collect
	st, err := Run(context.Background(), paths, opts, &c)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return st, c.evs
}

// TestFixtureGivesTheHookEvents: the events rebuilt from the transcript
// of a real Claude Code 2.1.330 run are the hook payloads that run sent
// (session-basic.hooks.jsonl), field for field, with the transcript's
// times.
func TestFixtureGivesTheHookEvents(t *testing.T) {
	data, err := os.ReadFile(fixture(t, "session-basic.transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := old(t, t.TempDir(), "f0373ac4-95a4-4996-a7f7-2576f5e8c9ca.jsonl", data)
	st, evs := run(t, []string{path}, Options{})

	var want []shape.Payload
	for _, raw := range hookEvents(t) {
		var p shape.Payload
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), st)
	}
	for i, ev := range evs {
		got, w := ev.Payload, want[i]
		if ev.Name != w.HookEventName || got.HookEventName != w.HookEventName {
			t.Errorf("event %d is %s, want %s", i, ev.Name, w.HookEventName)
			continue
		}
		if got.MnemeTime == nil || got.MnemeTime.IsZero() || !got.MnemeImport {
			t.Errorf("%s: no event time or import mark", ev.Name)
		}
		for _, f := range []struct{ name, got, want string }{
			{"session_id", got.SessionID, w.SessionID}, {"cwd", got.Cwd, w.Cwd}, {"prompt_id", got.PromptID, w.PromptID},
			{"source", got.Source, w.Source}, {"prompt", got.Prompt, w.Prompt}, {"tool_name", got.ToolName, w.ToolName},
			{"tool_use_id", got.ToolUseID, w.ToolUseID}, {"last_assistant_message", got.LastAssistantMessage, w.LastAssistantMessage},
			{"permission_mode", got.PermissionMode, w.PermissionMode},
		} {
			if f.got != f.want {
				t.Errorf("%s %s = %q, want %q", ev.Name, f.name, f.got, f.want)
			}
		}
		for _, f := range []struct {
			name      string
			got, want json.RawMessage
		}{{"tool_input", got.ToolInput, w.ToolInput}, {"tool_response", got.ToolResponse, w.ToolResponse}} {
			if !jsonEqual(f.got, f.want) {
				t.Errorf("%s %s:\n got %s\nwant %s", ev.Name, f.name, f.got, f.want)
			}
		}
	}
	if ev := evs[len(evs)-1]; ev.Name != hookwire.SessionEnd || ev.Payload.Reason != EndReason {
		t.Errorf("last event %s %q", ev.Name, ev.Payload.Reason)
	}
	if st.Sessions != 1 || st.Prompts != 1 || st.Observations != 4 || st.Turns != 1 || st.Ended != 1 || st.Skipped != 0 {
		t.Errorf("stats %+v", st)
	}
	if c := st.Projects["notes-app"]; c == nil || c.Sessions != 1 || c.Observations != 4 {
		t.Errorf("per project %+v", st.Projects)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestFailureAndTurns: an is_error tool result is a PostToolUseFailure
// with the result's text as its error; a session still being written gets
// no SessionEnd; meta, command and interruption lines are not prompts;
// each prompt's turn gets a Stop with its own last answer.
func TestFailureAndTurns(t *testing.T) {
	sid := "0b9ad9a3-aaaa-bbbb-cccc-000000000001"
	at := func(s int) string { return time.Date(2026, 1, 2, 3, 4, s, 0, time.UTC).Format(time.RFC3339Nano) }
	lines := []string{
		`{"type":"user","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(1) + `","promptId":"p1","uuid":"u1","message":{"role":"user","content":"first"}}`,
		`{"type":"assistant","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(2) + `","message":{"role":"assistant","content":[{"type":"text","text":"trying"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls /nope"}}]}}`,
		`{"type":"user","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(4) + `","promptId":"p1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 2\nls: cannot access","is_error":true}]},"toolUseResult":"Error: Exit code 2"}`,
		`{"type":"assistant","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(5) + `","message":{"role":"assistant","content":[{"type":"text","text":"it failed"}]}}`,
		`{"type":"user","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(6) + `","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>x</local-command-caveat>"}}`,
		`{"type":"user","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(7) + `","message":{"role":"user","content":"<command-name>/clear</command-name>"}}`,
		`{"type":"user","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(8) + `","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`,
		`{"type":"user","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(9) + `","promptId":"p2","message":{"role":"user","content":[{"type":"text","text":"second"}]}}`,
		`{"type":"assistant","sessionId":"` + sid + `","cwd":"/tmp/p","timestamp":"` + at(10) + `","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}`,
	}
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600) // fresh: still active
	st, evs := run(t, []string{path}, Options{ActiveWithin: time.Hour})
	var names []string
	for _, ev := range evs {
		names = append(names, ev.Name)
	}
	// The second turn is still running (the file is fresh): its Stop, like
	// the session's end, is left to the hooks.
	want := []string{hookwire.SessionStart, hookwire.UserPromptSubmit, hookwire.PostToolUseFailure, hookwire.Stop, hookwire.UserPromptSubmit}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	f := evs[2].Payload
	if f.ToolName != "Bash" || f.ToolUseID != "t1" || f.Error != "Exit code 2\nls: cannot access" || f.DurationMS != 2000 || f.PromptID != "p1" {
		t.Errorf("failure %+v", f)
	}
	if evs[3].Payload.LastAssistantMessage != "it failed" {
		t.Errorf("stop %q", evs[3].Payload.LastAssistantMessage)
	}
	// Once the file is old, the second turn ends with its last answer.
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(path, past, past)
	_, evs = run(t, []string{path}, Options{ActiveWithin: time.Hour})
	if n := len(evs); n != 7 || evs[5].Name != hookwire.Stop || evs[5].Payload.LastAssistantMessage != "done" || evs[6].Name != hookwire.SessionEnd {
		t.Errorf("%d events; the last turn's Stop %+v", n, evs[5].Payload)
	}
	if evs[4].Payload.Prompt != "second" || evs[4].Payload.PromptID != "p2" {
		t.Errorf("second prompt %+v", evs[4].Payload)
	}
	if st.Failures != 1 || st.Ended != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestHostileFiles: truncated and mistyped lines, a 100 MB line, binary
// garbage, a symlink loop, a FIFO, a dangling link and an unreadable
// file are each reported (file:line) and skipped; the good session
// around them is imported whole, and the long line is never held in
// memory.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(fixture(t, "session-basic.transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	goodLines := bytes.Split(bytes.TrimSpace(good), []byte("\n"))

	// The good session, with hostile lines between its own.
	var mixed bytes.Buffer
	for i, l := range goodLines {
		mixed.Write(l)
		mixed.WriteByte('\n')
		switch i {
		case 2:
			mixed.WriteString(`{"type":"user","sessionId":5,"timestamp":"x"}` + "\n") // wrong type
		case 5:
			mixed.WriteString(`{"type":"user","sessionId":"s","cwd":"/x","timestamp":"2026-01-01T00:00:00Z","message":{"content":42}}` + "\n")
		case 8:
			mixed.WriteString(`{"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"content":[1,2` + "\n") // truncated
		case 10:
			mixed.WriteString("\x00\x01\xff\xfe garbage\n")
		case 12:
			mixed.WriteString(`{"type":"user","sessionId":"s","timestamp":"yesterday","message":{"content":"hi"}}` + "\n")
		}
	}
	old(t, dir, "mixed.jsonl", mixed.Bytes())

	// A 100 MB line between two short ones.
	huge := filepath.Join(dir, "huge.jsonl")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"type":"summary","summary":"before"}` + "\n" + `{"type":"user","message":{"content":"`)
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range 100 {
		w.Write(chunk)
	}
	w.WriteString(`"}}` + "\n" + `{"type":"summary","summary":"after"}` + "\n")
	w.Flush()
	f.Close()

	// Binary garbage, a truncated last line, a symlink loop, a FIFO, a
	// dangling link, an unreadable file.
	garbage := make([]byte, 256<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	old(t, dir, "garbage.jsonl", garbage)
	old(t, dir, "cut.jsonl", goodLines[4][:len(goodLines[4])/2])
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	if err := os.Symlink(dir, filepath.Join(sub, "loop")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(dir, "mixed.jsonl"), filepath.Join(sub, "again.jsonl")) // the same file: read once
	os.Symlink(filepath.Join(dir, "nowhere.jsonl"), filepath.Join(dir, "dangling.jsonl"))
	testfifo.Make(t, filepath.Join(dir, "fifo.jsonl"))
	locked := old(t, dir, "locked.jsonl", []byte("{\"type\": 1}\n"))
	os.Chmod(locked, 0)
	unreadable := os.Geteuid() != 0 // root reads it anyway

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st, evs := run(t, []string{dir, filepath.Join(dir, "does-not-exist")}, Options{})
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	if st.Sessions != 1 || st.Prompts != 1 || st.Observations != 4 || st.Turns != 1 || len(evs) != 8 {
		t.Errorf("the good session was not imported whole: %+v, %d events", st.Counts, len(evs))
	}
	problems := strings.Join(st.Problems, "\n")
	t.Logf("problems:\n%s", problems)
	for _, want := range []string{
		"mixed.jsonl:4: not a transcript line", // wrong type
		"mixed.jsonl:8: user content is neither text nor blocks",
		"mixed.jsonl:12: not a transcript line", // truncated
		"mixed.jsonl:15: not a transcript line", // garbage
		"mixed.jsonl:18: no valid timestamp",
		"huge.jsonl:2: line of 1048576", "bytes is longer than the 16777216-byte limit: skipped",
		"garbage.jsonl:1: not a transcript line",
		"cut.jsonl:1: not a transcript line",
		"fifo.jsonl: not a regular file",
		"dangling.jsonl: stat",
		"does-not-exist: stat",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("no problem %q", want)
		}
	}
	if unreadable && !strings.Contains(problems, "locked.jsonl: open: permission denied") {
		t.Error("the unreadable file was not reported")
	}
	if strings.Contains(problems, "loop") {
		t.Error("the symlink loop was followed")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 80<<20 {
		t.Errorf("allocated %d MB reading a 100 MB line: it was loaded", alloc>>20)
	}
}

// TestLongLinesBuffered: lines longer than the reader's buffer but under
// the cap are read whole.
func TestLongLinesBuffered(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	in := "a\n" + long + "\n" + "b"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	var got []string
	for {
		l, _, err := readLine(r, nil, 1<<20)
		if err != nil {
			break
		}
		got = append(got, strings.TrimSpace(string(l)))
	}
	if len(got) != 3 || got[0] != "a" || got[1] != long || got[2] != "b" {
		t.Errorf("lines %d", len(got))
	}
}

// TestProjectAndSince filter sessions by project and events by time.
func TestProjectAndSince(t *testing.T) {
	data, _ := os.ReadFile(fixture(t, "session-basic.transcript.jsonl"))
	path := old(t, t.TempDir(), "s.jsonl", data)
	for _, c := range []struct {
		opts     Options
		sessions int
	}{
		{Options{Project: "notes-app"}, 1},
		{Options{Project: "other"}, 0},
		{Options{Since: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)}, 1},
		{Options{Since: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}, 0},
	} {
		st, _ := run(t, []string{path}, c.opts)
		if st.Sessions != c.sessions {
			t.Errorf("%+v: %d sessions, want %d", c.opts, st.Sessions, c.sessions)
		}
	}
}

// TestSubagentTranscript: a subagent's transcript (its own file, every
// line a sidechain of the session that started it) is read after the
// main transcripts; its tool calls belong to that session and prompt, its
// task text is no prompt, and it neither starts nor ends the session.
func TestSubagentTranscript(t *testing.T) {
	sid := "0b9ad9a3-aaaa-bbbb-cccc-000000000002"
	at := func(s int) string { return time.Date(2026, 1, 2, 3, 4, s, 0, time.UTC).Format(time.RFC3339Nano) }
	line := func(sidechain bool, typ string, s int, rest string) string {
		return fmt.Sprintf(`{"type":%q,"isSidechain":%v,"sessionId":%q,"cwd":"/tmp/p","timestamp":%q,"promptId":"p1",%s}`, typ, sidechain, sid, at(s), rest)
	}
	dir := t.TempDir()
	agents := filepath.Join(dir, sid, "subagents")
	os.MkdirAll(agents, 0o700)
	// The subagent's file is older than the main one: order by time alone
	// would read it first.
	old(t, agents, "agent-a1.jsonl", []byte(strings.Join([]string{
		line(true, "user", 3, `"message":{"role":"user","content":"find the bug"}`),
		line(true, "assistant", 4, `"message":{"role":"assistant","content":[{"type":"tool_use","id":"ta","name":"Grep","input":{"pattern":"bug"}}]}`),
		line(true, "user", 5, `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"ta","content":"x.go:1"}]}`),
		line(true, "assistant", 6, `"message":{"role":"assistant","content":[{"type":"text","text":"found it"}]}`),
	}, "\n")))
	main := old(t, dir, sid+".jsonl", []byte(strings.Join([]string{
		line(false, "user", 1, `"message":{"role":"user","content":"fix the bug"}`),
		line(false, "assistant", 2, `"message":{"role":"assistant","content":[{"type":"text","text":"fixed"}]}`),
	}, "\n")))
	later := time.Now().Add(-30 * time.Minute)
	os.Chtimes(main, later, later)
	st, evs := run(t, []string{dir}, Options{Workers: 4})
	var names []string
	for _, ev := range evs {
		names = append(names, ev.Name+":"+ev.Payload.PromptID)
	}
	want := []string{"SessionStart:", "UserPromptSubmit:p1", "Stop:p1", "SessionEnd:p1", "PostToolUse:p1"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("events %v, want %v", names, want)
	}
	if st.Sessions != 1 || st.Prompts != 1 || st.Observations != 1 {
		t.Errorf("stats %+v", st.Counts)
	}
}
