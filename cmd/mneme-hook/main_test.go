package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// mneme-hook starts fast because it links none of the worker: a dependency
// that pulls in the database, the web server, the templates or the CLI
// framework puts their package init and binary size back on every hook call
// Claude Code waits on.
func TestDependenciesStaySmall(t *testing.T) {
	goCmd := "go" // go test puts the go command that runs it first on PATH
	cmd := exec.Command(goCmd, "list", "-deps", ".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.String())
	}
	forbidden := []string{
		"gorm.io/", "github.com/glebarez/", "modernc.org/", "database/sql",
		"github.com/gofiber/", "github.com/valyala/", "github.com/a-h/templ",
		"github.com/anthropics/", "github.com/spf13/",
		"github.com/mneme-dev/mneme/models", "github.com/mneme-dev/mneme/handlers",
		"github.com/mneme-dev/mneme/web", "github.com/mneme-dev/mneme/views",
		"github.com/mneme-dev/mneme/internal/",
		// The HTTP and TLS stacks: their package init and size cost every
		// hook start; the socket has its own client (hooks.SocketSender),
		// and a team's worker is reached through mneme (hooks/hookhttp).
		"net/http", "crypto/tls", "crypto/x509", "github.com/mneme-dev/mneme/hooks/hookhttp",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed only %q", deps)
	}
	for _, dep := range deps {
		if dep == "github.com/mneme-dev/mneme/internal/shape" {
			t.Errorf("mneme-hook imports internal/shape, which imports models: use hooks")
		}
		for _, f := range forbidden {
			// internal/privacy and internal/hookwire are the internal packages mneme-hook may
			// use: redaction at the edge and what the client shares with the worker, standard library only (the
			// third-party check below covers what it imports).
			if strings.HasPrefix(dep, f) && dep != "github.com/mneme-dev/mneme/internal/privacy" && dep != "github.com/mneme-dev/mneme/internal/hookwire" {
				t.Errorf("mneme-hook depends on %s", dep)
			}
		}
		// The standard library's paths have no dot in their first element.
		if first, _, _ := strings.Cut(dep, "/"); strings.Contains(first, ".") && !strings.HasPrefix(dep, "github.com/mneme-dev/mneme/") {
			t.Errorf("mneme-hook depends on third-party package %s", dep)
		}
	}
}

// runHook runs mneme-hook in-process.
func runHook(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, bytes.NewReader(stdin), &o, &e)
	return o.String(), e.String(), code
}

