package shape

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/testutil/racebuild"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/mneme-dev/mneme/models"
)

func TestExcludedBy(t *testing.T) {
	p := NewPolicy(models.DefaultSettings())
	const cwd = "/home/dev/app"
	tests := []struct {
		name    string
		command string
		files   []string
		want    string
	}{
		{"env file", "", []string{"/home/dev/app/.env"}, "**/.env"},
		{"env variant", "", []string{"/home/dev/app/config/.env.local"}, "**/.env.*"},
		{"pem", "", []string{"/home/dev/app/certs/server.pem"}, "**/*.pem"},
		{"ssh key", "", []string{"/home/dev/.ssh/id_rsa"}, "**/*id_rsa*"},
		{"ssh pub key", "", []string{"/home/dev/.ssh/id_rsa.pub"}, "**/*id_rsa*"},
		{"secrets dir", "", []string{"/home/dev/app/secrets/db.yaml"}, "**/secrets/**"},
		{"relative path", "", []string{"secrets/x"}, "**/secrets/**"},
		{"bash cat", "cat .env", nil, "**/.env"},
		{"bash redirect", "echo x>secrets/token", nil, "**/secrets/**"},
		{"bash quoted", `grep KEY "config/.env.prod" | head`, nil, "**/.env.*"},
		{"bash assignment", "FILE=~/.ssh/id_rsa ssh-add", nil, "**/*id_rsa*"},
		{"ordinary file", "", []string{"/home/dev/app/main.go"}, ""},
		{"environment.go is not .env", "", []string{"/home/dev/app/environment.go"}, ""},
		{"ordinary command", "go test ./...", nil, ""},
		{"flag is not a path", "ls --secrets", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.ExcludedBy(cwd, tt.command, tt.files); got != tt.want {
				t.Errorf("ExcludedBy(%q, %q) = %q, want %q", tt.command, tt.files, got, tt.want)
			}
		})
	}
	noGlobs := models.DefaultSettings()
	noGlobs.Privacy.ExcludeGlobs = nil
	if got := NewPolicy(noGlobs).ExcludedBy(cwd, "cat .env", nil); got != "" {
		t.Errorf("without globs nothing is excluded, got %q", got)
	}
}

func toolPayload(tool, input, response string) *Payload {
	return &Payload{SessionID: "s", Cwd: "/home/dev/app", HookEventName: hookwire.PostToolUse, ToolName: tool,
		ToolInput: json.RawMessage(input), ToolResponse: json.RawMessage(response), ToolUseID: "toolu_x", DurationMS: 12}
}

func TestObservationExcludedIsStub(t *testing.T) {
	p := NewPolicy(models.DefaultSettings())
	tests := []struct {
		name string
		ev   *Payload
		rule string
	}{
		{"read .env", toolPayload("Read", `{"file_path":"/home/dev/app/.env"}`, `{"file":{"content":"DB_PASSWORD=topsecretvalue"}}`), "**/.env"},
		{"write secrets", toolPayload("Write", `{"file_path":"/home/dev/app/secrets/k.txt","content":"topsecretvalue"}`, `{"type":"create"}`), "**/secrets/**"},
		{"bash cat key", toolPayload("Bash", `{"command":"cat ~/.ssh/id_rsa"}`, `{"stdout":"topsecretvalue"}`), "**/*id_rsa*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := observe(p, tt.ev)
			if o == nil {
				t.Fatal("an excluded call still leaves a stub")
			}
			if o.Kind != models.KindExcluded || o.ExcludedBy != tt.rule {
				t.Errorf("kind %q excludedBy %q, want excluded by %q", o.Kind, o.ExcludedBy, tt.rule)
			}
			if want := tt.ev.ToolName + ": excluded by privacy rule " + tt.rule; o.Title != want {
				t.Errorf("title %q, want %q", o.Title, want)
			}
			b, _ := json.Marshal(o)
			if strings.Contains(string(b), "topsecretvalue") || strings.Contains(string(b), "id_rsa\"") || o.Input != "" || o.Output != "" || len(o.Files) != 0 {
				t.Errorf("a stub has no content: %s", b)
			}
			if o.ToolName != tt.ev.ToolName || o.ToolUseID == nil || *o.ToolUseID != "toolu_x" || o.DurationMS != 12 {
				t.Errorf("a stub keeps tool, id and duration: %+v", o)
			}
		})
	}
}

func TestObservationReadTools(t *testing.T) {
	read := toolPayload("Read", `{"file_path":"/home/dev/app/main.go"}`, `{"file":{"content":"package main\nfunc main() {}\n","numLines":2}}`)
	tests := []struct {
		mode       string
		recorded   bool
		hasContent bool
	}{
		{models.ReadsOff, false, false},
		{models.ReadsMetadata, true, false},
		{models.ReadsFull, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			st := models.DefaultSettings()
			st.Capture.ReadTools = tt.mode
			o := observe(NewPolicy(st), read)
			if (o != nil) != tt.recorded {
				t.Fatalf("recorded = %v, want %v", o != nil, tt.recorded)
			}
			if o == nil {
				return
			}
			if o.Title != "Read main.go (2 lines)" || len(o.Files) != 1 || o.Files[0] != "/home/dev/app/main.go" {
				t.Errorf("metadata kept: title %q files %q", o.Title, o.Files)
			}
			if got := strings.Contains(o.Output, "package main"); got != tt.hasContent {
				t.Errorf("content stored = %v, want %v (output %q)", got, tt.hasContent, o.Output)
			}
		})
	}
	// The mode applies to read tools only: Bash output stays.
	st := models.DefaultSettings()
	st.Capture.ReadTools = models.ReadsOff
	if o := observe(NewPolicy(st), toolPayload("Bash", `{"command":"cat main.go"}`, `{"stdout":"package main"}`)); o == nil || o.Output != "package main" {
		t.Errorf("Bash is not a read tool: %+v", o)
	}
}

