//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end tests of mneme with real Claude Code: a freshly built
// mneme binary is installed into a temporary HOME with `mneme install`,
// Claude Code runs scripted sessions against the fake Messages API, and the
// tests check what mneme stored (through its HTTP API and the files in its
// data directory) and what context it gave the model.

// Secrets and private text put in session 1's prompt and files. None of them
// may be stored by mneme in any form.
var (
	privateWord  = "hunter2"
	githubToken  = "ghp_" + "Zq8xK2mN4pR7tV1wY5bC9dF3gH6jL0sA2eU4"
	anthropicKey = "sk-ant-" + "api03-Xk9Lm2Np4Qr6St8Uv0Wx1Yz3Ab5Cd7Ef9"
)

// TestMain removes the mneme binary built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	RemoveMnemeBin()
	os.Exit(code)
}

// rawSecrets are the strings that must appear nowhere in mneme's data.
func rawSecrets() []string { return []string{privateWord, githubToken, anthropicKey} }

// session1Words is a distinctive phrase of session 1's first prompt; it must
// come back in session 2's context.
const session1Words = "zebra-release checklist"

// --- the SSE stream -------------------------------------------------------

// streamCapture reads GET /stream in the background and keeps everything
// it received.
type streamCapture struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	buf  bytes.Buffer
	err  error
	seen chan struct{} // closed when the awaited event arrived
}

// CaptureStream opens GET /stream (with Last-Event-ID when lastID > 0, to
// replay the log after that id) and reads it until Close. It waits until the
// stream's first bytes arrived, so nothing published afterwards is missed.
// The awaited event name (e.g. "session_completed") closes Seen().
func (m *Mneme) CaptureStream(t testing.TB, lastID int, awaited string) *streamCapture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL+"/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID > 0 {
		req.Header.Set("Last-Event-ID", strconv.Itoa(lastID))
	}
	m.authorize(t, req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET /stream: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		cancel()
		t.Fatalf("GET /stream: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	s := &streamCapture{cancel: cancel, done: make(chan struct{}), seen: make(chan struct{})}
	first := make(chan struct{})
	go func() {
		defer close(s.done)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		firstOnce, seenOnce := sync.Once{}, sync.Once{}
		for {
			line, err := r.ReadString('\n')
			s.mu.Lock()
			s.buf.WriteString(line)
			s.mu.Unlock()
			if line != "" {
				firstOnce.Do(func() { close(first) })
			}
			if awaited != "" && strings.TrimSpace(line) == "event: "+awaited {
				seenOnce.Do(func() { close(s.seen) })
			}
			if err != nil {
				s.mu.Lock()
				if ctx.Err() == nil {
					s.err = err
				}
				s.mu.Unlock()
				firstOnce.Do(func() { close(first) })
				return
			}
		}
	}()
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		s.Close()
		t.Fatalf("GET /stream sent nothing within 30 s")
	}
	t.Cleanup(s.Close)
	return s
}

// Seen is closed when the awaited event arrived.
func (s *streamCapture) Seen() <-chan struct{} { return s.seen }

// Close stops reading and waits for the reader to finish.
func (s *streamCapture) Close() {
	s.cancel()
	<-s.done
}

// Text returns everything received so far.
func (s *streamCapture) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// streamEvents parses SSE text into (id, event name) pairs, in order.
func streamEvents(text string) (ids []int, names []string) {
	for _, frame := range strings.Split(text, "\n\n") {
		id, name := 0, ""
		for _, line := range strings.Split(frame, "\n") {
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				id, _ = strconv.Atoi(v)
			}
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			}
		}
		if name != "" {
			ids, names = append(ids, id), append(names, name)
		}
	}
	return ids, names
}

// --- session scripts ------------------------------------------------------

// session1 is the first session's script and prompt. It succeeds once, fails
// twice (one failure stays unresolved, the other is fixed by writing the
// file it was about and rerunning the same command), writes and edits a file
// holding a secret, and ends with a text answer.
type session1 struct {
	Prompt    string
	NotesPath string
	Final     string
	Steps     []Step
}

