package handlers_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/privacy"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// The fixture session's ids.
const (
	fixSession = "f0373ac4-95a4-4996-a7f7-2576f5e8c9ca"
	fixPrompt  = "28fea2f0-86e8-4b02-8d46-09096ddbf3b5"
	failSessID = "386eb006-6565-439e-8d26-ed519df804d6"
)

// rowCounts counts every table ingest writes to (summary events come from
// the asynchronous summarizer and are left out).
type rowCounts struct {
	Sessions, Prompts, PrivatePrompts, Observations, Events int64
}

func countRows(t *testing.T, srv *testutil.Server) rowCounts {
	t.Helper()
	var c rowCounts
	modelstest.Row(t, srv.Store, []any{&c.Sessions, &c.Prompts, &c.PrivatePrompts, &c.Observations, &c.Events},
		`SELECT (SELECT COUNT(*) FROM sessions), (SELECT COUNT(*) FROM prompts),
		(SELECT COUNT(*) FROM private_prompts), (SELECT COUNT(*) FROM observations), (SELECT COUNT(*) FROM events WHERE kind != 'summary')`)
	return c
}

func sessionRow(t *testing.T, srv *testutil.Server, claudeID string) *models.Session {
	t.Helper()
	out, err := srv.Store.SessionByClaudeID(t.Context(), claudeID)
	if err != nil {
		t.Fatalf("session %s: %v", claudeID, err)
	}
	return out
}

func observationsOf(t *testing.T, srv *testutil.Server, sessionID int64) []models.Observation {
	t.Helper()
	var out []models.Observation
	modelstest.Scan(t, srv.Store, &out, `SELECT * FROM observations WHERE session_id = ? ORDER BY id`, sessionID)
	return out
}

// eventKinds lists the capture events of a session (summaries come from the
// asynchronous summarizer and are left out).
func eventKinds(t *testing.T, srv *testutil.Server, sessionID int64) []string {
	t.Helper()
	var kinds []string
	modelstest.Scan(t, srv.Store, &kinds, `SELECT kind FROM events WHERE session_id = ? AND kind != 'summary' ORDER BY id`, sessionID)
	return kinds
}