func TestObservationSkipList(t *testing.T) {
	p := NewPolicy(models.DefaultSettings())
	for _, tool := range []string{"ListMcpResourcesTool", "SlashCommand", "Skill", "TodoWrite", "AskUserQuestion"} {
		if o := observe(p, toolPayload(tool, `{}`, `{}`)); o != nil {
			t.Errorf("%s is on the default skip list but was recorded", tool)
		}
	}
	st := models.DefaultSettings()
	st.Capture.SkipTools = []string{"Bash"}
	p = NewPolicy(st)
	if observe(p, toolPayload("Bash", `{"command":"ls"}`, `{}`)) != nil {
		t.Error("a tool added to the skip list must be skipped")
	}
	if observe(p, toolPayload("TodoWrite", `{"todos":[]}`, `{}`)) == nil {
		t.Error("a tool removed from the skip list must be recorded")
	}
}

func TestObservationCleansEveryField(t *testing.T) {
	p := NewPolicy(models.DefaultSettings())
	ev := toolPayload("Bash",
		`{"command":"curl -H 'Authorization: Bearer abcdefgh12345678' https://x <private>hunter2</private>"}`,
		`{"stdout":"ghp_16C7e42F292c6912E7710c838347Ae178B4a\n<system-reminder>internal</system-reminder>done"}`)
	o := observe(p, ev)
	b, _ := json.Marshal(o)
	for _, bad := range []string{"hunter2", "abcdefgh12345678", "ghp_16C7", "internal", "<private>"} {
		if strings.Contains(string(b), bad) {
			t.Errorf("%q survived: %s", bad, b)
		}
	}
	for _, want := range []string{"[REDACTED:bearer_token]", "[REDACTED:github_token]", "done"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("missing %q: %s", want, b)
		}
	}
	big := toolPayload("Bash", `{"command":"seq 100000"}`, `{"stdout":"`+strings.Repeat("0123456789\\n", 20000)+`"}`)
	if o := observe(p, big); len(o.Output) > models.DefaultSettings().Capture.OutputCapBytes {
		t.Errorf("output of %d bytes exceeds the cap", len(o.Output))
	}
}

// Nothing is cut before it is redacted: not a title (Describe shortens a
// command to 100 characters), not a long output (Window keeps its ends),
// not compact JSON input (whose quotes are \").
func TestObservationCutsAfterRedaction(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("one goroutine, nothing for the race detector to watch: make test runs it without it (test-norace)")
	}
	p := NewPolicy(models.DefaultSettings())
	key := "AKIAZ7QWERTYUIOP1234"
	cmd := strings.Repeat("a", 92) + " " + key
	out := strings.Repeat("x", windowBytes-10) + " " + key + " " + strings.Repeat("y\n", windowBytes)
	in, _ := json.Marshal(map[string]string{"command": cmd})
	resp, _ := json.Marshal(map[string]string{"stdout": out})
	o := observe(p, toolPayload("Bash", string(in), string(resp)))
	b, _ := json.Marshal(o)
	for _, part := range []string{"AKIAZ7", "QWERTYUIOP"} {
		if strings.Contains(string(b), part) {
			t.Errorf("part of a cut secret survived (%q): title %q", part, o.Title)
		}
	}
	task := observe(p, toolPayload("Task", `{"prompt":"use password: \"Hunter2Hunter2\" now","description":"d"}`, `"ok"`))
	if strings.Contains(task.Input, "Hunter2") || strings.Contains(task.Title, "Hunter2") {
		t.Errorf("a quoted value in compact JSON survived: %q", task.Input)
	}
}

// The literal prefilter only ever skips a match doublestar would refuse:
// on every pattern and path, the compiled glob answers as doublestar does.
func FuzzExcludeGlobLiteral(f *testing.F) {
	for _, g := range models.DefaultSettings().Privacy.ExcludeGlobs {
		f.Add(g, "/home/dev/app", "config/.env.local")
		f.Add(g, "/home/dev/secrets", "main.go")
	}
	f.Add("*.key", "", "a/b/server.key")
	f.Add("**/a?c/*.go", "/x", "abc/main.go")
	f.Add("[ab]*.go", "/x", "a.go")
	f.Add("{x,y}/**", "/x", "y/z")
	f.Fuzz(func(t *testing.T, pattern, cwd, name string) {
		if !doublestar.ValidatePattern(pattern) {
			t.Skip()
		}
		g := compileGlob(pattern)
		plain := excludeGlob{pattern: pattern} // no literal: doublestar alone
		if got, want := g.match(cwd, name), plain.match(cwd, name); got != want {
			t.Fatalf("%q on %q (cwd %q): %v with the literal %q, %v without", pattern, name, cwd, got, g.literal, want)
		}
	})
}
