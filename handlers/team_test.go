package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/hooks/hookhttp"
	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// privateFiles are files of the worker's user that no person may have the
// worker read: a transcript (mode 0600), a git repository on a private
// branch, with cwd a directory inside it, and a file a tool names.
type privateFiles struct {
	transcript, repo, cwd, file string
}

const (
	ownerAnswer = "OWNER-PRIVATE-ANSWER from the worker's transcript"
	ownerBranch = "owner-secret-branch"
)

func makePrivateFiles(t *testing.T) privateFiles {
	t.Helper()
	dir := t.TempDir()
	pf := privateFiles{
		transcript: filepath.Join(dir, "owner.jsonl"),
		repo:       filepath.Join(dir, "secret-repo"),
		file:       filepath.Join(dir, "notes.txt"),
	}
	pf.cwd = filepath.Join(pf.repo, "sub")
	line := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + ownerAnswer + `"}]}}` + "\n"
	for path, content := range map[string]string{
		pf.transcript:                          `{"type":"user"}` + "\n" + line,
		filepath.Join(pf.repo, ".git", "HEAD"): "ref: refs/heads/" + ownerBranch + "\n",
		pf.file:                                "the owner's notes\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(pf.cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	return pf
}

// sendAs posts a hook event with header's credentials (nil: the worker's
// secret, the owner) and returns the status and body.
func sendAs(t *testing.T, srv *testutil.Server, header http.Header, slug string, payload map[string]any) (int, []byte) {
	t.Helper()
	return srv.Do(t, http.MethodPost, "/api/hooks/"+slug, payload, header)
}

// sessionAs is GET /api/sessions/:id with header's credentials.
func sessionAs(t *testing.T, srv *testutil.Server, header http.Header, claudeID string) (api.SessionDetail, []byte) {
	t.Helper()
	status, body := srv.Do(t, http.MethodGet, "/api/sessions/"+claudeID, nil, header)
	var d api.SessionDetail
	if status != http.StatusOK || json.Unmarshal(body, &d) != nil || d.Session == nil {
		t.Fatalf("GET /api/sessions/%s: %d %s", claudeID, status, body)
	}
	return d, body
}

// Issue 21, point 9: a person's events name paths of the worker's machine
// (a private transcript, a private repository as cwd, a private file in a
// tool's input); the worker opens none of them. The same events from the
// owner are read, which shows the files are readable: the person's
// session gets no message from the transcript, no branch, the base name
// of cwd as project, no file state, and the file gate answers nothing.
func TestPersonOpensNoWorkerPath(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	alice := createToken(t, srv, "alice")
	pf := makePrivateFiles(t)
	for _, who := range []struct {
		sid    string
		header http.Header
	}{{"paths-owner", nil}, {"paths-alice", as(alice.Token)}} {
		base := map[string]any{"session_id": who.sid, "cwd": pf.cwd, "transcript_path": pf.transcript}
		with := func(extra map[string]any) map[string]any {
			m := map[string]any{}
			for k, v := range base {
				m[k] = v
			}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		for _, ev := range []struct {
			slug    string
			payload map[string]any
		}{
			{"session-start", with(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})},
			{"user-prompt-submit", with(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit the notes", "prompt_id": who.sid + "-p1"})},
			{"post-tool-use-failure", with(map[string]any{"hook_event_name": "PostToolUseFailure", "prompt_id": who.sid + "-p1", "tool_name": "Edit",
				"tool_input": map[string]any{"file_path": pf.file, "old_string": "a", "new_string": "b"}, "tool_use_id": who.sid + "-t1", "error": "old_string not found"})},
			{"post-tool-use", with(map[string]any{"hook_event_name": "PostToolUse", "prompt_id": who.sid + "-p1", "tool_name": "Read",
				"tool_input": map[string]any{"file_path": pf.file}, "tool_response": map[string]any{"type": "text"}, "tool_use_id": who.sid + "-t2"})},
			{"stop", with(map[string]any{"hook_event_name": "Stop", "prompt_id": who.sid + "-p1"})},
		} {
			if status, body := sendAs(t, srv, who.header, ev.slug, ev.payload); status != http.StatusOK {
				t.Fatalf("%s of %s: %d %s", ev.slug, who.sid, status, body)
			}
		}
	}

	owner, _ := sessionAs(t, srv, nil, "paths-owner")
	if owner.Session.LastAssistantMessage != ownerAnswer || owner.Session.GitBranch != ownerBranch || owner.Session.Project != "secret-repo" {
		t.Fatalf("the owner's own events did not read the files (the test proves nothing): %+v", owner.Session)
	}
	if n := fileStates(t, srv, owner); n == 0 {
		t.Fatal("the owner's tool events recorded no file state (the test proves nothing)")
	}

	d, body := sessionAs(t, srv, as(alice.Token), "paths-alice")
	if bytes.Contains(body, []byte("OWNER-PRIVATE-ANSWER")) || bytes.Contains(body, []byte(ownerBranch)) {
		t.Errorf("a person's event made the worker read its files: %s", body)
	}
	if d.Session.LastAssistantMessage != "" || d.Session.GitBranch != "" || d.Session.Project != "sub" {
		t.Errorf("alice's session: message %q, branch %q, project %q; want none, none and cwd's base name",
			d.Session.LastAssistantMessage, d.Session.GitBranch, d.Session.Project)
	}
	if len(d.Observations) != 2 {
		t.Fatalf("alice's observations: %+v", d.Observations)
	}
	if n := fileStates(t, srv, d); n != 0 {
		t.Errorf("alice's tool events recorded %d file states of the worker's files", n)
	}
	status, gate := sendAs(t, srv, as(alice.Token), "pre-tool-use", map[string]any{"session_id": "paths-alice", "cwd": pf.cwd,
		"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": pf.file}})
	if status != http.StatusOK || bytes.Contains(gate, []byte("additionalContext")) {
		t.Errorf("the file gate answered a person about a file of the worker's machine: %d %s", status, gate)
	}
}

// fileStates counts the file states recorded for the session's
// observations.
func fileStates(t *testing.T, srv *testutil.Server, d api.SessionDetail) int {
	t.Helper()
	var ids []int64
	for _, o := range d.Observations {
		ids = append(ids, o.ID)
	}
	states, err := srv.Store.FileStatesOf(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ss := range states {
		n += len(ss)
	}
	return n
}

// Issue 21, point 9: a person sees the transcript path of their own
// sessions only: not the owner's, not another person's, in the session
// list, a session, its timeline or any export. The owner sees them all.
func TestPersonSeesNoOthersTranscriptPath(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	alice, bob := createToken(t, srv, "alice"), createToken(t, srv, "bob")
	paths := map[string]string{
		"tp-owner": "/home/owner/.claude/projects/x/owner-tp.jsonl",
		"tp-alice": "/home/alice/.claude/projects/x/alice-tp.jsonl",
		"tp-bob":   "/home/bob/.claude/projects/x/bob-tp.jsonl",
	}
	who := map[string]http.Header{"tp-owner": nil, "tp-alice": as(alice.Token), "tp-bob": as(bob.Token)}
	for sid, path := range paths {
		for _, ev := range []struct {
			slug  string
			extra map[string]any
		}{
			{"session-start", map[string]any{"source": "startup"}},
			{"user-prompt-submit", map[string]any{"prompt": "work on tp", "prompt_id": sid + "-p"}},
			{"post-tool-use", map[string]any{"prompt_id": sid + "-p", "tool_name": "Bash", "tool_use_id": sid + "-t",
				"tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "a", "stderr": ""}}},
		} {
			payload := map[string]any{"session_id": sid, "cwd": "/src/tp", "transcript_path": path, "project": "tp"}
			for k, v := range ev.extra {
				payload[k] = v
			}
			if status, body := sendAs(t, srv, who[sid], ev.slug, payload); status != http.StatusOK {
				t.Fatalf("%s of %s: %d %s", ev.slug, sid, status, body)
			}
		}
	}
	today := time.Now().UTC().Format("2006-01-02")
	reads := func(sid string) []string {
		s := sessionRow(t, srv, sid)
		return []string{
			"/api/sessions", "/api/sessions?project=tp&limit=100", "/api/sessions/" + sid, fmt.Sprintf("/api/sessions/%d", s.ID),
			fmt.Sprintf("/api/timeline?session=%d", s.ID),
			"/api/sessions/" + sid + "/export?format=json", "/api/sessions/" + sid + "/export?format=md", "/api/sessions/" + sid + "/export?format=html",
			"/api/export?project=tp&since=" + today + "&format=json", "/api/export?project=tp&since=" + today + "&format=md",
		}
	}
	for reader, header := range map[string]http.Header{"alice": as(alice.Token), "owner": nil} {
		for sid := range paths {
			for _, path := range reads(sid) {
				status, body := srv.Do(t, http.MethodGet, path, nil, header)
				if status != http.StatusOK {
					t.Fatalf("%s: GET %s: %d %s", reader, path, status, body)
				}
				for owner, tp := range paths {
					shown := bytes.Contains(body, []byte(tp))
					mayShow := reader == "owner" || owner == "tp-alice"
					if shown && !mayShow {
						t.Errorf("%s sees the transcript path of %s in GET %s", reader, owner, path)
					}
					if !shown && mayShow && owner == sid && strings.Contains(path, "format=json") {
						t.Errorf("%s does not see the transcript path of %s in GET %s", reader, owner, path)
					}
				}
			}
		}
	}
}

// Issue 21, point 10: a session takes events only from whoever captured
// it. Another person's events for it, or the owner's for a person's, are
// refused with a 403 (permanent: the hook drops it, nothing is spooled),
// and the session is untouched byte for byte: its detail, its row and the
// event log. Its own captor goes on writing into it.
func TestSessionTakesOnlyItsCaptorsEvents(t *testing.T) {
	srv := testutil.NewServer(t)
	alice, bob := createToken(t, srv, "alice"), createToken(t, srv, "bob")
	owned := func(sid string, header http.Header) {
		t.Helper()
		for _, ev := range []struct {
			slug  string
			extra map[string]any
		}{
			{"session-start", map[string]any{"source": "startup"}},
			{"user-prompt-submit", map[string]any{"prompt": "the captor's prompt", "prompt_id": sid + "-p1"}},
			{"post-tool-use", map[string]any{"prompt_id": sid + "-p1", "tool_name": "Bash", "tool_use_id": sid + "-t1",
				"tool_input": map[string]any{"command": "make"}, "tool_response": map[string]any{"stdout": "ok", "stderr": ""}}},
			{"stop", map[string]any{"prompt_id": sid + "-p1", "last_assistant_message": "the captor's answer"}},
		} {
			payload := map[string]any{"session_id": sid, "cwd": "/src/own"}
			for k, v := range ev.extra {
				payload[k] = v
			}
			if status, body := sendAs(t, srv, header, ev.slug, payload); status != http.StatusOK {
				t.Fatalf("%s of %s: %d %s", ev.slug, sid, status, body)
			}
		}
	}
	owned("own-1", nil)
	owned("alice-1", as(alice.Token))
	// A session the capture pipeline has not cached: its owner is read
	// from the row.
	if err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		_, err := tx.EnsureSession(&models.Session{ClaudeSessionID: "own-2", Project: "own", Cwd: "/src/own", Source: "startup"})
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// The captors' Stops queued turn summaries: written before the
	// snapshots are taken.
	for _, sid := range []string{"own-1", "alice-1"} {
		id := sessionRow(t, srv, sid).ID
		waitFor(t, "the turn summary of "+sid, func() bool {
			sums, err := srv.Store.SummariesOfSession(t.Context(), id)
			return err == nil && len(sums) > 0
		})
	}
	type snapshot struct {
		detail []byte
		row    models.Session
	}
	snap := func(sid string) snapshot {
		_, body := sessionAs(t, srv, nil, sid)
		return snapshot{body, *sessionRow(t, srv, sid)}
	}
	before := map[string]snapshot{"own-1": snap("own-1"), "own-2": snap("own-2"), "alice-1": snap("alice-1")}
	logBefore := logEvents(t, srv)

	intruders := []struct {
		name   string
		header http.Header
		sid    string
	}{
		{"alice", as(alice.Token), "own-1"}, {"alice", as(alice.Token), "own-2"},
		{"bob", as(bob.Token), "alice-1"}, {"owner", nil, "alice-1"},
	}
	for _, in := range intruders {
		for _, ev := range []struct {
			slug  string
			extra map[string]any
		}{
			{"session-start", map[string]any{"source": "resume"}},
			{"user-prompt-submit", map[string]any{"prompt": "INTRUDER prompt", "prompt_id": "x-p"}},
			{"post-tool-use", map[string]any{"prompt_id": "x-p", "tool_name": "Bash", "tool_use_id": "x-" + in.name + in.sid,
				"tool_input": map[string]any{"command": "INTRUDER"}, "tool_response": map[string]any{"stdout": "", "stderr": ""}}},
			{"post-tool-use-failure", map[string]any{"prompt_id": "x-p", "tool_name": "Bash", "tool_use_id": "xf-" + in.name + in.sid,
				"tool_input": map[string]any{"command": "INTRUDER"}, "error": "INTRUDER"}},
			{"stop", map[string]any{"last_assistant_message": "INTRUDER overwrite"}},
			{"session-end", map[string]any{"reason": "INTRUDER"}},
		} {
			payload := map[string]any{"session_id": in.sid, "cwd": "/src/own"}
			for k, v := range ev.extra {
				payload[k] = v
			}
			status, body := sendAs(t, srv, in.header, ev.slug, payload)
			if status != http.StatusForbidden || !strings.Contains(string(body), "belongs to someone else") {
				t.Errorf("%s's %s into %s: %d %s, want 403", in.name, ev.slug, in.sid, status, body)
			}
		}
	}
	for sid, was := range before {
		now := snap(sid)
		if !bytes.Equal(now.detail, was.detail) {
			t.Errorf("session %s changed:\nbefore %s\nafter  %s", sid, was.detail, now.detail)
		}
		if now.row != was.row {
			t.Errorf("session %s's row changed: %+v, was %+v", sid, now.row, was.row)
		}
	}
	if logAfter := logEvents(t, srv); len(logAfter) != len(logBefore) {
		t.Errorf("the refused events logged %d events", len(logAfter)-len(logBefore))
	}

	// Through alice's real hook (MNEME_URL, her token): the 403 is
	// dropped, not spooled, and the hook says why under MNEME_DEBUG.
	dataDir := t.TempDir()
	t.Setenv(hookwire.EnvURL, srv.URL)
	t.Setenv(hookwire.EnvToken, alice.Token)
	t.Setenv(hookwire.EnvDebug, "1")
	var stdout, stderr bytes.Buffer
	hooks.NewClient(hooks.Options{DataDir: dataDir, Remote: hookhttp.Sender}, &stderr).Run("stop",
		strings.NewReader(`{"session_id":"own-1","cwd":"/src/own","hook_event_name":"Stop","last_assistant_message":"INTRUDER via the hook"}`), &stdout)
	if strings.TrimSpace(stdout.String()) != hookwire.ContinueJSON || !strings.Contains(stderr.String(), "403") {
		t.Errorf("alice's hook printed %q, logged %q", stdout.String(), stderr.String())
	}
	if (hookwire.Spool{Dir: filepath.Join(dataDir, hookwire.RemoteSpoolDir)}).Pending() {
		t.Error("the refused event was spooled")
	}
	if now := snap("own-1"); !bytes.Equal(now.detail, before["own-1"].detail) {
		t.Errorf("the hook's event changed the owner's session: %s", now.detail)
	}

	// The captor still writes into its own session.
	if status, body := sendAs(t, srv, as(alice.Token), "stop", map[string]any{"session_id": "alice-1", "last_assistant_message": "alice again"}); status != http.StatusOK {
		t.Errorf("alice into her own session: %d %s", status, body)
	}
	if got := sessionRow(t, srv, "alice-1").LastAssistantMessage; got != "alice again" {
		t.Errorf("alice's session's last message %q", got)
	}
}

// Issue 21, point 9: with the worker opening none of a person's paths,
// their hook (MNEME_URL and their token) reads them itself: a Stop
// without last_assistant_message stores the last message of the
// teammate's own transcript, and the session gets the project and branch
// of their repository, as a local worker would have found them.
func TestPersonHookSendsOwnFacts(t *testing.T) {
	srv := testutil.NewServer(t)
	carol := createToken(t, srv, "carol")
	pf := makePrivateFiles(t) // here: the teammate's own files
	dataDir := t.TempDir()
	t.Setenv(hookwire.EnvURL, srv.URL)
	t.Setenv(hookwire.EnvToken, carol.Token)
	t.Setenv(hookwire.EnvDebug, "1")
	for _, ev := range []struct{ slug, body string }{
		{"session-start", `{"session_id":"carol-1","hook_event_name":"SessionStart","source":"startup"}`},
		{"stop", `{"session_id":"carol-1","hook_event_name":"Stop","stop_hook_active":false}`},
	} {
		var m map[string]any
		json.Unmarshal([]byte(ev.body), &m)
		m["cwd"], m["transcript_path"] = pf.cwd, pf.transcript
		body, _ := json.Marshal(m)
		var stdout, stderr bytes.Buffer
		hooks.NewClient(hooks.Options{DataDir: dataDir, Remote: hookhttp.Sender}, &stderr).Run(ev.slug, bytes.NewReader(body), &stdout)
		if stderr.Len() > 0 {
			t.Errorf("%s: the hook logged %s", ev.slug, stderr.String())
		}
	}
	s := sessionRow(t, srv, "carol-1")
	if s.LastAssistantMessage != ownerAnswer || s.Project != "secret-repo" || s.GitBranch != ownerBranch || s.CapturedBy != "carol" {
		t.Errorf("carol's session: message %q, project %q, branch %q, by %q", s.LastAssistantMessage, s.Project, s.GitBranch, s.CapturedBy)
	}
}

// streamEnds waits until the stream r was ended by the worker, and says
// how long that took after since.
func streamEnds(t *testing.T, name string, r *rawSSE, since time.Time) {
	t.Helper()
	select {
	case <-r.done:
		t.Logf("%s ended %s after the revocation", name, time.Since(since).Round(time.Millisecond))
	case <-time.After(60 * time.Second):
		t.Fatalf("%s still open %s after its token was revoked", name, time.Since(since).Round(time.Millisecond))
	}
}

// revoke revokes token id through srv.
func revoke(t *testing.T, srv *testutil.Server, id int64) time.Time {
	t.Helper()
	at := time.Now()
	if status, body := srv.Do(t, http.MethodDelete, fmt.Sprintf("/api/tokens/%d", id), nil, nil); status != http.StatusOK {
		t.Fatalf("revoke: %d %s", status, body)
	}
	return at
}

// Issue 21, point 11: revoking a token ends the streams it opened, at
// once (StreamOptions.TokenCheck, 1 s), while another person's and the
// owner's streams go on; the token cannot open a new one. On SQLite, and
// on PostgreSQL in the matrix's PostgreSQL run.
func TestRevokeEndsPersonStreams(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	alice, bob := createToken(t, srv, "alice"), createToken(t, srv, "bob")
	ra := openRaw(t, srv, "/stream", as(alice.Token))
	rb := openRaw(t, srv, "/stream", as(bob.Token))
	ro := openRaw(t, srv, "/stream", nil)
	waitClients(t, srv, 3)
	prompt(t, srv, "rev-1", "rev", "before the revocation")
	for _, r := range []*rawSSE{ra, rb, ro} {
		r.next(t, 2) // session_started, prompt
	}

	at := revoke(t, srv, alice.ID)
	streamEnds(t, "alice's stream", ra, at)
	prompt(t, srv, "rev-1", "rev", "after the revocation")
	if got := rb.next(t, 1); got[0].Event != models.EventPrompt {
		t.Errorf("bob's stream after alice's revocation: %+v", got)
	}
	if got := ro.next(t, 1); got[0].Event != models.EventPrompt {
		t.Errorf("the owner's stream after alice's revocation: %+v", got)
	}
	if status, body := srv.Do(t, http.MethodGet, "/stream", nil, as(alice.Token)); status != http.StatusUnauthorized {
		t.Errorf("a revoked token opens /stream: %d %s", status, body)
	}
}

// Issue 21, point 11, on two replicas of one PostgreSQL database: a token
// revoked through replica A ends its streams on A and on B, at once; a
// stream of another person on B goes on.
func TestRevokeEndsStreamsOnEveryReplica(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	url := pgtest.URL(t)
	a := testutil.NewServer(t, testutil.FastStream, onDatabase(url))
	b := testutil.NewServer(t, testutil.FastStream, onDatabase(url))
	alice, bob := createToken(t, a, "alice"), createToken(t, b, "bob")
	ra, rb := openRaw(t, a, "/stream", as(alice.Token)), openRaw(t, b, "/stream", as(alice.Token))
	bobB := openRaw(t, b, "/stream", as(bob.Token))
	waitClients(t, a, 1)
	waitClients(t, b, 2)
	prompt(t, a, "rev-r", "rev", "before the revocation")
	for _, r := range []*rawSSE{ra, rb, bobB} {
		r.next(t, 2)
	}

	at := revoke(t, a, alice.ID)
	streamEnds(t, "alice's stream on A", ra, at)
	streamEnds(t, "alice's stream on B", rb, at)
	prompt(t, a, "rev-r", "rev", "after the revocation")
	if got := bobB.next(t, 1); got[0].Event != models.EventPrompt {
		t.Errorf("bob's stream on B after alice's revocation: %+v", got)
	}
	if status, _ := b.Do(t, http.MethodGet, "/stream", nil, as(alice.Token)); status != http.StatusUnauthorized {
		t.Errorf("the revoked token opens /stream on B: %d", status)
	}
}