func newSession1(project string) session1 {
	notes := filepath.Join(project, "notes.md")
	s := session1{
		Prompt: "Prepare the " + session1Words + " in notes.md. <private>my password is " + privateWord +
			"</private> Deploy with token " + githubToken + " and key " + anthropicKey + ".",
		NotesPath: notes,
		Final:     "The notes are written; /nonexistent-dir is still missing.",
	}
	s.Steps = []Step{
		ToolUse("Bash", map[string]any{"command": "echo hello-from-fake", "description": "say hello"}),
		ToolUse("Bash", map[string]any{"command": "ls /nonexistent-dir", "description": "list a missing dir"}),
		ToolUse("Bash", map[string]any{"command": "cat notes.md", "description": "show the notes"}),
		ToolUse("Write", map[string]any{"file_path": notes, "content": "# Release notes\nstatus: draft\ndeploy token: " + githubToken + "\n"}),
		ToolUse("Edit", map[string]any{"file_path": notes, "old_string": "status: draft", "new_string": "status: final"}),
		ToolUse("Bash", map[string]any{"command": "cat notes.md", "description": "show the notes again"}),
		Text(s.Final),
	}
	return s
}

// runSession1 runs session 1 in project and returns its script and session
// id, after checking that Claude Code really ran the tools.
func runSession1(t *testing.T, m *Mneme, project string) (session1, string) {
	t.Helper()
	s1 := newSession1(project)
	fake := NewFakeAPI(t, s1.Steps...)
	res := m.Claude(t, fake, project, s1.Prompt)
	if res.JSON.SessionID == "" || res.JSON.Result != s1.Final {
		t.Fatalf("session 1 result %+v", res.JSON)
	}
	if n := len(fake.ToolRequests()); n != len(s1.Steps) {
		t.Errorf("session 1 made %d model requests, want %d (one per step)", n, len(s1.Steps))
	}
	if b, err := os.ReadFile(s1.NotesPath); err != nil || !strings.Contains(string(b), "status: final") {
		t.Fatalf("Write/Edit did not run: %q %v", b, err)
	}
	return s1, res.JSON.SessionID
}

// runSessionsAB runs session 1 (A), then session B in the same project (a
// version bump, the "quokka milestone"), each settled, and returns A's
// script and both session ids.
func runSessionsAB(t *testing.T, m *Mneme, project string) (s1 session1, sidA, sidB string) {
	t.Helper()
	s1, sidA = runSession1(t, m, project)
	m.WaitSettled(t, sidA)
	fakeB := NewFakeAPI(t,
		ToolUse("Bash", map[string]any{"command": "echo bumped-to-7.3.1", "description": "bump the version"}),
		Text("Version bumped."))
	sidB = m.Claude(t, fakeB, project, "Bump the version to 7.3.1 for the quokka milestone.").JSON.SessionID
	m.WaitSettled(t, sidB)
	return s1, sidA, sidB
}

