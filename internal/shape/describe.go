package shape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/outcome"

	"github.com/mneme-dev/mneme/models"
)

// Importance scores, after the Hook Layer design.
const (
	ImportanceFailure    = 1.0
	ImportanceTest       = 0.9
	ImportanceFileChange = 0.7
	ImportanceOther      = 0.5
	ImportanceRead       = 0.3
)

// Described is the deterministic reading of one tool call: a one-line title,
// a kind, an importance, the files it touched, and the text to store as its
// input and output (not yet redacted or compressed).
type Described struct {
	Kind       string
	Title      string
	Input      string
	Output     string
	Files      []string
	Success    bool
	Importance float64
	IsRead     bool
	IsTest     bool
	// CommandKind is a Bash call's models.CommandTest or CommandShell.
	CommandKind string
	// TestOutcome is a test run's result as its runner reported it ("3
	// packages ok", "2 tests failed"), "interrupted", or "" when the
	// output says nothing countable.
	TestOutcome string
	// FileCreated tells that a Write made a new file.
	FileCreated bool
}

// readTools are the tools whose capture the readTools setting controls.
var readTools = map[string]bool{"Read": true, "Grep": true, "Glob": true, "LS": true, "NotebookRead": true}

// IsReadTool reports whether the tool only reads (Read, Grep, Glob, LS).
func IsReadTool(name string) bool { return readTools[name] }

var testCommand = regexp.MustCompile(`(?i)(^|[\s;&|(])(go test|gotestsum|pytest|py\.test|python3? -m (pytest|unittest)|(npm|pnpm|yarn|bun)( run)? test|npx (jest|vitest|mocha)|jest|vitest|mocha|cargo (test|nextest)|make (test|check)|mvn( -\S+)* test|gradle(w)? test|\./gradlew test|rspec|phpunit|ctest|tox|deno test|mix test|dotnet test|swift test)\b`)

