package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

func TestExportCommand(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for _, raw := range testutil.FixtureEvents(t) {
		srv.Hook(t, exportSlug(t, raw), []byte(raw))
	}
	const sid = "f0373ac4-95a4-4996-a7f7-2576f5e8c9ca"
	dir := t.TempDir()
	exec := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		all := append([]string{"--port", strconv.Itoa(srv.Port), "--data-dir", srv.DataDir, "export"}, args...)
		code := run(all, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	// To a file.
	file := filepath.Join(dir, "r.md")
	if code, _, errOut := exec("--session", sid, "--out", file); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	md, _ := os.ReadFile(file)
	for _, want := range []string{"# write notes please\n", "- **Project:** notes-app", "## Timeline", "· Bash · Ran \\`echo hello-from-fake\\`: hello-from-fake", "| `notes.md` | created, then edited 1× |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "hunter2") {
		t.Error("a private tag's content reached the export")
	}
	// Into a directory: the worker's suggested name.
	if code, _, errOut := exec("--session", sid, "--format", "html", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "mneme-notes-app-*-f0373ac4.html"))
	if len(names) != 1 {
		t.Errorf("html file in dir: %v", names)
	}
	// To stdout.
	code, out, _ := exec("--session", sid, "--format", "json")
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
		Sessions      []struct {
			Observations []json.RawMessage `json:"observations"`
		} `json:"sessions"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.SchemaVersion != 1 || len(doc.Sessions) != 1 || len(doc.Sessions[0].Observations) != 4 {
		t.Errorf("json to stdout: exit %d, %+v", code, doc)
	}
	// A project's sessions since a date.
	if code, out, errOut := exec("--project", "notes-app", "--since", "2000-01-01"); code != 0 || !strings.Contains(out, "# notes-app: 1 session since 2000-01-01") {
		t.Errorf("project export: exit %d %s %s", code, errOut, out)
	}

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{nil, "give --session ID or --project NAME --since DATE"},
		{[]string{"--session", sid, "--format", "pdf"}, "--format must be md, json or html"},
		{[]string{"--session", "nope"}, `mneme: no session "nope" in memory`},
		{[]string{"--project", "notes-app"}, "--project needs --since"},
		{[]string{"--session", sid, "--project", "x"}, "not both"},
	} {
		code, _, errOut := exec(tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut)
		}
	}
}

func exportSlug(t *testing.T, raw []byte) string {
	var h struct {
		Event string `json:"hook_event_name"`
	}
	json.Unmarshal(raw, &h)
	return map[string]string{"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "PostToolUse": "post-tool-use",
		"PostToolUseFailure": "post-tool-use-failure", "Stop": "stop", "SessionEnd": "session-end"}[h.Event]
}