// contextSection returns the lines under the markdown heading "## <title>"
// of a context block, up to the next heading, or "" without such a heading.
func contextSection(block, title string) string {
	_, rest, ok := strings.Cut(block, "## "+title+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// contextSession is what a one-turn session showed the model.
type contextSession struct {
	// Block is the <mneme-context> block SessionStart added ("" if none).
	Block string
	// Text is the whole first model request as text (see RequestText).
	Text string
	// SessionID is Claude Code's session id.
	SessionID string
}

// runContextSession runs a one-turn session and returns what its first
// model request carried.
func runContextSession(t *testing.T, m *Mneme, project, prompt string) contextSession {
	t.Helper()
	fake := NewFakeAPI(t, Text("Noted."))
	res := m.Claude(t, fake, project, prompt)
	first := fake.FirstToolRequestBody()
	if first == nil {
		t.Fatalf("the fake got no model request; paths %v", fake.Paths())
	}
	return contextSession{Block: MnemeContext(first), Text: RequestText(first), SessionID: res.JSON.SessionID}
}

// relatedContext returns the text UserPromptSubmit added to a model request
// (up to the end of its </mneme-context>), or "" when there is none.
func relatedContext(text string) string {
	return hookContext(text, "UserPromptSubmit hook additional context: ")
}

// hookContext returns the text after marker (how Claude Code introduces a
// hook's additional context) up to the end of its </mneme-context>, or ""
// when there is no marker.
func hookContext(text, marker string) string {
	_, rest, ok := strings.Cut(text, marker)
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "</mneme-context>"); i >= 0 {
		return rest[:i+len("</mneme-context>")]
	}
	return rest
}

// checkContextBudget checks a block against max_inject_tokens (4 bytes per
// token) and the 10 KB hard cap.
func checkContextBudget(t *testing.T, block string, maxTokens int) {
	t.Helper()
	if len(block) > maxTokens*4 {
		t.Errorf("context block is %d bytes, over max_inject_tokens %d × 4 = %d", len(block), maxTokens, maxTokens*4)
	}
	if len(block) > 10*1024 {
		t.Errorf("context block is %d bytes, over the 10 KB cap", len(block))
	}
}

// assertNoSecrets fails when any raw secret or private word is in s.
func assertNoSecrets(t *testing.T, where, s string) {
	t.Helper()
	for _, secret := range rawSecrets() {
		if strings.Contains(s, secret) {
			t.Errorf("%s contains %q", where, secret)
		}
	}
	if strings.Contains(s, "<private>") {
		t.Errorf("%s contains a <private> tag", where)
	}
}

// assertDataDirClean reads every file under mneme's data directory (the
// database, its WAL and shared memory, logs and spool) and fails when a raw
// secret or the private word is in any of them. The worker must be stopped.
func assertDataDirClean(t *testing.T, dataDir string) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dataDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err // the socket is no file to read
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, fmt.Sprintf("%s (%d bytes)", strings.TrimPrefix(p, dataDir+"/"), len(b)))
		for _, secret := range rawSecrets() {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds %q", p, secret)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dataDir, err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "mneme.db")); err != nil {
		t.Errorf("no mneme.db in the data directory: %v (files: %v)", err, files)
	}
	t.Logf("data directory checked for secrets: %s", strings.Join(files, ", "))
}

// findObs returns the observations of tool whose title contains titlePart.
func findObs(obs []apiObservation, tool, titlePart string) []apiObservation {
	var out []apiObservation
	for _, o := range obs {
		if o.ToolName == tool && strings.Contains(o.Title, titlePart) {
			out = append(out, o)
		}
	}
	return out
}