// The command line: flags before or after the event, the optional word
// "hook" of `mneme … hook <event>`, and the environment's port and data
// directory. Every form reaches the worker and stores the event.
func TestCommandLine(t *testing.T) {
	t.Setenv(hookwire.EnvNoStart, "1")
	t.Setenv(hookwire.EnvDebug, "")
	t.Setenv(hookwire.EnvSummarizer, "")
	srv := testutil.NewServer(t)
	dir := srv.DataDir
	port := strconv.Itoa(srv.Port)
	t.Setenv(hookwire.EnvPort, "1") // flags win over the environment
	t.Setenv(hookwire.EnvDataDir, filepath.Join(dir, "from-env"))
	prompt := []byte(`{"session_id":"cli","cwd":"/home/dev/projects/cli","prompt_id":"p1","hook_event_name":"UserPromptSubmit","prompt":"hello"}`)
	forms := [][]string{
		{"--port", port, "--data-dir", dir, "user-prompt-submit"},
		{"--port=" + port, "--data-dir", dir, "hook", "post-tool-use"},
		{"post-tool-use", "--port", port, "--data-dir", dir},
		{"-port", port, "-data-dir", dir, "hook", "post-tool-use"},
	}
	for i, args := range forms {
		in := prompt
		if i > 0 {
			in = []byte(`{"session_id":"cli","cwd":"/home/dev/projects/cli","prompt_id":"p1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"x"},"tool_use_id":"t` + strconv.Itoa(i) + `"}`)
		}
		out, errs, code := runHook(t, in, args...)
		if code != 0 || !json.Valid([]byte(out)) || strings.Count(out, "\n") != 1 || errs != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if c, _ := srv.Store.Counts(t.Context()); c.Prompts != 1 || c.Observations != 3 {
		t.Errorf("stored %+v, want 1 prompt and 3 observations", c)
	}

	// The environment's port and data directory when no flag is given.
	t.Setenv(hookwire.EnvPort, port)
	t.Setenv(hookwire.EnvDataDir, dir)
	in := []byte(`{"session_id":"cli","prompt_id":"p1","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/hosts"},"tool_response":{},"tool_use_id":"env"}`)
	if _, errs, code := runHook(t, in, "post-tool-use"); code != 0 || errs != "" {
		t.Errorf("env form: exit %d, stderr %q", code, errs)
	}
	if c, _ := srv.Store.Counts(t.Context()); c.Observations != 4 {
		t.Errorf("with the environment's port: stored %+v", c)
	}

	// A malformed command line is the only non-zero exit.
	for _, args := range [][]string{nil, {"a", "b"}, {"--port", "x", "stop"}, {"--nope", "stop"}} {
		if out, errs, code := runHook(t, nil, args...); code != 2 || out != "" || !strings.Contains(errs, "usage: mneme-hook") && !strings.Contains(errs, "invalid") && !strings.Contains(errs, "not defined") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	// An unknown event is not an error for Claude Code.
	if out, _, code := runHook(t, []byte(`{"session_id":"x"}`), "--port", port, "pre-compact"); code != 0 || strings.TrimSpace(out) != hookwire.ContinueJSON {
		t.Errorf("unknown event: exit %d, %q", code, out)
	}
}

// Inside mneme's own summarizer run the hook records nothing.
func TestSummarizerRunRecordsNothing(t *testing.T) {
	t.Setenv(hookwire.EnvNoStart, "1")
	t.Setenv(hookwire.EnvSummarizer, "1")
	srv := testutil.NewServer(t)
	for _, raw := range testutil.FixtureEvents(t) {
		var head struct {
			Event string `json:"hook_event_name"`
		}
		json.Unmarshal(raw, &head)
		out, _, code := runHook(t, raw, "--port", strconv.Itoa(srv.Port), "--data-dir", srv.DataDir, hookwire.EventSlug(head.Event))
		if code != 0 || strings.TrimSpace(out) != hookwire.ContinueJSON {
			t.Fatalf("exit %d, stdout %q", code, out)
		}
	}
	if c, err := srv.Store.Counts(t.Context()); err != nil || c.Sessions+c.Prompts+c.Observations != 0 {
		t.Errorf("recorded %+v (%v)", c, err)
	}
}

// TestPreToolUse: mneme-hook pre-tool-use prints the worker's file memory
// and exits 0; with the worker down it prints Continue, exits 0, and
// neither spools nor starts anything.
func TestPreToolUse(t *testing.T) {
	t.Setenv(hookwire.EnvDebug, "")
	t.Setenv(hookwire.EnvSummarizer, "")
	t.Setenv(hookwire.EnvNoStart, "")
	srv := testutil.NewServer(t)
	proj := t.TempDir()
	file := filepath.Join(proj, "main.go")
	os.WriteFile(file, []byte("package main\n"), 0o600)
	srv.Hook(t, "post-tool-use-failure", map[string]any{"session_id": "one", "cwd": proj, "hook_event_name": "PostToolUseFailure",
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": file, "old_string": "x", "new_string": "y"},
		"tool_use_id": "e1", "error": "String to replace not found in file."})
	in := []byte(`{"session_id":"two","cwd":` + strconv.Quote(proj) + `,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":` + strconv.Quote(file) + `},"tool_use_id":"r1"}`)
	// The gate waits GateBudget (300 ms) and then lets the tool go on
	// without context: on a loaded machine a race-built worker can miss
	// that, so a tool call is tried again (as the next one would be) until
	// one is answered in time; every answer must be well-formed.
	var out, errs string
	var code int
	for try := 0; try < 30; try++ {
		out, errs, code = runHook(t, in, "--port", strconv.Itoa(srv.Port), "--data-dir", srv.DataDir, "pre-tool-use")
		if code != 0 || errs != "" || strings.Contains(out, "permissionDecision") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if strings.TrimSpace(out) != hookwire.ContinueJSON {
			break
		}
	}
	if !strings.Contains(out, `"hookEventName":"PreToolUse"`) || !strings.Contains(out, "Edit main.go failed") {
		t.Errorf("no gate context in 30 tries: stdout %q", out)
	}

	down := t.TempDir()
	os.Chmod(down, 0o700)
	out, errs, code = runHook(t, in, "--port", "1", "--data-dir", down, "pre-tool-use")
	if code != 0 || errs != "" || strings.TrimSpace(out) != hookwire.ContinueJSON {
		t.Errorf("worker down: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if entries, _ := os.ReadDir(down); len(entries) != 0 {
		t.Errorf("the gate left files in the data directory: %v", entries)
	}
}

// --version prints "mneme-hook version <version>" first (what mneme doctor
// reads), then the build's commit and Go, and reads nothing.
func TestVersion(t *testing.T) {
	want := hookwire.Stamped(version, commit, date, debug.ReadBuildInfo).Text("mneme-hook")
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		out, errs, code := runHook(t, nil, args...)
		if code != 0 || errs != "" || out != want || !strings.HasPrefix(out, "mneme-hook version ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want %q", args, code, out, errs, want)
		}
	}
}
