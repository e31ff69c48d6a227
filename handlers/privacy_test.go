package handlers_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// Every string the worker stores goes through the privacy pipeline, not
// only the prompt and the tool output: the cwd (and so the project), the
// session, tool use and prompt ids, the transcript path, the source, the
// tool name, a compat route's project, and values that JSON escapes hid.
// An id that cleaning changes maps to one stored id, the same from every
// route, so the events of one session stay together.
func TestIngestCleansEveryStoredString(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const aws = "AKIAZ7QWERTYUIOP1234"
	const gh = "ghp_Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA"
	sid := "sess-" + aws
	base := func(event string) map[string]any {
		return map[string]any{"session_id": sid, "hook_event_name": event, "prompt_id": "p-" + gh,
			"cwd": "/home/dev/" + aws + "/notes", "transcript_path": "/home/dev/.claude/" + gh + ".jsonl"}
	}
	m := base("SessionStart")
	m["source"] = "startup " + gh
	srv.Hook(t, "session-start", m)
	m = base("UserPromptSubmit")
	m["prompt"] = "hello"
	srv.Hook(t, "user-prompt-submit", m)
	m = base("PostToolUse")
	m["tool_name"], m["tool_use_id"] = "Lookup "+aws, "toolu-"+gh
	m["tool_input"] = map[string]any{"query": "x"}
	srv.Hook(t, "post-tool-use", m)
	// Escapes that hid secrets from the text rules: a quoted value in a
	// Task prompt, \u-escaped key, \/-escaped URL, an escaped private tag.
	body := `{"session_id":"` + sid + `","hook_event_name":"PostToolUse","prompt_id":"p-` + gh + `","cwd":"/x","tool_name":"Task","tool_use_id":"t2",` +
		`"tool_input":{"subagent_type":"general","description":"deploy","prompt":"log in with password: \"Hunter2Hunter2\" and key \u0041KIAZ7QWERTYUIOP1234, ` +
		`clone https:\/\/bot:S3cretPassw0rd@git.example.com\/r.git <\u0070rivate>my private note</\u0070rivate>"},` +
		`"tool_response":{"result":"done","headers":{"Authorization":"Basic dXNlcjpTM2NyZXQ="},"api_key":"k-1234-5678"}}`
	srv.Hook(t, "post-tool-use", json.RawMessage(body))
	m = base("Stop")
	m["last_assistant_message"] = "ok"
	srv.Hook(t, "stop", m)
	// claude-mem's routes: the same raw session id, a project with a secret.
	if st, b := srv.Post(t, "/api/sessions/init", map[string]any{"claudeSessionId": sid, "project": "proj-" + gh, "prompt": "again"}); st != 200 {
		t.Fatalf("compat init: %d %s", st, b)
	}
	if st, b := srv.Post(t, "/api/sessions/observations", map[string]any{"claudeSessionId": "other-" + aws, "project": "proj-" + gh,
		"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_response": "ok", "cwd": "/srv/" + aws, "tool_use_id": "c-" + gh}); st != 200 {
		t.Fatalf("compat observation: %d %s", st, b)
	}

	var sessions []models.Session
	modelstest.Scan(t, srv.Store, &sessions, `SELECT * FROM sessions ORDER BY id`)
	if len(sessions) != 2 {
		t.Fatalf("%d sessions, want 2 (the hook's and the compat route's events of one raw id belong together)", len(sessions))
	}
	s := sessions[0]
	if !strings.HasPrefix(s.ClaudeSessionID, "sess-[REDACTED:aws_access_key]~") {
		t.Errorf("session id %q", s.ClaudeSessionID)
	}
	var prompts []models.Prompt
	modelstest.Scan(t, srv.Store, &prompts, `SELECT * FROM prompts WHERE session_id = ? ORDER BY number`, s.ID)
	obs := observationsOf(t, srv, s.ID)
	if len(prompts) != 2 || len(obs) != 2 || obs[0].PromptNumber != 1 {
		t.Errorf("%d prompts, %d observations (prompt %d): one session's events must stay together", len(prompts), len(obs), obs[0].PromptNumber)
	}
	if !strings.Contains(s.Cwd, "[REDACTED:aws_access_key]") || s.Project != "notes" ||
		!strings.Contains(s.TranscriptPath, "[REDACTED:github_token]") {
		t.Errorf("session row: cwd %q project %q transcript %q source %q", s.Cwd, s.Project, s.TranscriptPath, s.Source)
	}
	task := obs[1].Input
	for _, want := range []string{"[REDACTED:secret_assignment]", "[REDACTED:aws_access_key]", "[REDACTED:url_credentials]"} {
		if !strings.Contains(task, want) {
			t.Errorf("Task input lacks %s: %s", want, task)
		}
	}
	var compatProject string
	modelstest.Scan(t, srv.Store, &compatProject, `SELECT project FROM sessions WHERE id = ?`, sessions[1].ID)
	if compatProject != "proj-[REDACTED:github_token]" {
		t.Errorf("compat project %q", compatProject)
	}

	raw := dbBytes(t, srv)
	for _, secret := range []string{"QWERTYUIOP1234", "Zx9yW8vU7tS6rQ5pO4nM3lK2", "Hunter2Hunter2", "S3cretPassw0rd", "my private note",
		"dXNlcjpTM2NyZXQ", "k-1234-5678", `\u0041KIA`} {
		if i := bytes.Index(raw, []byte(secret)); i >= 0 {
			t.Errorf("%q is in the database files: …%q…", secret, raw[max(0, i-60):min(len(raw), i+40)])
		}
	}
}

// claude-mem's /sessions/{id}/init: an id %-escaped in the path is cleaned
// as the id it stands for.
func TestCompatPathIDIsCleaned(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	if st, b := srv.Post(t, "/sessions/cm-%41KIAZ7QWERTYUIOP1234/init", map[string]any{"prompt": "hi"}); st != 200 {
		t.Fatalf("%d %s", st, b)
	}
	var id string
	modelstest.Scan(t, srv.Store, &id, `SELECT claude_session_id FROM sessions`)
	if !strings.HasPrefix(id, "cm-[REDACTED:aws_access_key]~") {
		t.Errorf("stored id %q", id)
	}
}