// fixtureEvent is one fixture line as a map, to alter before sending.
func fixtureEvent(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func slugOf(m map[string]any) string { return hookwire.EventSlug(m["hook_event_name"].(string)) }

// dbBytes is everything the worker's store holds (testutil.StoredBytes).
func dbBytes(t *testing.T, srv *testutil.Server) []byte {
	t.Helper()
	return testutil.StoredBytes(t, srv.Store)
}

func TestIngestFixtureSession(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	events := testutil.FixtureEvents(t)
	for i, raw := range events {
		m := fixtureEvent(t, raw)
		out := srv.Hook(t, slugOf(m), raw)
		var o shape.Output
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatalf("event %d: answer is not hook JSON: %s", i, out)
		}
		if m["hook_event_name"] != "SessionStart" && m["hook_event_name"] != "UserPromptSubmit" && string(bytes.TrimSpace(out)) != hookwire.ContinueJSON {
			t.Errorf("%s must answer %s, got %s", m["hook_event_name"], hookwire.ContinueJSON, out)
		}
	}

	s := sessionRow(t, srv, fixSession)
	if s.Project != "notes-app" || s.Cwd != "/home/dev/projects/notes-app" || s.Source != "startup" {
		t.Errorf("session identity: project %q cwd %q source %q", s.Project, s.Cwd, s.Source)
	}
	if s.Status != models.StatusCompleted || s.EndReason != "other" || s.EndedAt == nil {
		t.Errorf("SessionEnd: status %q reason %q ended %v", s.Status, s.EndReason, s.EndedAt)
	}
	if s.PromptCounter != 1 || s.LastAssistantMessage != "All four steps are finished." {
		t.Errorf("counter %d, last message %q", s.PromptCounter, s.LastAssistantMessage)
	}
	if !strings.HasSuffix(s.TranscriptPath, fixSession+".jsonl") {
		t.Errorf("transcript path %q", s.TranscriptPath)
	}

	var prompts []models.Prompt
	modelstest.Scan(t, srv.Store, &prompts, `SELECT * FROM prompts WHERE session_id = ? ORDER BY id`, s.ID)
	if len(prompts) != 1 || prompts[0].Text != "write notes please" || prompts[0].Number != 1 || prompts[0].PromptID != fixPrompt {
		t.Errorf("prompts: %+v", prompts)
	}

	obs := observationsOf(t, srv, s.ID)
	want := []struct {
		tool, kind, title string
		importance        float64
		output            string
	}{
		{"Bash", models.KindBash, "Ran `echo hello-from-fake`: hello-from-fake", shape.ImportanceOther, "hello-from-fake"},
		{"Write", models.KindFileChange, "Created notes.md (2 lines)", shape.ImportanceFileChange, "# Notes\nsecret  done"},
		{"Read", models.KindRead, "Read notes.md (3 lines)", shape.ImportanceRead, ""}, // readTools=metadata: no content
		{"Edit", models.KindFileChange, "Edited notes.md (+1 −1)", shape.ImportanceFileChange, "+secret  finished"},
	}
	if len(obs) != len(want) {
		t.Fatalf("%d observations, want %d: %+v", len(obs), len(want), obs)
	}
	for i, w := range want {
		o := obs[i]
		if o.ToolName != w.tool || o.Kind != w.kind || o.Title != w.title || o.Importance != w.importance || !o.Success || o.PromptNumber != 1 {
			t.Errorf("observation %d: %s %s %q imp %v success %v prompt %d; want %s %s %q imp %v",
				i, o.ToolName, o.Kind, o.Title, o.Importance, o.Success, o.PromptNumber, w.tool, w.kind, w.title, w.importance)
		}
		if w.output != "" && !strings.Contains(o.Output, w.output) {
			t.Errorf("observation %d output %q lacks %q", i, o.Output, w.output)
		}
		if w.output == "" && o.Output != "" {
			t.Errorf("observation %d: a read in metadata mode stores no content, got %q", i, o.Output)
		}
		if o.ToolUseID == nil || *o.ToolUseID == "" {
			t.Errorf("observation %d has no tool_use_id", i)
		}
	}
	if len(obs[1].Files) != 1 || obs[1].Files[0] != "/home/dev/projects/notes-app/notes.md" {
		t.Errorf("files of the Write: %q", obs[1].Files)
	}

	wantKinds := []string{"session_started", "prompt", "observation", "observation", "observation", "observation", "session_completed"}
	if got := eventKinds(t, srv, s.ID); strings.Join(got, ",") != strings.Join(wantKinds, ",") {
		t.Errorf("events %v, want %v", got, wantKinds)
	}

	// The failure fixture belongs to another session, created by it.
	data, err := os.ReadFile(filepath.Join(testutil.FixtureDir(t), "post-tool-use-failure.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Hook(t, "post-tool-use-failure", data)
	fs := sessionRow(t, srv, failSessID)
	fobs := observationsOf(t, srv, fs.ID)
	if len(fobs) != 1 {
		t.Fatalf("failure: %d observations", len(fobs))
	}
	f := fobs[0]
	if f.Success || f.Importance != 1.0 || f.Kind != models.KindFailure || f.DurationMS != 42 ||
		f.Title != "`echo hello-from-fake && ls /nonexistent-dir`: ls: cannot access '/nonexistent-dir': No such file or directory (exit 2)" || !strings.Contains(f.Output, "No such file or directory") {
		t.Errorf("failure observation: %+v", f)
	}
	if fs.Status != models.StatusActive || fs.Project != "notes-app" {
		t.Errorf("session created by a failure: %+v", fs)
	}

	// The health counts reflect it all.
	var h struct {
		Counts models.Counts `json:"counts"`
	}
	srv.GetJSON(t, "/api/health", &h)
	if h.Counts.Sessions != 2 || h.Counts.Prompts != 1 || h.Counts.Observations != 5 {
		t.Errorf("health counts %+v", h.Counts)
	}
}

// A session is created by whichever event arrives first: here PostToolUse,
// with no SessionStart at all, and the prompt later.
func TestIngestSessionCreatedByFirstEvent(t *testing.T) {
	t.Parallel()
	for _, first := range []int{2, 1, 6, 7} { // PostToolUse, UserPromptSubmit, Stop, SessionEnd
		srv := testutil.NewServer(t)
		events := testutil.FixtureEvents(t)
		m := fixtureEvent(t, events[first])
		name := m["hook_event_name"].(string)
		t.Run(name, func(t *testing.T) {
			srv.Hook(t, slugOf(m), events[first])
			s := sessionRow(t, srv, fixSession)
			if s.Project != "notes-app" || s.Status == "" || s.StartedAt.IsZero() {
				t.Errorf("session created by %s: %+v", name, s)
			}
			if kinds := eventKinds(t, srv, s.ID); len(kinds) == 0 || kinds[0] != models.EventSessionStarted {
				t.Errorf("the first event of a session is session_started, got %v", kinds)
			}
			// The rest of the fixture then lands in the same session.
			for i, raw := range events {
				if i != first {
					srv.Hook(t, slugOf(fixtureEvent(t, raw)), raw)
				}
			}
			if c := countRows(t, srv); c.Sessions != 1 || c.Prompts != 1 || c.Observations != 4 {
				t.Errorf("after the whole fixture: %+v", c)
			}
			if n := strings.Count(strings.Join(eventKinds(t, srv, s.ID), ","), models.EventSessionStarted); n != 1 {
				t.Errorf("session_started announced %d times", n)
			}
		})
	}
}

func TestIngestPromptCounter(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for i, id := range []string{"p1", "p2", "p3"} {
		srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "counter", "cwd": "/tmp/proj", "prompt_id": id, "prompt": "prompt " + id})
		if s := sessionRow(t, srv, "counter"); s.PromptCounter != i+1 {
			t.Fatalf("after %d prompts the counter is %d", i+1, s.PromptCounter)
		}
	}
	// A tool call of the second prompt is numbered by its prompt_id, even
	// when it arrives after the third prompt.
	srv.Hook(t, "post-tool-use", map[string]any{"session_id": "counter", "cwd": "/tmp/proj", "prompt_id": "p2",
		"tool_name": "Bash", "tool_use_id": "late", "tool_input": map[string]any{"command": "true"}, "tool_response": map[string]any{"stdout": ""}})
	s := sessionRow(t, srv, "counter")
	if obs := observationsOf(t, srv, s.ID); len(obs) != 1 || obs[0].PromptNumber != 2 {
		t.Errorf("late tool call: %+v", obs)
	}
}