// Describe reads a hookwire.PostToolUse or hookwire.PostToolUseFailure
// event.
func Describe(e *Event) Described {
	p := &e.p
	in := object(p.ToolInput)
	resp := object(p.ToolResponse)
	d := Described{Success: p.HookEventName != hookwire.PostToolUseFailure, Kind: models.KindToolUse, Importance: ImportanceOther}
	rel := func(path string) string { return relPath(p.Cwd, path) }

	switch name := p.ToolName; {
	case name == "Bash":
		cmd := str(in, "command")
		d.Input = cmd
		d.IsTest = testCommand.MatchString(cmd)
		d.Kind, d.CommandKind = models.KindBash, models.CommandShell
		if d.IsTest {
			d.Kind, d.Importance, d.CommandKind = models.KindTest, ImportanceTest, models.CommandTest
		}
		out := joinOutput(str(resp, "stdout"), str(resp, "stderr"))
		if out == "" && len(resp) == 0 && len(p.ToolResponse) > 0 {
			out = rawText(p.ToolResponse)
		}
		d.Output = out
		if d.IsTest {
			if interrupted, _ := resp["interrupted"].(bool); interrupted {
				d.TestOutcome = "interrupted"
			} else {
				d.TestOutcome = testResult(out)
			}
		}
		d.Title = bashTitle(cmd, out, d.IsTest, resp)
	case name == "Write":
		path := str(in, "file_path")
		content := str(in, "content")
		d.Files = []string{path}
		d.Kind, d.Importance = models.KindFileChange, ImportanceFileChange
		verb := "Wrote"
		if str(resp, "type") == "create" {
			verb, d.FileCreated = "Created", true
		}
		d.Title = fmt.Sprintf("%s %s (%s)", verb, rel(path), plural(lineCount(content), "line"))
		d.Input = path
		d.Output = content
	case name == "Edit" || name == "MultiEdit":
		path := str(in, "file_path")
		d.Files = []string{path}
		d.Kind, d.Importance = models.KindFileChange, ImportanceFileChange
		diff, added, removed := patchText(resp)
		if diff == "" {
			// No structuredPatch (older Claude Code, compat routes): count
			// the lines of the replaced and replacing text instead.
			diff = editText(in)
			removed, added = lineCount(str(in, "old_string")), lineCount(str(in, "new_string"))
		}
		d.Title = fmt.Sprintf("Edited %s (+%d −%d)", rel(path), added, removed)
		if name == "MultiEdit" {
			if edits, ok := in["edits"].([]any); ok {
				d.Title = fmt.Sprintf("Edited %s (%s, +%d −%d)", rel(path), plural(len(edits), "edit"), added, removed)
			}
		}
		d.Input = path
		d.Output = diff
	case name == "NotebookEdit":
		path := str(in, "notebook_path")
		d.Files = []string{path}
		d.Kind, d.Importance = models.KindFileChange, ImportanceFileChange
		d.Title = "Edited notebook " + rel(path)
		d.Input = compactJSON(p.ToolInput)
	case name == "Read" || name == "NotebookRead":
		path := firstNonEmpty(str(in, "file_path"), str(in, "notebook_path"))
		d.Files = []string{path}
		d.Kind, d.Importance, d.IsRead = models.KindRead, ImportanceRead, true
		file, _ := resp["file"].(map[string]any)
		d.Title = "Read " + rel(path)
		if n, ok := num(file, "numLines"); ok {
			d.Title += fmt.Sprintf(" (%s)", plural(n, "line"))
		}
		d.Input = path
		d.Output = str(file, "content")
	case name == "Grep":
		d.Kind, d.Importance, d.IsRead = models.KindSearch, ImportanceRead, true
		d.Title = fmt.Sprintf("Grep `%s`", Truncate(str(in, "pattern"), 80))
		if path := str(in, "path"); path != "" {
			d.Title += " in " + rel(path)
			d.Files = []string{path}
		}
		if n, ok := num(resp, "numFiles"); ok {
			d.Title += ": " + plural(n, "file")
		}
		d.Input = compactJSON(p.ToolInput)
		d.Output = firstNonEmpty(str(resp, "content"), strings.Join(strs(resp, "filenames"), "\n"))
	case name == "Glob" || name == "LS":
		d.Kind, d.Importance, d.IsRead = models.KindSearch, ImportanceRead, true
		d.Title = fmt.Sprintf("%s `%s`", name, Truncate(firstNonEmpty(str(in, "pattern"), str(in, "path")), 80))
		if n, ok := num(resp, "numFiles"); ok {
			d.Title += ": " + plural(n, "file")
		}
		d.Input = compactJSON(p.ToolInput)
		d.Output = strings.Join(strs(resp, "filenames"), "\n")
	case name == "WebFetch":
		d.Kind = models.KindWeb
		d.Title = "Fetched " + Truncate(str(in, "url"), 120)
		d.Input = compactJSON(p.ToolInput)
		d.Output = firstNonEmpty(str(resp, "result"), rawText(p.ToolResponse))
	case name == "WebSearch":
		d.Kind = models.KindWeb
		d.Title = "Searched the web for " + strconv.Quote(Truncate(str(in, "query"), 100))
		d.Input = compactJSON(p.ToolInput)
		d.Output = rawText(p.ToolResponse)
	case name == "Task" || name == "Agent":
		d.Kind = models.KindAgent
		agent := firstNonEmpty(str(in, "subagent_type"), "agent")
		d.Title = fmt.Sprintf("Agent %s: %s", agent, Truncate(firstNonEmpty(str(in, "description"), FirstLine(str(in, "prompt"))), 100))
		d.Input = compactJSON(p.ToolInput)
		d.Output = rawText(p.ToolResponse)
	case strings.HasPrefix(name, "mcp__"):
		d.Kind = models.KindMCP
		parts := strings.SplitN(strings.TrimPrefix(name, "mcp__"), "__", 2)
		label := parts[0]
		if len(parts) == 2 {
			label += " › " + parts[1]
		}
		d.Title = "MCP " + label
		if arg := firstString(in); arg != "" {
			d.Title += ": " + Truncate(FirstLine(arg), 80)
		}
		d.Input = compactJSON(p.ToolInput)
		d.Output = rawText(p.ToolResponse)
	default:
		d.Title = name
		if arg := firstString(in); arg != "" {
			d.Title += ": " + Truncate(FirstLine(arg), 100)
		}
		d.Input = compactJSON(p.ToolInput)
		d.Output = rawText(p.ToolResponse)
	}

	if !d.Success {
		d.Kind, d.Importance = models.KindFailure, ImportanceFailure
		d.Output = p.Error
		d.Title = failureTitle(e, in, d)
		if d.IsTest {
			d.TestOutcome = testResult(p.Error)
			if p.IsInterrupt {
				d.TestOutcome = "interrupted"
			}
		}
	}
	d.Title = Truncate(strings.Join(strings.Fields(d.Title), " "), 200)
	d.Files = cleanFiles(d.Files)
	return d
}

func bashTitle(cmd, out string, isTest bool, resp map[string]any) string {
	if interrupted, _ := resp["interrupted"].(bool); interrupted {
		return "Ran `" + Truncate(FirstLine(cmd), 100) + "`: interrupted"
	}
	return bashOutcomeTitle(cmd, out, true, isTest)
}

// bashOutcomeTitle is the title outcome.BashTitle reads from what storage
// will keep of out (its first and last lines), so that a title derived
// again from a stored row is the one made here.
func bashOutcomeTitle(cmd, out string, success, isTest bool) string {
	return outcome.BashTitle(cmd, Compress(Window(out), 0), success, isTest, testResult(out))
}

var (
	countRe      = regexp.MustCompile(`(?i)\b(\d+) (passed|failed|errors?|failures?|skipped)\b`)
	goFailRe     = regexp.MustCompile(`(?m)^\s*--- FAIL: `)
	goPassPkgRe  = regexp.MustCompile(`(?m)^ok\s+\S+`)
	goFailPkgRe  = regexp.MustCompile(`(?m)^FAIL\s+\S+`)
	cargoSummary = regexp.MustCompile(`test result: \w+\. (\d+) passed; (\d+) failed`)
)

