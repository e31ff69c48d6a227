package handlers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// memorySecrets are secrets of several built-in rules: the text planted,
// and the part that must never be stored.
var memorySecrets = []struct{ text, core string }{
	{"AKIAMEMTESTKEY123456", "AKIAMEMTESTKEY123456"},
	{"ghp_MemGithubToken0123456789abcdefghijkl", "MemGithubToken0123456789abcdefghijkl"},
	{"sk-ant-api03-MemAnthropicKey0123456789", "MemAnthropicKey0123456789"},
	{"DB_PASSWORD=MemAssignedSecret42", "MemAssignedSecret42"},
	{"https://memuser:MemUrlPassw0rd@git.example.com/r.git", "MemUrlPassw0rd"},
	{"Authorization: Bearer MemBearerToken0123456789", "MemBearerToken0123456789"},
}

// memoryPrivate is text inside <private> tags in a prompt and an answer
// that state memories: it must become no memory, nor be stored at all.
const memoryPrivate = "MemPrivateZebra42"

// TestMemorySecretsNeverStored: a secret in a decision Claude states (an
// extracted memory), in MCP remember's text, and in a memory the user
// edits on the Memory page is redacted before it is stored: none reaches
// the data directory's files (the database, its -wal, logs), and
// <private> text in a prompt or an answer becomes no memory.
func TestMemorySecretsNeverStored(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const sess, cwd = "mem-secrets", "/tmp/memsecrets"
	ev := func(event string, extra map[string]any) map[string]any {
		m := map[string]any{"session_id": sess, "cwd": cwd, "transcript_path": "", "hook_event_name": event}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	var answer strings.Builder
	answer.WriteString("Deployed.\n\nKey decisions:\n")
	for _, s := range memorySecrets {
		fmt.Fprintf(&answer, "- Went with the deploy credential %s for the release job instead of the old one.\n", s.text)
	}
	answer.WriteString("- Went with <private>" + memoryPrivate + " as the signing key</private> blue-green deploys for the release job.\n")
	srv.Hook(t, "user-prompt-submit", ev("UserPromptSubmit", map[string]any{"prompt_id": "p1",
		"prompt": "Ship the release. Never print <private>" + memoryPrivate + "</private> in the logs. Always deploy from main."}))
	srv.Hook(t, "stop", ev("Stop", map[string]any{"last_assistant_message": answer.String()}))

	// MCP's remember (the same route), one memory per secret.
	for i, s := range memorySecrets {
		status, body := srv.Post(t, "/api/memories", map[string]any{"project": "memsecrets", "kind": "constraint",
			"text": fmt.Sprintf("Rule %d: the release needs %s to be rotated monthly", i, s.text)})
		if status != http.StatusOK && status != http.StatusCreated {
			t.Fatalf("remember: %d %s", status, body)
		}
	}

	// The extracted memories are stored off the hook's path.
	deadline := time.Now().Add(60 * time.Second)
	var ms []models.Memory
	for {
		var err error
		ms, err = srv.Store.Memories(t.Context(), models.MemoryFilter{Project: "memsecrets"})
		if err != nil {
			t.Fatal(err)
		}
		answers := 0
		for _, m := range ms {
			if m.Source == models.SourceAnswer {
				answers++
			}
		}
		if answers >= len(memorySecrets) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the decisions were not extracted: %d memories", len(ms))
		}
		time.Sleep(50 * time.Millisecond)
	}
	redacted := 0
	for _, m := range ms {
		t.Logf("#%d %s %s: %s", m.ID, m.Source, m.Kind, m.Text)
		if strings.Contains(m.Text, "[REDACTED:") {
			redacted++
		}
		if strings.Contains(m.Text, "private") || strings.Contains(m.Text, "signing key") {
			t.Errorf("private text became a memory: %q", m.Text)
		}
	}
	if redacted < 2*len(memorySecrets) {
		t.Errorf("%d memories say [REDACTED:…], want the %d decisions and %d remembered", redacted, len(memorySecrets), len(memorySecrets))
	}

	// The user edits a memory on the Memory page, pasting each secret.
	c := srv.LoggedIn(t)
	_, _, tok := memGet(t, c, srv, "/memory?project=memsecrets")
	for i, s := range memorySecrets {
		resp := memPost(t, c, srv, fmt.Sprintf("/memory/%d", ms[i%len(ms)].ID), url.Values{"_csrf": {tok}, "action": {"edit"},
			"text": {"Edited: use " + s.text + " for the release"}})
		if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusOK {
			t.Fatalf("edit: %d", resp.StatusCode)
		}
	}
	edited, err := srv.Store.MemoryByID(t.Context(), ms[0].ID)
	if err != nil || !strings.HasPrefix(edited.Text, "Edited: use [REDACTED:") {
		t.Errorf("the edited memory: %q %v", edited.Text, err)
	}

	// Every byte the worker stored: the database after a checkpoint, its
	// -wal and -shm, and every other file of the data directory.
	raw := testutil.StoredBytes(t, srv.Store)
	for _, s := range append(memorySecrets, struct{ text, core string }{memoryPrivate, memoryPrivate}) {
		if i := bytes.Index(raw, []byte(s.core)); i >= 0 {
			t.Errorf("%q stored: …%q…", s.core, raw[max(0, i-60):min(len(raw), i+20)])
		}
		if files := testutil.FilesHolding(t, srv.DataDir, s.core); len(files) > 0 {
			t.Errorf("%q in %v", s.core, files)
		}
	}
	if !bytes.Contains(raw, []byte("blue-green deploys")) || !bytes.Contains(raw, []byte("Always deploy from main")) {
		t.Error("sanity: the public text around the private parts must be stored")
	}
}