func TestIngestStopReadsTranscript(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	src, err := os.ReadFile(filepath.Join(testutil.FixtureDir(t), "session-basic.transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(transcript, src, 0o600)
	stop := map[string]any{"session_id": "transcript", "cwd": "/tmp/proj", "hook_event_name": "Stop", "transcript_path": transcript, "stop_hook_active": false}
	srv.Hook(t, "stop", stop)
	if got := sessionRow(t, srv, "transcript").LastAssistantMessage; got != "All four steps are finished." {
		t.Errorf("last assistant message from the transcript: %q", got)
	}

	// A later turn ends with a system reminder and a secret: both removed.
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Deployed with password=hunter22 <system-reminder>internal note</system-reminder>"}]}}` + "\n")
	f.WriteString(`{"type":"system","content":"after"}` + "\n")
	f.Close()
	srv.Hook(t, "stop", stop)
	if got := sessionRow(t, srv, "transcript").LastAssistantMessage; got != "Deployed with password=[REDACTED:secret_assignment]" {
		t.Errorf("second turn: %q", got)
	}

	// A missing transcript is not an error.
	stop["transcript_path"] = filepath.Join(t.TempDir(), "gone.jsonl")
	srv.Hook(t, "stop", stop)
}

// privateMarker appears only inside <private> tags in what is sent.
const privateMarker = "hunter2"

func TestIngestPrivateContentNeverStored(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for _, raw := range testutil.FixtureEvents(t) {
		srv.Hook(t, slugOf(fixtureEvent(t, raw)), raw)
	}
	// Tags in every field a tool call carries, in every case and form.
	srv.Hook(t, "post-tool-use", map[string]any{
		"session_id": fixSession, "cwd": "/home/dev/projects/notes-app", "prompt_id": fixPrompt,
		"tool_name": "mcp__notes__save", "tool_use_id": "toolu_private",
		"tool_input":    map[string]any{"title": "<PRIVATE>hunter2</PRIVATE>", "nested": []any{"a <private note=1>hunter2</private> b"}},
		"tool_response": map[string]any{"text": "<system-reminder>hunter2</system-reminder> ok <mneme-context>hunter2</mneme-context>"},
	})
	srv.Hook(t, "stop", map[string]any{"session_id": fixSession, "last_assistant_message": "done <private>hunter2</private>"})

	if c := countRows(t, srv); c.Observations != 5 {
		t.Fatalf("observations: %+v", c)
	}
	raw := dbBytes(t, srv)
	if i := bytes.Index(raw, []byte(privateMarker)); i >= 0 {
		t.Fatalf("private text %q found in the database files at byte %d: …%q…", privateMarker, i, raw[max(0, i-60):min(len(raw), i+20)])
	}
	if !bytes.Contains(raw, []byte("write notes please")) {
		t.Fatal("sanity: the public part of the prompt must be in the database bytes")
	}
}

func TestIngestFullyPrivatePrompt(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const sess = "private-turn"
	tool := func(promptID, id, out string) map[string]any {
		m := map[string]any{"session_id": sess, "cwd": "/tmp/proj", "tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": "cat notes"}, "tool_response": map[string]any{"stdout": out}}
		if promptID != "" {
			m["prompt_id"] = promptID
		}
		return m
	}
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": sess, "cwd": "/tmp/proj", "prompt_id": "p1", "prompt": "public one"})
	srv.Hook(t, "post-tool-use", tool("p1", "t1", "first turn output"))
	before := countRows(t, srv)

	out := srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": sess, "cwd": "/tmp/proj", "prompt_id": "p2",
		"prompt": "  <private>the launch code is zebra-42</private>\n "})
	if string(bytes.TrimSpace(out)) != hookwire.ContinueJSON {
		t.Errorf("a private prompt gets no context: %s", out)
	}
	srv.Hook(t, "post-tool-use", tool("p2", "t2", "zebra-42 output of the private turn"))
	srv.Hook(t, "post-tool-use-failure", map[string]any{"session_id": sess, "cwd": "/tmp/proj", "prompt_id": "p2",
		"tool_name": "Bash", "tool_use_id": "t3", "tool_input": map[string]any{"command": "false"}, "error": "zebra-42 failed"})
	srv.Hook(t, "stop", map[string]any{"session_id": sess, "prompt_id": "p2", "last_assistant_message": "zebra-42 is safe"})
	// Without a prompt_id (as compat scripts send), the tool call belongs to
	// the current prompt, which is private.
	srv.Hook(t, "post-tool-use", tool("", "t4", "zebra-42 again"))

	after := countRows(t, srv)
	if after.Prompts != before.Prompts || after.Observations != before.Observations {
		t.Errorf("a private turn stores no prompt and no observation: before %+v after %+v", before, after)
	}
	if after.PrivatePrompts != 1 {
		t.Errorf("the private prompt number is remembered: %+v", after)
	}
	if bytes.Contains(dbBytes(t, srv), []byte("zebra-42")) {
		t.Error("the private turn's content reached the database files")
	}

	// The next public prompt is number 3 and recorded as usual.
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": sess, "cwd": "/tmp/proj", "prompt_id": "p3", "prompt": "public three"})
	srv.Hook(t, "post-tool-use", tool("p3", "t5", "third"))
	s := sessionRow(t, srv, sess)
	obs := observationsOf(t, srv, s.ID)
	if s.PromptCounter != 3 || len(obs) != 2 || obs[1].PromptNumber != 3 {
		t.Errorf("after the private turn: counter %d, observations %+v", s.PromptCounter, obs)
	}
}