// checkSession1 asserts what mneme stored for session 1.
func checkSession1(t *testing.T, m *Mneme, s1 session1, project, sid string) apiSessionDetail {
	t.Helper()
	d, raw := m.WaitSettled(t, sid)
	defer func() {
		if t.Failed() {
			t.Logf("session 1 as stored: %s", raw)
		}
	}()
	name := filepath.Base(project)
	var list struct {
		Items []apiSession `json:"items"`
	}
	m.GetJSON(t, "/api/sessions?project="+name, &list)
	if len(list.Items) != 1 || list.Items[0].ClaudeSessionID != sid || list.Items[0].Project != name {
		t.Errorf("GET /api/sessions?project=%s = %+v, want one session %s of project %s", name, list.Items, sid, name)
	}
	assertNoSecrets(t, "GET /api/sessions/"+sid, string(raw))

	ss := d.Session
	if ss.Project != name || ss.Cwd != project || ss.Source != "startup" {
		t.Errorf("session project %q cwd %q source %q, want %q %q startup", ss.Project, ss.Cwd, ss.Source, name, project)
	}
	if ss.Status != "completed" || ss.EndReason == "" {
		t.Errorf("session status %q end reason %q, want completed with a reason (SessionEnd)", ss.Status, ss.EndReason)
	}
	if ss.LastAssistantMessage != s1.Final {
		t.Errorf("last assistant message %q, want %q (Stop)", ss.LastAssistantMessage, s1.Final)
	}

	if len(d.Prompts) != 1 {
		t.Fatalf("%d prompts stored, want 1: %+v", len(d.Prompts), d.Prompts)
	}
	p := d.Prompts[0].Text
	for _, want := range []string{session1Words, "[REDACTED:github_token]", "[REDACTED:anthropic_key]"} {
		if !strings.Contains(p, want) {
			t.Errorf("stored prompt %q lacks %q", p, want)
		}
	}
	if strings.Contains(p, "my password") {
		t.Errorf("stored prompt %q kept the private part", p)
	}

	obs := d.Observations
	if len(obs) != 6 {
		t.Errorf("%d observations stored, want 6 (echo, ls, cat, Write, Edit, cat)", len(obs))
	}
	ids := map[string]bool{}
	for _, o := range obs {
		if o.ToolUseID == nil || *o.ToolUseID == "" || ids[*o.ToolUseID] {
			t.Errorf("observation #%d has a missing or duplicate tool_use_id", o.ID)
		} else {
			ids[*o.ToolUseID] = true
		}
	}
	one := func(tool, title string) apiObservation {
		t.Helper()
		got := findObs(obs, tool, title)
		if len(got) != 1 {
			t.Errorf("want one %s observation titled like %q, got %d", tool, title, len(got))
			return apiObservation{}
		}
		return got[0]
	}
	if o := one("Bash", "echo hello-from-fake"); o.ID != 0 {
		if !o.Success || o.Kind == "failure" || !strings.Contains(o.Output, "hello-from-fake") {
			t.Errorf("echo observation: %+v, want a success whose output says hello-from-fake", o)
		}
	}
	if o := one("Bash", "ls /nonexistent-dir"); o.ID != 0 {
		if o.Success || o.Importance != 1.0 || o.Kind != "failure" {
			t.Errorf("ls observation: success %v importance %v kind %q, want a failure with importance 1.0", o.Success, o.Importance, o.Kind)
		}
	}
	if cats := findObs(obs, "Bash", "cat notes.md"); len(cats) != 2 {
		t.Errorf("want two `cat notes.md` observations (failed, then fixed), got %d", len(cats))
	} else {
		if cats[0].Success || cats[0].Kind != "failure" || cats[0].Importance != 1.0 {
			t.Errorf("first cat: %+v, want a failure with importance 1.0", cats[0])
		}
		if !cats[1].Success || !strings.Contains(cats[1].Output, "status: final") ||
			!strings.Contains(cats[1].Output, "[REDACTED:github_token]") {
			t.Errorf("second cat: %+v, want a success showing the edited file with the token redacted", cats[1])
		}
	}
	for _, tool := range []string{"Write", "Edit"} {
		o := one(tool, "notes.md")
		if o.ID == 0 {
			continue
		}
		if !o.Success || o.Kind != "file_change" || o.Importance != 0.7 {
			t.Errorf("%s observation: success %v kind %q importance %v, want a file_change with importance 0.7", tool, o.Success, o.Kind, o.Importance)
		}
		touched := false
		for _, f := range o.Files {
			touched = touched || strings.HasSuffix(f, "notes.md")
		}
		if !touched {
			t.Errorf("%s observation files %v lack notes.md", tool, o.Files)
		}
	}
	// A Write's content is stored as its output.
	if o := one("Write", "notes.md"); o.ID != 0 && !strings.Contains(o.Output, "[REDACTED:github_token]") {
		t.Errorf("Write output %q: the token in the written content is not redacted", o.Output)
	}
	return d
}

// --- the tests ------------------------------------------------------------

