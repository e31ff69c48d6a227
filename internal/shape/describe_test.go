package shape

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models"
)

func TestDescribe(t *testing.T) {
	const cwd = "/home/dev/app"
	tests := []struct {
		name       string
		event      string // default hookwire.PostToolUse
		tool       string
		input      string
		response   string
		errText    string
		kind       string
		title      string
		importance float64
		files      []string
		success    bool
		output     string // substring of the output, when set
	}{
		{
			name: "bash ok", tool: "Bash",
			input:    `{"command":"ls -la","description":"list"}`,
			response: `{"stdout":"a\nb\n","stderr":"","interrupted":false}`,
			kind:     models.KindBash, title: "Ran `ls -la`: exit 0", importance: ImportanceOther, success: true, output: "a\nb",
		},
		{
			name: "bash stdout and stderr", tool: "Bash",
			input:    `{"command":"make"}`,
			response: `{"stdout":"built","stderr":"warning: x"}`,
			kind:     models.KindBash, title: "Ran `make`: built", importance: ImportanceOther, success: true, output: "built\nwarning: x",
		},
		{
			name: "bash interrupted", tool: "Bash",
			input:    `{"command":"sleep 100"}`,
			response: `{"stdout":"","stderr":"","interrupted":true}`,
			kind:     models.KindBash, title: "Ran `sleep 100`: interrupted", importance: ImportanceOther, success: true,
		},
		{
			name: "bash failure with exit code", event: hookwire.PostToolUseFailure, tool: "Bash",
			input:   `{"command":"echo hello-from-fake && ls /nonexistent-dir"}`,
			errText: "Exit code 2\nhello-from-fake\nls: cannot access '/nonexistent-dir': No such file or directory",
			kind:    models.KindFailure, title: "`echo hello-from-fake && ls /nonexistent-dir`: ls: cannot access '/nonexistent-dir': No such file or directory (exit 2)", importance: ImportanceFailure, output: "No such file",
		},
		{
			name: "go test pass", tool: "Bash",
			input:    `{"command":"go test ./..."}`,
			response: `{"stdout":"ok  \tgithub.com/x/a\t0.1s\nok  \tgithub.com/x/b\t0.2s\n?   \tgithub.com/x/c\t[no test files]"}`,
			kind:     models.KindTest, title: "Ran `go test ./...`: 2 packages ok", importance: ImportanceTest, success: true,
		},
		{
			name: "go test fail", event: hookwire.PostToolUseFailure, tool: "Bash",
			input:   `{"command":"go test ./..."}`,
			errText: "Exit code 1\n--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\ngithub.com/x/a\nFAIL",
			kind:    models.KindFailure, title: "`go test ./...`: 2 failed: TestA, TestB (exit 1)", importance: ImportanceFailure,
		},
		{
			name: "pytest pass", tool: "Bash",
			input:    `{"command":"cd api && pytest -q"}`,
			response: `{"stdout":"....\n4 passed in 0.12s"}`,
			kind:     models.KindTest, title: "Ran `cd api && pytest -q`: 4 passed", importance: ImportanceTest, success: true,
		},
		{
			name: "pytest fail", event: hookwire.PostToolUseFailure, tool: "Bash",
			input:   `{"command":"python -m pytest tests/"}`,
			errText: "Exit code 1\nFAILED tests/test_x.py::test_y\n1 failed, 3 passed in 0.20s",
			kind:    models.KindFailure, title: "`python -m pytest tests/`: 1 failed: test_y (exit 1)", importance: ImportanceFailure,
		},
		{
			name: "npm test pass", tool: "Bash",
			input:    `{"command":"npm test"}`,
			response: `{"stdout":"Tests:       12 passed, 12 total"}`,
			kind:     models.KindTest, title: "Ran `npm test`: 12 passed", importance: ImportanceTest, success: true,
		},
		{
			name: "npm test fail", event: hookwire.PostToolUseFailure, tool: "Bash",
			input:   `{"command":"npm run test"}`,
			errText: "Exit code 1\nTests:       2 failed, 10 passed, 12 total",
			kind:    models.KindFailure, title: "`npm run test`: 2 failed, 10 passed (exit 1)", importance: ImportanceFailure,
		},
		{
			name: "not a test: contest", tool: "Bash",
			input:    `{"command":"./contest-runner"}`,
			response: `{"stdout":"done"}`,
			kind:     models.KindBash, title: "Ran `./contest-runner`: done", importance: ImportanceOther, success: true,
		},
		{
			name: "write create", tool: "Write",
			input:    `{"file_path":"/home/dev/app/notes.md","content":"# Notes\nsecond\n"}`,
			response: `{"type":"create","filePath":"/home/dev/app/notes.md"}`,
			kind:     models.KindFileChange, title: "Created notes.md (2 lines)", importance: ImportanceFileChange, files: []string{"/home/dev/app/notes.md"}, success: true, output: "# Notes",
		},
		{
			name: "write update", tool: "Write",
			input:    `{"file_path":"/elsewhere/x.go","content":"package x"}`,
			response: `{"type":"update","filePath":"/elsewhere/x.go"}`,
			kind:     models.KindFileChange, title: "Wrote /elsewhere/x.go (1 line)", importance: ImportanceFileChange, files: []string{"/elsewhere/x.go"}, success: true,
		},
		{
			name: "edit with structuredPatch", tool: "Edit",
			input:    `{"file_path":"/home/dev/app/notes.md","old_string":"done","new_string":"finished"}`,
			response: `{"filePath":"/home/dev/app/notes.md","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":3,"lines":[" # Notes","-done","+finished","+more"]}]}`,
			kind:     models.KindFileChange, title: "Edited notes.md (+2 −1)", importance: ImportanceFileChange, files: []string{"/home/dev/app/notes.md"}, success: true, output: "@@ -1,2 +1,3 @@\n # Notes\n-done\n+finished",
		},
		{
			name: "edit without patch", tool: "Edit",
			input:    `{"file_path":"/home/dev/app/a.txt","old_string":"a","new_string":"b"}`,
			response: `{}`,
			kind:     models.KindFileChange, title: "Edited a.txt (+1 −1)", importance: ImportanceFileChange, files: []string{"/home/dev/app/a.txt"}, success: true, output: "- a\n+ b",
		},
		{
			name: "multiedit", tool: "MultiEdit",
			input:    `{"file_path":"/home/dev/app/m.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`,
			response: `{"structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]},{"oldStart":9,"oldLines":1,"newStart":9,"newLines":1,"lines":["-c","+d"]}]}`,
			kind:     models.KindFileChange, title: "Edited m.go (2 edits, +2 −2)", importance: ImportanceFileChange, files: []string{"/home/dev/app/m.go"}, success: true,
		},
		{
			name: "read", tool: "Read",
			input:    `{"file_path":"/home/dev/app/notes.md"}`,
			response: `{"type":"text","file":{"filePath":"/home/dev/app/notes.md","content":"# Notes\n","numLines":3}}`,
			kind:     models.KindRead, title: "Read notes.md (3 lines)", importance: ImportanceRead, files: []string{"/home/dev/app/notes.md"}, success: true, output: "# Notes",
		},
		{
			name: "grep", tool: "Grep",
			input:    `{"pattern":"func main","path":"/home/dev/app/cmd"}`,
			response: `{"mode":"files_with_matches","filenames":["cmd/a.go","cmd/b.go"],"numFiles":2}`,
			kind:     models.KindSearch, title: "Grep `func main` in cmd: 2 files", importance: ImportanceRead, files: []string{"/home/dev/app/cmd"}, success: true, output: "cmd/a.go\ncmd/b.go",
		},
		{
			name: "glob", tool: "Glob",
			input:    `{"pattern":"**/*.go"}`,
			response: `{"filenames":["a.go"],"numFiles":1,"truncated":false}`,
			kind:     models.KindSearch, title: "Glob `**/*.go`: 1 file", importance: ImportanceRead, files: []string{}, success: true,
		},
		{
			name: "webfetch", tool: "WebFetch",
			input:    `{"url":"https://go.dev/doc/","prompt":"summarise"}`,
			response: `{"result":"Go docs","code":200}`,
			kind:     models.KindWeb, title: "Fetched https://go.dev/doc/", importance: ImportanceOther, files: []string{}, success: true, output: "Go docs",
		},
		{
			name: "websearch", tool: "WebSearch",
			input:    `{"query":"sqlite wal mode"}`,
			response: `{"results":[]}`,
			kind:     models.KindWeb, title: `Searched the web for "sqlite wal mode"`, importance: ImportanceOther, files: []string{}, success: true,
		},
		{
			name: "task", tool: "Task",
			input:    `{"subagent_type":"Explore","description":"find the router","prompt":"Look for routes"}`,
			response: `"The router is in web/routes.go"`,
			kind:     models.KindAgent, title: "Agent Explore: find the router", importance: ImportanceOther, files: []string{}, success: true, output: "The router is in web/routes.go",
		},
		{
			name: "mcp tool", tool: "mcp__github__search_issues",
			input:    `{"query":"flaky test"}`,
			response: `[{"type":"text","text":"3 issues"}]`,
			kind:     models.KindMCP, title: "MCP github › search_issues: flaky test", importance: ImportanceOther, files: []string{}, success: true, output: "3 issues",
		},
		{
			name: "unknown tool", tool: "FancyNewTool",
			input:    `{"name":"widget","size":3}`,
			response: `{"ok":true}`,
			kind:     models.KindToolUse, title: "FancyNewTool: widget", importance: ImportanceOther, files: []string{}, success: true, output: `{"ok":true}`,
		},
		{
			name: "write failure", event: hookwire.PostToolUseFailure, tool: "Write",
			input:   `{"file_path":"/home/dev/app/ro.txt","content":"x"}`,
			errText: "EACCES: permission denied",
			kind:    models.KindFailure, title: "Write ro.txt failed: EACCES: permission denied", importance: ImportanceFailure, files: []string{"/home/dev/app/ro.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			event := tt.event
			if event == "" {
				event = hookwire.PostToolUse
			}
			p := &Payload{SessionID: "s", Cwd: cwd, HookEventName: event, ToolName: tt.tool, ToolInput: json.RawMessage(tt.input), Error: tt.errText}
			if tt.response != "" {
				p.ToolResponse = json.RawMessage(tt.response)
			}
			d := Describe(clean(p))
			if d.Kind != tt.kind {
				t.Errorf("kind %q, want %q", d.Kind, tt.kind)
			}
			if d.Title != tt.title {
				t.Errorf("title %q, want %q", d.Title, tt.title)
			}
			if d.Importance != tt.importance {
				t.Errorf("importance %v, want %v", d.Importance, tt.importance)
			}
			if d.Success != tt.success {
				t.Errorf("success %v, want %v", d.Success, tt.success)
			}
			if tt.files != nil && !slices.Equal(d.Files, tt.files) {
				t.Errorf("files %q, want %q", d.Files, tt.files)
			}
			if tt.output != "" && !strings.Contains(d.Output, tt.output) {
				t.Errorf("output %q does not contain %q", d.Output, tt.output)
			}
		})
	}
}