// e2eSecrets has one realistic secret per built-in rule, and the part of it
// that must never be stored.
var e2eSecrets = map[string][2]string{
	"pem_private_key":       {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"},
	"aws_access_key":        {"AKIAZ7QWERTYUIOP1234", "AKIAZ7QWERTYUIOP1234"},
	"aws_secret_key":        {"AWS_SECRET_ACCESS_KEY=Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA9876", "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA9876"},
	"github_token":          {"ghp_Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA", "ghp_Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA"},
	"anthropic_key":         {"sk-ant-api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0f", "sk-ant-api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0f"},
	"openai_key":            {"sk-proj-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE", "sk-proj-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE"},
	"slack_token":           {"xoxp-Zx9yW8vU7tS6rQ5pO4nM", "xoxp-Zx9yW8vU7tS6rQ5pO4nM"},
	"jwt":                   {"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ6eDl5dzgifQ.Zx9yW8vU7tS6rQ5pO4nM3lK2", "Zx9yW8vU7tS6rQ5pO4nM3lK2"},
	"bearer_token":          {"Authorization: Bearer Zx9yW8vU7tS6rQ5pO4nM", "Zx9yW8vU7tS6rQ5pO4nM"},
	"url_credentials":       {"https://deploy:Zx9yW8vU7tS6rQ5p@git.example.com/repo.git", "Zx9yW8vU7tS6rQ5p"},
	"secret_assignment":     {"db_password: Zx9yW8vU7tS6", "Zx9yW8vU7tS6"},
	"stripe_key":            {"sk_live_Zx9yW8vU7tS6rQ5pO4nM3lK2", "Zx9yW8vU7tS6rQ5pO4nM3lK2"},
	"google_api_key":        {"AIzaZx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCb", "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCb"},
	"slack_webhook":         {"https://hooks.slack.com/services/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", "Zx9yW8vU7tS6rQ5pO4nM3lK2"},
	"npm_token":             {"npm_Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA", "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA"},
	"huggingface_token":     {"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", "ZxyWvUtSrQpOnMlKjIhGfEdCbAzyxwvuts"},
	"mneme_token":           {"mneme_pt_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
	"sentry_dsn":            {"https://0123456789abcdef0123456789abcdef@o42.ingest.sentry.io/4242", "0123456789abcdef0123456789abcdef"},
	"env_secret":            {"DEPLOY_TOKEN=Zx9yW8vU7tS6rQ5p", "Zx9yW8vU7tS6rQ5p"},
	"basic_auth":            {"Authorization: Basic WngleVc4dlU3dFM2clE1cA==", "WngleVc4dlU3dFM2clE1cA"},
	"azure_key":             {"AccountName=acme;AccountKey=Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0f=;", "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0f"},
	"conn_string_password":  {"Server=db;User Id=sa;Password=Zx9yW8vU7tS6;", "Zx9yW8vU7tS6"},
	"yaml_secret":           {"\nauth:\n  session_token: Zx9yW8vU7tS6rQ5p\n", "Zx9yW8vU7tS6rQ5p"},
	"json_secret_member":    {`resp={"session_token":"Zx9yW8vU7tS6rQ5p"}`, "Zx9yW8vU7tS6rQ5p"},
	"gitlab_token":          {"glpat-Zx9yW8vU7tS6rQ5pO4nM", "Zx9yW8vU7tS6rQ5pO4nM"},
	"pypi_token":            {"pypi-AgEIcHlwaS5vcmcCJZx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA", "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA"},
	"vault_token":           {"hvs.CAESIZx9yW8vU7tS6rQ5pO4nM3lK2", "Zx9yW8vU7tS6rQ5pO4nM3lK2"},
	"curl_user_password":    {"curl -u admin:Zx9yW8vU7tS6 https://ci.example.com", "Zx9yW8vU7tS6"},
	"mysql_password":        {"mysql -uroot -pZx9yW8vU7tS6 app", "Zx9yW8vU7tS6"},
	"sshpass_password":      {"sshpass -p Zx9yW8vU7tS6 ssh host", "Zx9yW8vU7tS6"},
	"login_password":        {"docker login -u ci -p Zx9yW8vU7tS6 registry.example.com", "Zx9yW8vU7tS6"},
	"redis_password":        {"redis-cli -h cache -a Zx9yW8vU7tS6 ping", "Zx9yW8vU7tS6"},
	"ssh_keygen_passphrase": {"ssh-keygen -t ed25519 -N Zx9yW8vU7tS6 -f id", "Zx9yW8vU7tS6"},
	"openssl_password":      {"openssl enc -aes256 -in notes.txt -pass pass:Zx9yW8vU7tS6", "Zx9yW8vU7tS6"},
	"htpasswd_password":     {"htpasswd -nb admin Zx9yW8vU7tS6", "Zx9yW8vU7tS6"},
	"password_hash":         {"admin:$apr1$Zx9yW8vU$7tS6rQ5pO4nM3lK2jI1hG0", "7tS6rQ5pO4nM3lK2jI1hG0"},
	"netrc_password":        {"machine api.example.com login me password Zx9yW8vU7tS6", "Zx9yW8vU7tS6"},
	"cli_secret_flag":       {"vercel deploy --token Zx9yW8vU7tS6", "Zx9yW8vU7tS6"},
	"xml_secret":            {"<server><password>Zx9yW8vU7tS6</password></server>", "Zx9yW8vU7tS6"},
	"docker_auth":           {`config: {"auths":{"r.example.com":{"auth":"WngleVc4dlU3dFM2clE1cA=="}}}`, "WngleVc4dlU3dFM2clE1cA"},
	"kube_client_key":       {"client-key-data: WngleVc4dlU3dFM2clE1cE80bk0=", "WngleVc4dlU3dFM2clE1cE80bk0"},
	"npmrc_auth":            {"_auth=WngleVc4dlU3dFM2clE1cA", "WngleVc4dlU3dFM2clE1cA"},
	"cookie_header":         {"Cookie: sid=Zx9yW8vU7tS6rQ5p", "Zx9yW8vU7tS6rQ5p"},
	"env_bare_secret":       {"export TOKEN=Zx9yW8vU7tS6rQ5p", "Zx9yW8vU7tS6rQ5p"},
}

func TestIngestRedactsEveryRule(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for _, rule := range privacy.BuiltinRules() {
		sample, ok := e2eSecrets[rule.Name]
		if !ok {
			t.Errorf("built-in rule %q has no end-to-end sample", rule.Name)
			continue
		}
		t.Run(rule.Name, func(t *testing.T) {
			sess := "redact-" + rule.Name
			srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": sess, "cwd": "/tmp/redact", "prompt_id": "p", "prompt": "use " + sample[0] + " please"})
			srv.Hook(t, "post-tool-use", map[string]any{"session_id": sess, "cwd": "/tmp/redact", "prompt_id": "p",
				"tool_name": "Bash", "tool_use_id": "t-" + rule.Name,
				"tool_input":    map[string]any{"command": "echo '" + sample[0] + "'"},
				"tool_response": map[string]any{"stdout": sample[0] + "\n", "stderr": ""}})
			srv.Hook(t, "post-tool-use-failure", map[string]any{"session_id": sess, "cwd": "/tmp/redact", "prompt_id": "p",
				"tool_name": "WebFetch", "tool_use_id": "f-" + rule.Name,
				"tool_input": map[string]any{"url": "https://example.com", "prompt": sample[0]}, "error": "failed with " + sample[0]})
			srv.Hook(t, "stop", map[string]any{"session_id": sess, "prompt_id": "p", "last_assistant_message": "I used " + sample[0]})

			s := sessionRow(t, srv, sess)
			marker := "[REDACTED:" + rule.Name + "]"
			var p models.Prompt
			modelstest.Scan(t, srv.Store, &p, `SELECT * FROM prompts WHERE session_id = ? ORDER BY id LIMIT 1`, s.ID)
			obs := observationsOf(t, srv, s.ID)
			if len(obs) != 2 {
				t.Fatalf("%d observations", len(obs))
			}
			fields := map[string]string{
				"prompt": p.Text, "bash title": obs[0].Title, "bash input": obs[0].Input, "bash output": obs[0].Output,
				"failure input": obs[1].Input, "failure output": obs[1].Output, "last message": s.LastAssistantMessage,
			}
			for name, v := range fields {
				if strings.Contains(v, sample[1]) {
					t.Errorf("%s keeps the secret: %q", name, v)
				}
				if name != "bash title" && !strings.Contains(v, marker) {
					t.Errorf("%s lacks %s: %q", name, marker, v)
				}
			}
		})
	}
	raw := dbBytes(t, srv)
	for name, sample := range e2eSecrets {
		if bytes.Contains(raw, []byte(sample[1])) {
			t.Errorf("the %s secret is in the database files", name)
		}
	}
}

func TestIngestIdempotent(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	events := testutil.FixtureEvents(t)
	for _, raw := range events {
		srv.Hook(t, slugOf(fixtureEvent(t, raw)), raw)
	}
	first := countRows(t, srv)
	// Replay everything (as a spool replay would): nothing new is stored.
	for _, raw := range events {
		srv.Hook(t, slugOf(fixtureEvent(t, raw)), raw)
	}
	if again := countRows(t, srv); again != first {
		t.Errorf("a replay changed the rows: %+v → %+v", first, again)
	}
	s := sessionRow(t, srv, fixSession)
	if s.PromptCounter != 1 {
		t.Errorf("a replayed prompt_id must not move the counter: %d", s.PromptCounter)
	}
	kinds := strings.Join(eventKinds(t, srv, s.ID), ",")
	if strings.Count(kinds, models.EventSessionCompleted) != 1 || strings.Count(kinds, models.EventObservation) != 4 || strings.Count(kinds, models.EventPrompt) != 1 {
		t.Errorf("events after a replay: %s", kinds)
	}

	// The same tool_use_id in a new worker (no cache) still maps to one row.
	srv2 := testutil.NewServerIn(t, t.TempDir())
	tool := fixtureEvent(t, events[2])
	srv2.Hook(t, "post-tool-use", tool)
	srv2.Shutdown(0)
	srv3 := testutil.NewServerIn(t, srv2.DataDir)
	srv3.Hook(t, "post-tool-use", tool)
	if c := countRows(t, srv3); c.Observations != 1 {
		t.Errorf("after a restart the same tool_use_id stored %d rows", c.Observations)
	}
}

func TestIngestBadInput(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for _, raw := range testutil.FixtureEvents(t)[:3] {
		srv.Hook(t, slugOf(fixtureEvent(t, raw)), raw)
	}
	huge := `{"session_id":"big","tool_name":"Bash","tool_use_id":"big","tool_input":{"command":"x"},"tool_response":{"stdout":"` +
		strings.Repeat("a", 2<<20) + `"}}`
	tests := []struct {
		name, path, body string
		status           int
		message          string
	}{
		{"malformed JSON", "/api/hooks/post-tool-use", `{"session_id": "s1", "tool_name": `, 400, "malformed JSON"},
		{"not an object", "/api/hooks/stop", `["session_id"]`, 400, "malformed JSON"},
		{"wrong type", "/api/hooks/stop", `{"session_id": 42}`, 400, "session_id"},
		{"missing session_id", "/api/hooks/user-prompt-submit", `{"prompt":"hello","cwd":"/tmp"}`, 400, "missing session_id"},
		{"missing tool_name", "/api/hooks/post-tool-use", `{"session_id":"s2","tool_use_id":"x"}`, 400, "missing tool_name"},
		{"too large", "/api/hooks/post-tool-use", huge, 413, "too large"},
		{"unknown event", "/api/hooks/pre-compact", `{"session_id":"s3"}`, 404, "unknown hook event"},
		{"compat malformed", "/api/sessions/observations", `{"claudeSessionId":`, 400, "malformed JSON"},
		{"compat missing id", "/api/sessions/observations", `{"tool_name":"Bash"}`, 400, "missing session id"},
		{"compat missing tool", "/api/observations", `{"sessionId":"s4"}`, 400, "missing tool_name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countRows(t, srv)
			var status int
			var body []byte
			if tt.status == http.StatusRequestEntityTooLarge {
				status, body = postOversized(t, srv, tt.path, tt.body)
			} else {
				status, body = srv.Post(t, tt.path, tt.body)
			}
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			var e struct {
				Error  string `json:"error"`
				Status int    `json:"status"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Status != tt.status {
				t.Fatalf("the error must be JSON with the status: %s", body)
			}
			if !strings.Contains(e.Error, tt.message) {
				t.Errorf("error %q must name the problem (%q)", e.Error, tt.message)
			}
			if after := countRows(t, srv); after != before {
				t.Errorf("bad input stored something: %+v → %+v", before, after)
			}
		})
	}
}

// postOversized sends a body over the cap on a raw connection. The worker
// answers 413 as soon as it has read the headers and closes the connection
// while the client may still be writing: an ordinary client then sees
// "connection reset" instead of the answer. Here the body is written in the
// background while the answer is read; a reset before any answer is retried.
func postOversized(t *testing.T, srv *testutil.Server, path, body string) (int, []byte) {
	t.Helper()
	var lastErr error
	for attempt := 0; attempt < 10; attempt++ {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
				path, strings.TrimPrefix(srv.URL, "http://"), len(body))
			io.WriteString(conn, body)
		}()
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			conn.Close()
			lastErr = err
			continue
		}
		out, err := io.ReadAll(resp.Body)
		conn.Close()
		if err != nil && len(out) == 0 {
			lastErr = err
			continue
		}
		return resp.StatusCode, out
	}
	t.Fatalf("no answer to an oversized body in 10 attempts: %v", lastErr)
	return 0, nil
}

func TestCompatClaudeMem(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	post := func(path string, body any) map[string]any {
		t.Helper()
		status, out := srv.Post(t, path, body)
		if status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, status, out)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil || m["success"] != true {
			t.Fatalf("POST %s: %s", path, out)
		}
		return m
	}
	post("/api/sessions/init", map[string]any{"contentSessionId": "cm-1", "project": "legacy-app", "prompt": "fix the login bug"})
	s := sessionRow(t, srv, "cm-1")
	if s.Project != "legacy-app" || s.PromptCounter != 1 {
		t.Errorf("init with a prompt: %+v", s)
	}
	post("/api/sessions/init", map[string]any{"claudeSessionId": "cm-2", "project": "legacy-app"})
	if s2 := sessionRow(t, srv, "cm-2"); s2.PromptCounter != 0 {
		t.Errorf("init without a prompt only starts the session: %+v", s2)
	}
	post("/sessions/cm-3/init", map[string]any{})
	sessionRow(t, srv, "cm-3")

	post("/api/sessions/observations", map[string]any{"claudeSessionId": "cm-1", "tool_name": "Bash", "cwd": "/srv/legacy-app",
		"tool_input": map[string]any{"command": "make test"}, "tool_response": map[string]any{"stdout": "2 passed"}, "tool_use_id": "cm-t1"})
	post("/api/sessions/observations", map[string]any{"contentSessionId": "cm-1", "tool_name": "Read",
		"tool_input": `{"file_path":"/srv/legacy-app/login.go"}`, "tool_response": map[string]any{}})
	post("/api/sessions/observations", map[string]any{"claudeSessionId": "cm-1", "tool_name": "Bash", "cwd": "/srv/legacy-app",
		"tool_input": map[string]any{"command": "make test"}, "tool_response": map[string]any{"stdout": "2 passed"}, "tool_use_id": "cm-t1"})
	obs := observationsOf(t, srv, s.ID)
	if len(obs) != 2 || obs[0].Kind != models.KindTest || obs[0].Title != "Ran `make test`: 2 passed" || obs[1].Title != "Read /srv/legacy-app/login.go" || obs[0].PromptNumber != 1 {
		t.Errorf("observations: %+v", obs)
	}

	post("/api/sessions/summarize", map[string]any{"claudeSessionId": "cm-1", "last_user_message": "fix it", "last_assistant_message": "Fixed the login bug."})
	if got := sessionRow(t, srv, "cm-1").LastAssistantMessage; got != "Fixed the login bug." {
		t.Errorf("summarize: %q", got)
	}
	post("/api/sessions/complete", map[string]any{"claudeSessionId": "cm-1", "reason": "logout"})
	if s := sessionRow(t, srv, "cm-1"); s.Status != models.StatusCompleted || s.EndReason != "logout" {
		t.Errorf("complete: %+v", s)
	}
	post("/api/processing", map[string]any{"claudeSessionId": "cm-1"})

	status, ctx := srv.Get(t, "/api/context/inject?project=legacy-app")
	if status != http.StatusOK || !strings.Contains(string(ctx), "mneme-context") {
		t.Errorf("context inject: %d %s", status, ctx)
	}
	if status, _ := srv.Get(t, "/api/context/inject"); status != http.StatusBadRequest {
		t.Errorf("context inject without project: %d", status)
	}
}

func TestCompatJikimeMem(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	post := func(path string, body any) {
		t.Helper()
		if status, out := srv.Post(t, path, body); status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, status, out)
		}
	}
	post("/api/sessions/start", map[string]any{"sessionId": "jk-1", "projectPath": "/work/jikime-app"})
	s := sessionRow(t, srv, "jk-1")
	if s.Project != "jikime-app" || s.Cwd != "/work/jikime-app" {
		t.Errorf("start: %+v", s)
	}
	post("/api/prompts", map[string]any{"sessionId": "jk-1", "content": "add a health check"})
	post("/api/observations", map[string]any{"sessionId": "jk-1", "toolName": "Write",
		"toolInput": `{"file_path":"/work/jikime-app/health.go","content":"package app\n"}`, "toolResponse": `{"type":"create"}`})
	post("/api/responses", map[string]any{"sessionId": "jk-1", "content": "Added /health."})
	post("/api/sessions/stop", map[string]any{"sessionId": "jk-1"})

	s = sessionRow(t, srv, "jk-1")
	var prompts []models.Prompt
	modelstest.Scan(t, srv.Store, &prompts, `SELECT * FROM prompts WHERE session_id = ? ORDER BY id`, s.ID)
	obs := observationsOf(t, srv, s.ID)
	if len(prompts) != 1 || prompts[0].Text != "add a health check" {
		t.Errorf("prompts: %+v", prompts)
	}
	if len(obs) != 1 || obs[0].Title != "Created /work/jikime-app/health.go (1 line)" || obs[0].Kind != models.KindFileChange || obs[0].Files[0] != "/work/jikime-app/health.go" {
		t.Errorf("observations: %+v", obs)
	}
	if s.LastAssistantMessage != "Added /health." || s.Status != models.StatusCompleted {
		t.Errorf("responses/stop: %+v", s)
	}
	var ctx struct {
		Success bool   `json:"success"`
		Context string `json:"context"`
		Limit   int    `json:"limit"`
	}
	srv.GetJSON(t, "/api/context?limit=5&project=jikime-app", &ctx)
	if !ctx.Success || ctx.Limit != 5 || !strings.Contains(ctx.Context, "health") {
		t.Errorf("context: %+v", ctx)
	}
	for _, bad := range []string{"0", "abc", "501", "5x"} {
		if status, body := srv.Get(t, "/api/context?limit="+bad); status != http.StatusBadRequest || !strings.Contains(string(body), "limit must be a whole number from 1 to 500") {
			t.Errorf("limit=%s must be refused with its reason, got %d: %s", bad, status, body)
		}
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	var h map[string]any
	srv.GetJSON(t, "/api/health", &h)
	for _, k := range []string{"service", "status", "version", "pid", "uptimeSeconds", "schemaVersion", "backend", "counts", "streamClients"} {
		if _, ok := h[k]; !ok {
			t.Errorf("health lacks %q: %v", k, h)
		}
	}
	if h["backend"] != pgtest.Backend() {
		t.Errorf("health says backend %v, the tests run on %s", h["backend"], pgtest.Backend())
	}
	if h["service"] != "mneme" || h["status"] != "ok" || h["version"] != "test" ||
		h["commit"] != testutil.TestBuild.Commit || h["commitDate"] != testutil.TestBuild.Date || int(h["pid"].(float64)) != os.Getpid() ||
		int(h["schemaVersion"].(float64)) != srv.Store.SchemaVersion() || h["uptimeSeconds"].(float64) < 0 {
		t.Errorf("health: %v", h)
	}
	counts, _ := h["counts"].(map[string]any)
	for _, k := range []string{"sessions", "prompts", "observations", "summaries"} {
		if _, ok := counts[k]; !ok {
			t.Errorf("counts lack %q: %v", k, counts)
		}
	}
	// The viewer's footer says the same: the version, the commit
	// (shortened) and its date.
	status, page := srv.Get(t, "/")
	for _, want := range []string{`id="footer-version">test<`, `id="footer-commit" title="commit 0123456789ab of 2026-01-02T03:04:05Z">0123456789ab<`} {
		if status != http.StatusOK || !strings.Contains(string(page), want) {
			t.Errorf("GET / = %d, the footer lacks %s", status, want)
		}
	}
}

// A resumed session is active again; a replayed old SessionStart (from the
// spool, with its original time) does not reopen a completed session.
func TestIngestResumeReopens(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	start := map[string]any{"session_id": "resume", "cwd": "/tmp/proj", "source": "startup"}
	srv.Hook(t, "session-start", start)
	srv.Hook(t, "session-end", map[string]any{"session_id": "resume", "reason": "prompt_input_exit"})
	stale := map[string]any{"session_id": "resume", "cwd": "/tmp/proj", "source": "resume", "mneme_time": time.Now().Add(-time.Hour).UTC()}
	srv.Hook(t, "session-start", stale)
	if s := sessionRow(t, srv, "resume"); s.Status != models.StatusCompleted {
		t.Errorf("a stale replayed start reopened the session: %+v", s)
	}
	srv.Hook(t, "session-start", map[string]any{"session_id": "resume", "cwd": "/tmp/proj", "source": "resume"})
	s := sessionRow(t, srv, "resume")
	if s.Status != models.StatusActive || s.Source != "resume" || s.EndedAt != nil || s.EndReason != "" {
		t.Errorf("resume: %+v", s)
	}
	srv.Hook(t, "session-end", map[string]any{"session_id": "resume", "reason": "logout"})
	if kinds := strings.Join(eventKinds(t, srv, s.ID), ","); strings.Count(kinds, models.EventSessionCompleted) != 2 {
		t.Errorf("two real ends, two completions: %s", kinds)
	}
}

// A tool call that arrives before its prompt is numbered by the current
// counter; once the prompt is recorded, the turn's later calls get its
// number (nothing stale is remembered from the early call).
func TestIngestToolCallBeforeItsPrompt(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	tool := func(id string) map[string]any {
		return map[string]any{"session_id": "early", "cwd": "/tmp/proj", "prompt_id": "p1", "tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "x"}}
	}
	srv.Hook(t, "post-tool-use", tool("t1"))
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "early", "cwd": "/tmp/proj", "prompt_id": "p1", "prompt": "list"})
	srv.Hook(t, "post-tool-use", tool("t2"))
	srv.Hook(t, "post-tool-use", tool("t3"))
	obs := observationsOf(t, srv, sessionRow(t, srv, "early").ID)
	if len(obs) != 3 || obs[0].PromptNumber != 0 || obs[1].PromptNumber != 1 || obs[2].PromptNumber != 1 {
		t.Errorf("prompt numbers: %d %d %d", obs[0].PromptNumber, obs[1].PromptNumber, obs[2].PromptNumber)
	}
}

// A JSON member whose name is written with escapes, quoted in text, is
// redacted in the prompt, the tool's input and output, the last message
// and the summaries made of them (issue 36).
func TestIngestRedactsEscapedMemberNames(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	const session, project, secret = "esc-names", "escnames", "EscapedNameSecret0036"
	quoted := `the API answered {"user":"ci","pass\u0077ord":"` + secret + `"} on login`
	h := func(event string, extra map[string]any) map[string]any {
		return apiHook(event, session, project, extra)
	}
	srv.Hook(t, "session-start", h("SessionStart", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", h("UserPromptSubmit", map[string]any{"prompt_id": "p1", "prompt": "why does " + quoted + " fail?"}))
	srv.Hook(t, "post-tool-use", h("PostToolUse", map[string]any{"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": "esc-t1",
		"tool_input":    map[string]any{"command": "echo '" + quoted + "'"},
		"tool_response": map[string]any{"stdout": quoted + "\n", "stderr": "", "interrupted": false}}))
	srv.Hook(t, "stop", h("Stop", map[string]any{"prompt_id": "p1", "stop_hook_active": false, "last_assistant_message": "It said " + quoted}))
	srv.Hook(t, "session-end", h("SessionEnd", map[string]any{"reason": "other"}))
	waitFor(t, "the turn's summary", func() bool { return len(summariesOf(t, srv, project)) >= 1 })

	s := sessionRow(t, srv, session)
	var p models.Prompt
	modelstest.Scan(t, srv.Store, &p, `SELECT * FROM prompts WHERE session_id = ? ORDER BY id LIMIT 1`, s.ID)
	obs := observationsOf(t, srv, s.ID)
	sums, _ := json.Marshal(summariesOf(t, srv, project))
	fields := map[string]string{"prompt": p.Text, "last message": s.LastAssistantMessage, "summaries": string(sums)}
	for _, o := range obs {
		fields["input "+o.ToolName] = o.Input
		fields["output "+o.ToolName] = o.Output
	}
	for name, v := range fields {
		if strings.Contains(v, secret) {
			t.Errorf("%s keeps the secret: %q", name, v)
		}
	}
	if !strings.Contains(p.Text, "[REDACTED:") {
		t.Errorf("the prompt names no rule: %q", p.Text)
	}
	if bytes.Contains(dbBytes(t, srv), []byte(secret)) {
		t.Error("the secret is in the database files")
	}
}