// TestClaudeCodeWithMneme runs two real Claude Code sessions in one project
// with mneme installed and a worker the test started: session 1 is captured
// completely and privately, session 2's first model request carries
// mneme's context about session 1 within the budget.
func TestClaudeCodeWithMneme(t *testing.T) {
	ClaudeBin(t)
	m := NewMneme(t)
	m.Serve(t)
	project := NewProject(t, "mneme-e2e-notes")

	// Follow the live stream over the whole session.
	live := m.CaptureStream(t, 0, "session_completed")

	s1, sid := runSession1(t, m, project)
	d1 := checkSession1(t, m, s1, project, sid)

	select {
	case <-live.Seen():
	case <-time.After(30 * time.Second):
		t.Errorf("no session_completed event on /stream within 30 s")
	}
	live.Close()
	liveText := live.Text()
	assertNoSecrets(t, "the live /stream", liveText)
	_, names := streamEvents(liveText)
	counts := map[string]int{}
	for _, n := range names {
		counts[n]++
	}
	t.Logf("live /stream events: %v", counts)
	if counts["session_started"] != 1 || counts["prompt"] != 1 || counts["observation"] != len(d1.Observations) || counts["session_completed"] != 1 {
		t.Errorf("live /stream events %v, want 1 session_started, 1 prompt, %d observation, 1 session_completed", counts, len(d1.Observations))
	}
	if !strings.Contains(liveText, "[REDACTED:github_token]") {
		t.Errorf("the live stream never shows the redacted prompt or output")
	}

	// Replaying the log from the first event gives the same content.
	ids, _ := streamEvents(liveText)
	if len(ids) > 0 {
		replay := m.CaptureStream(t, ids[0], "session_completed")
		select {
		case <-replay.Seen():
		case <-time.After(30 * time.Second):
			t.Errorf("replayed /stream (Last-Event-ID %d) lacks session_completed", ids[0])
		}
		replay.Close()
		assertNoSecrets(t, "the replayed /stream", replay.Text())
		rids, _ := streamEvents(replay.Text())
		if len(rids) != len(ids)-1 {
			t.Errorf("replay after id %d gave %d events, want %d", ids[0], len(rids), len(ids)-1)
		}
	}

	// Session 2: mneme's context about session 1 reaches the model.
	s2 := runContextSession(t, m, project, "Why does ls /nonexistent-dir keep failing?")
	block, sid2 := s2.Block, s2.SessionID
	if sid2 == sid {
		t.Fatalf("session 2 reused session id %s", sid)
	}
	if block == "" {
		t.Fatalf("session 2's first model request has no SessionStart <mneme-context> block")
	}
	t.Logf("session 2 context block (%d bytes):\n%s", len(block), block)
	checkContextBudget(t, block, 2000)
	for _, want := range []string{"notes.md", "ls /nonexistent-dir", session1Words} {
		if !strings.Contains(block, want) {
			t.Errorf("session 2 context lacks %q", want)
		}
	}
	// The failing `cat notes.md` was fixed later in the session (the file
	// was written and the same command then succeeded), `ls /nonexistent-dir`
	// never was: only the latter is an unresolved failure.
	if unresolved := contextSection(block, "Unresolved failures"); unresolved == "" {
		t.Errorf("session 2 context has no \"Unresolved failures\" section")
	} else {
		if !strings.Contains(unresolved, "ls /nonexistent-dir") {
			t.Errorf("unresolved failures lack `ls /nonexistent-dir`:\n%s", unresolved)
		}
		if strings.Contains(unresolved, "cat notes.md") {
			t.Errorf("unresolved failures list the fixed `cat notes.md`:\n%s", unresolved)
		}
	}
	assertNoSecrets(t, "session 2's context", block)

	// The prompt names the failing command: UserPromptSubmit adds a
	// one-line hint with the failed observation's id and title (which
	// names the first error line), never the rest of its content.
	related := relatedContext(s2.Text)
	t.Logf("session 2 related memory (%d bytes):\n%s", len(related), related)
	if !strings.HasPrefix(related, "<mneme-context>") || !strings.Contains(related, "nonexistent-dir") {
		t.Errorf("session 2's first request has no related-memory hint about `ls /nonexistent-dir`")
	}
	if ls := findObs(d1.Observations, "Bash", "ls /nonexistent-dir"); len(ls) == 1 {
		if !strings.Contains(related, fmt.Sprintf("#%d ", ls[0].ID)) {
			t.Errorf("the related-memory hint does not name observation #%d", ls[0].ID)
		}
		for _, line := range strings.Split(related, "\n") {
			if strings.Contains(line, fmt.Sprintf("#%d ", ls[0].ID)) && !strings.Contains(line, ls[0].Title) {
				t.Errorf("the hint for #%d is not its title %q: %s", ls[0].ID, ls[0].Title, line)
			}
		}
	}
	if n := strings.Count(related, "\n- "); n < 1 || n > 5 {
		t.Errorf("the related-memory hint has %d entries, want 1 to 5 one-line entries", n)
	}
	assertNoSecrets(t, "session 2's related memory", related)

	// Nothing private or secret at rest: read every file of the data
	// directory while the worker runs (fresh pages sit in mneme.db-wal),
	// then again after a graceful stop has checkpointed the WAL.
	m.WaitSettled(t, sid2)
	assertDataDirClean(t, m.DataDir)
	m.Stop(t)
	assertDataDirClean(t, m.DataDir)
}