// testResult reads a test runner's output for its outcome, e.g. "2 failed,
// 10 passed" or "3 packages ok".
func testResult(out string) string {
	if m := cargoSummary.FindStringSubmatch(out); m != nil {
		return fmt.Sprintf("%s passed, %s failed", m[1], m[2])
	}
	if fails := len(goFailRe.FindAllString(out, -1)); fails > 0 {
		return plural(fails, "test") + " failed"
	}
	if bad := len(goFailPkgRe.FindAllString(out, -1)); bad > 0 {
		return plural(bad, "package") + " failed"
	}
	if ok := len(goPassPkgRe.FindAllString(out, -1)); ok > 0 {
		return plural(ok, "package") + " ok"
	}
	counts := map[string]string{}
	var order []string
	for _, m := range countRe.FindAllStringSubmatch(out, -1) {
		k := strings.ToLower(m[2])
		if _, seen := counts[k]; !seen {
			order = append(order, k)
		}
		counts[k] = m[1]
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		parts = append(parts, counts[k]+" "+k)
	}
	return strings.Join(parts, ", ")
}

func failureTitle(e *Event, in map[string]any, d Described) string {
	p := &e.p
	if p.IsInterrupt {
		return p.ToolName + " interrupted"
	}
	if p.ToolName == "Bash" {
		return bashOutcomeTitle(str(in, "command"), p.Error, false, d.IsTest)
	}
	subject := p.ToolName
	if len(d.Files) > 0 && d.Files[0] != "" {
		subject += " " + relPath(p.Cwd, d.Files[0])
	}
	return subject + " failed: " + Truncate(FirstLine(p.Error), 120)
}

func joinOutput(stdout, stderr string) string {
	stdout, stderr = strings.TrimRight(stdout, "\n"), strings.TrimRight(stderr, "\n")
	switch {
	case stderr == "":
		return stdout
	case stdout == "":
		return stderr
	}
	return stdout + "\n" + stderr
}

// patchText renders Claude Code's structuredPatch as a unified diff body and
// counts the lines added and removed.
func patchText(resp map[string]any) (diff string, added, removed int) {
	hunks, _ := resp["structuredPatch"].([]any)
	var b strings.Builder
	for _, h := range hunks {
		hunk, _ := h.(map[string]any)
		os, _ := num(hunk, "oldStart")
		ol, _ := num(hunk, "oldLines")
		ns, _ := num(hunk, "newStart")
		nl, _ := num(hunk, "newLines")
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", os, ol, ns, nl)
		for _, l := range strs(hunk, "lines") {
			switch {
			case strings.HasPrefix(l, "+"):
				added++
			case strings.HasPrefix(l, "-"):
				removed++
			}
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String(), added, removed
}

func editText(in map[string]any) string {
	old, nw := str(in, "old_string"), str(in, "new_string")
	if old == "" && nw == "" {
		return ""
	}
	return "- " + strings.ReplaceAll(old, "\n", "\n- ") + "\n+ " + strings.ReplaceAll(nw, "\n", "\n+ ")
}

func relPath(cwd, path string) string {
	if cwd == "" || path == "" || !filepath.IsAbs(path) {
		return path
	}
	if r, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

func cleanFiles(files []string) []string {
	out := files[:0]
	seen := map[string]bool{}
	for _, f := range files {
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	if len(out) == 0 {
		return []string{}
	}
	return out
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func object(raw json.RawMessage) map[string]any {
	var m map[string]any
	if len(raw) > 0 && raw[0] == '{' {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func num(m map[string]any, key string) (int, bool) {
	f, ok := m[key].(float64)
	return int(f), ok
}

func strs(m map[string]any, key string) []string {
	arr, _ := m[key].([]any)
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func firstString(m map[string]any) string {
	for _, k := range []string{"query", "prompt", "url", "path", "file_path", "command", "name", "description"} {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// rawText renders a tool response for storage: a JSON string as its text,
// anything else as compact JSON.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return compactJSON(raw)
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// Reading a stored observation of an older mneme, which kept no command
// kind or test outcome: the command is its stored input, and the outcome
// was written into its display title ("Ran `go test`: 3 packages ok",
// "`go test` failed: exit 1 — 2 tests failed"). Used once per row, when
// the worker first starts on such a database; nothing reads titles after.
var (
	legacyOutcomeRe     = regexp.MustCompile(`(?:: | — )((?:\d+ \w+(?:, )?)+(?: failed| ok| passed)?)$`)
	legacyInterruptedRe = regexp.MustCompile(`: interrupted$`)
)

// ClassifyStored returns the command kind and test outcome of a Bash
// observation stored before they were fields.
func ClassifyStored(o models.Observation) (commandKind, testOutcome string) {
	if o.ToolName != "Bash" {
		return "", ""
	}
	if o.Kind != models.KindTest && !testCommand.MatchString(o.Input) {
		return models.CommandShell, ""
	}
	switch m := legacyOutcomeRe.FindStringSubmatch(o.Title); {
	case legacyInterruptedRe.MatchString(o.Title):
		return models.CommandTest, "interrupted"
	case m != nil:
		return models.CommandTest, m[1]
	}
	return models.CommandTest, ""
}
