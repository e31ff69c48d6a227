package hooks_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// spooled is everything the spool directory holds, as bytes.
func spooled(t *testing.T, dataDir string) []byte {
	t.Helper()
	var all []byte
	filepath.Walk(filepath.Join(dataDir, "spool"), func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			all = append(all, b...)
		}
		return nil
	})
	if len(all) == 0 {
		t.Fatal("nothing was spooled")
	}
	return all
}

// With the worker down, what the hook writes to the spool is already
// redacted: built-in rules when the worker never wrote its rules, the
// user's own rules once it did; escaped secrets and tags, names that are
// secrets' names, nested tags, and secrets across the place where a huge
// payload is cut.
func TestHookRedactsBeforeSpooling(t *testing.T) {
	dataDir := t.TempDir()
	c, stderr := newClient(t, freePort(t), dataDir)
	key := "AKIAZ7QWERTYUIOP1234"
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAstraddle0123456789abcdefghij\n", 30) + "-----END RSA PRIVATE KEY-----"
	big := strings.Repeat("a", privacy.ShrinkKeep-10) + " " + key + " " + strings.Repeat("b\n", 1<<20) + pem + strings.Repeat("c", privacy.ShrinkKeep-100)
	ev := map[string]any{
		"session_id": "s-" + key, "cwd": "/home/dev/" + key, "transcript_path": "/t/" + key + ".jsonl", "hook_event_name": "PostToolUse",
		"tool_name": "Task", "tool_use_id": "toolu-" + key,
		"tool_input":    map[string]any{"prompt": `use password: "Hunter2Hunter2" <private>a<private>b</private>NestedTail</private>`, "api_key": "k 1 2 3"},
		"tool_response": map[string]any{"result": big},
	}
	body, _ := json.Marshal(ev)
	// The JSON-escaped forms too: \u-escaped key, escaped slashes and tag.
	body = bytes.Replace(body, []byte(`"tool_name"`), []byte(`"error":"\u0041KIAZ7QWERTYUIOP1234 https:\/\/u:P4ssw0rdP4ss@h \u003cprivate\u003eEscTag\u003c/private\u003e","tool_name"`), 1)
	run(t, c, "post-tool-use", body)
	got := spooled(t, dataDir)
	for _, secret := range []string{"QWERTYUIOP1234", "AKIAZ7", "Hunter2Hunter2", "NestedTail", "k 1 2 3", "P4ssw0rdP4ss", "EscTag", "straddle", "MIIEowIBAAKC"} {
		if i := bytes.Index(got, []byte(secret)); i >= 0 {
			t.Errorf("%q spooled: …%q…", secret, got[max(0, i-60):min(len(got), i+40)])
		}
	}
	if !bytes.Contains(got, []byte("[REDACTED:aws_access_key]")) || len(got) > 2<<20 {
		t.Errorf("spooled %d bytes; stderr %s", len(got), stderr)
	}

	// The rules the worker hands over apply: a user's own rule.
	rules := append(privacy.BuiltinRules(), privacy.Rule{Name: "ticket", Pattern: `TICKET-\d{4,}`, Enabled: true})
	if err := privacy.WriteRules(filepath.Join(dataDir, privacy.RulesFile), rules); err != nil {
		t.Fatal(err)
	}
	c, _ = newClient(t, freePort(t), dataDir)
	run(t, c, "user-prompt-submit", prompt("fix TICKET-98765 please"))
	if got := spooled(t, dataDir); bytes.Contains(got, []byte("98765")) || !bytes.Contains(got, []byte("[REDACTED:ticket]")) {
		t.Errorf("the user's rule did not apply at the edge: %s", got[max(0, len(got)-300):])
	}
}

// BenchmarkEdgeRedact is what each hook process adds for privacy: read the
// worker's rules file, build the redactor, clean one payload (decode,
// clean, encode when needed). The Bash event has nothing a rule could
// match and skips decoding; the WebFetch one has URLs and is decoded; the
// third holds secrets; the last is a 3 MB response cut to fit.
func BenchmarkEdgeRedact(b *testing.B) {
	dir := b.TempDir()
	if err := privacy.WriteRules(filepath.Join(dir, privacy.RulesFile), privacy.BuiltinRules()); err != nil {
		b.Fatal(err)
	}
	ev := func(tool string, in, resp any) []byte {
		m := map[string]any{"session_id": "0f3c7a2e-5b1d-4c8e-9a6f-2d4b8e1c3a5f", "transcript_path": "/home/dev/.claude/projects/-home-dev-app/0f3c7a2e.jsonl",
			"cwd": "/home/dev/app", "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": tool,
			"tool_input": in, "tool_response": resp, "tool_use_id": "toolu_01ABCDEF"}
		raw, _ := json.Marshal(m)
		return raw
	}
	cases := []struct {
		name string
		raw  []byte
	}{
		{"bash", ev("Bash", map[string]any{"command": "go build ./... && echo built", "description": "build"}, map[string]any{"stdout": "built", "stderr": ""})},
		{"webfetch", ev("WebFetch", map[string]any{"url": "https://go.dev/doc/", "prompt": "summarize"}, map[string]any{"result": strings.Repeat("Go is an open source language; see https://go.dev/blog. ", 40), "code": 200})},
		{"secrets", ev("Bash", map[string]any{"command": "curl -H 'Authorization: Bearer abcdefgh12345678' https://u:pw12345@x"}, map[string]any{"stdout": "AKIAZ7QWERTYUIOP1234 password=hunter2hunter"})},
		{"3MB", ev("Bash", map[string]any{"command": "cat big.log"}, map[string]any{"stdout": strings.Repeat("2024-01-01 INFO GET https://api.example.com/v1 token=x ok\n", 3<<20/56)})},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			for b.Loop() {
				hooks.LoadRedactor(dir, nil).CleanPayload(c.raw, 1800<<10)
			}
		})
	}
}

// A prompt that is private as a whole, through the hook: nothing of it is
// stored, and neither are the tool calls of its turn (the hook strips the
// tags, so it tells the worker there was a prompt).
func TestHookWhollyPrivatePrompt(t *testing.T) {
	srv := testutil.NewServer(t)
	c, _ := newClient(t, srv.Port, srv.DataDir)
	ev := func(m map[string]any) []byte {
		m["session_id"], m["cwd"], m["prompt_id"] = "private-turn", "/tmp/p", "p1"
		b, _ := json.Marshal(m)
		return b
	}
	run(t, c, "user-prompt-submit", ev(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "<private>rotate the prod keys</private>"}))
	run(t, c, "post-tool-use", ev(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "t1",
		"tool_input": map[string]any{"command": "vault rotate"}, "tool_response": map[string]any{"stdout": "rotated"}}))
	var prompts, private, obs int64
	modelstest.Row(t, srv.Store, []any{&prompts, &private, &obs}, `SELECT (SELECT COUNT(*) FROM prompts), (SELECT COUNT(*) FROM private_prompts), (SELECT COUNT(*) FROM observations)`)
	if prompts != 0 || private != 1 || obs != 0 {
		t.Errorf("%d prompts, %d private prompts, %d observations: want 0, 1, 0", prompts, private, obs)
	}
}