// TestClaudeCodeWithMnemeAutoStart starts no worker: the first hook of the
// session must start it, and the whole session must still be stored.
func TestClaudeCodeWithMnemeAutoStart(t *testing.T) {
	ClaudeBin(t)
	m := NewMneme(t)
	if _, err := m.Health(); err == nil {
		t.Fatalf("a worker already answers on %s", m.URL)
	}
	project := NewProject(t, "mneme-e2e-autostart")
	s1, sid := runSession1(t, m, project)

	h, err := m.Health()
	if err != nil {
		t.Fatalf("no worker after the session: %v", err)
	}
	t.Logf("worker started by the SessionStart hook: pid %d", h.PID)
	checkSession1(t, m, s1, project, sid)
	StopPID(t, h.PID)
	assertDataDirClean(t, m.DataDir)
}

// TestClaudeCodeWithMnemeResume resumes session A (`claude -p --resume`)
// after another session B in the same project: mneme keeps one row for A
// (same session_id, source "resume", second prompt numbered 2, completed
// again), and the context A gets on resume holds only what happened since
// it was last active, B's work, not A's own.
func TestClaudeCodeWithMnemeResume(t *testing.T) {
	ClaudeBin(t)
	m := NewMneme(t)
	m.Serve(t)
	project := NewProject(t, "mneme-e2e-resume")
	s1, sidA, _ := runSessionsAB(t, m, project)

	// The resumed conversation already holds session A's tool results, so
	// the fake's script index starts past them.
	steps := append(append([]Step(nil), s1.Steps[:len(s1.Steps)-1]...), Text("Resumed and done."))
	fakeA := NewFakeAPI(t, steps...)
	res := RunClaude(context.Background(), t, ClaudeOptions{
		Bin: ClaudeBin(t), Home: m.Home, Dir: project, BaseURL: fakeA.URL,
		Prompt:  "Resume the zebra work.",
		Args:    []string{"--resume", sidA, "--allowedTools", DefaultAllowedTools, "--output-format", "json"},
		Timeout: claudeRunTimeout,
	})
	if res.ExitCode != 0 || res.JSON == nil || res.JSON.SessionID != sidA || res.JSON.Result != "Resumed and done." {
		t.Fatalf("resume failed: exit %d json %+v\nstderr: %s", res.ExitCode, res.JSON, res.Stderr)
	}
	// The resumed run's first request already carries A's tool results.
	reqs := fakeA.ToolRequests()
	if len(reqs) == 0 {
		t.Fatalf("the resumed run made no model request")
	}
	block := MnemeContext(reqs[0].Body)
	t.Logf("context on resume (%d bytes):\n%s", len(block), block)
	if !strings.Contains(block, "quokka milestone") {
		t.Errorf("the context on resume lacks session B's work (quokka milestone)")
	}
	if strings.Contains(block, session1Words) || strings.Contains(block, "nonexistent-dir") {
		t.Errorf("the context on resume repeats session A's own history")
	}
	checkContextBudget(t, block, 2000)

	d, raw := m.WaitSettled(t, sidA)
	if d.Session.Source != "resume" || d.Session.Status != "completed" || d.Session.PromptCounter != 2 {
		t.Errorf("resumed session: source %q status %q prompt counter %d, want resume completed 2\n%s",
			d.Session.Source, d.Session.Status, d.Session.PromptCounter, raw)
	}
	if len(d.Prompts) != 2 || d.Prompts[1].Number != 2 || d.Prompts[1].Text != "Resume the zebra work." {
		t.Errorf("resumed session prompts %+v, want the new prompt as number 2", d.Prompts)
	}
	if d.Session.LastAssistantMessage != "Resumed and done." {
		t.Errorf("last assistant message %q after resume", d.Session.LastAssistantMessage)
	}
	var list struct {
		Items []apiSession `json:"items"`
	}
	m.GetJSON(t, "/api/sessions?project="+filepath.Base(project), &list)
	if len(list.Items) != 2 {
		t.Errorf("%d sessions in the project after resume, want 2 (A and B): %+v", len(list.Items), list.Items)
	}
}