func TestDescribeTitleIsOneBoundedLine(t *testing.T) {
	p := &Payload{HookEventName: hookwire.PostToolUse, ToolName: "Bash",
		ToolInput:    json.RawMessage(`{"command":"echo ` + strings.Repeat("a", 500) + `\nsecond line"}`),
		ToolResponse: json.RawMessage(`{"stdout":"x"}`)}
	d := Describe(clean(p))
	if strings.Contains(d.Title, "\n") || len([]rune(d.Title)) > 200 {
		t.Errorf("title must be one line of at most 200 runes: %d runes %q", len([]rune(d.Title)), d.Title)
	}
	if strings.Contains(d.Title, "second line") {
		t.Errorf("only the command's first line belongs in the title: %q", d.Title)
	}
}

// A Bash call's command kind and a test run's outcome are fields of their
// own, read from the command and the runner's output, not from the title.
func TestDescribeCommandFields(t *testing.T) {
	for _, c := range []struct {
		name, event, input, response, errText string
		interrupt                             bool
		kind, outcome                         string
	}{
		{"shell", hookwire.PostToolUse, `{"command":"ls"}`, `{"stdout":"a"}`, "", false, models.CommandShell, ""},
		{"go test ok", hookwire.PostToolUse, `{"command":"go test ./..."}`, `{"stdout":"ok  \tx/a\t0.1s\nok  \tx/b\t0.2s"}`, "", false, models.CommandTest, "2 packages ok"},
		{"pytest counts", hookwire.PostToolUse, `{"command":"pytest -q"}`, `{"stdout":"12 passed, 1 skipped in 0.3s"}`, "", false, models.CommandTest, "12 passed, 1 skipped"},
		{"test interrupted", hookwire.PostToolUse, `{"command":"npm test"}`, `{"stdout":"","interrupted":true}`, "", false, models.CommandTest, "interrupted"},
		{"go test failed", hookwire.PostToolUseFailure, `{"command":"go test ./..."}`, "", "Exit code 1\n--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL", false, models.CommandTest, "2 tests failed"},
		{"failed test stopped", hookwire.PostToolUseFailure, `{"command":"cargo test"}`, "", "interrupted", true, models.CommandTest, "interrupted"},
		{"not bash", hookwire.PostToolUse, `{"file_path":"/a"}`, `{}`, "", false, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tool := "Bash"
			if c.name == "not bash" {
				tool = "Read"
			}
			p := &Payload{HookEventName: c.event, ToolName: tool, ToolInput: json.RawMessage(c.input), Error: c.errText, IsInterrupt: c.interrupt}
			if c.response != "" {
				p.ToolResponse = json.RawMessage(c.response)
			}
			d := Describe(clean(p))
			if d.CommandKind != c.kind || d.TestOutcome != c.outcome {
				t.Errorf("command kind %q outcome %q, want %q %q", d.CommandKind, d.TestOutcome, c.kind, c.outcome)
			}
		})
	}
}
