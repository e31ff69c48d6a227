package shape

import (
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/mneme-dev/mneme/internal/failsig"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

// Policy is the compiled form of the runtime settings that the ingest path
// consults on every event. Build it once per settings change.
type Policy struct {
	Settings models.Settings
	Redactor *privacy.Redactor
	skip     map[string]bool
	excluded map[string]bool
	globs    []excludeGlob
}

// NewPolicy compiles settings into a Policy.
func NewPolicy(s models.Settings) *Policy {
	p := &Policy{
		Settings: s,
		Redactor: privacy.New(s.Privacy.RedactionRules),
		skip:     map[string]bool{},
		excluded: map[string]bool{},
	}
	for _, t := range s.Capture.SkipTools {
		p.skip[t] = true
	}
	for _, proj := range s.Privacy.ExcludedProjects {
		p.excluded[proj] = true
	}
	for _, g := range s.Privacy.ExcludeGlobs {
		p.globs = append(p.globs, compileGlob(g))
	}
	return p
}

// Skips reports whether the tool is on the skip list, or is a read tool and
// reads are not recorded.
func (p *Policy) Skips(tool string) bool {
	if p.skip[tool] {
		return true
	}
	return IsReadTool(tool) && p.Settings.Capture.ReadTools == models.ReadsOff
}

// ProjectExcluded reports whether nothing at all is stored for project.
func (p *Policy) ProjectExcluded(project string) bool { return p.excluded[project] }

// Clean strips tags and redacts secrets: the treatment of every stored
// string. NUL bytes are dropped and invalid UTF-8 replaced, so what is
// stored is always clean text (see privacy.Redactor.Clean).
func (p *Policy) Clean(s string) string { return p.Redactor.Clean(s) }

// CleanLong is Clean for text that may be long (tool output, prompts, the
// last assistant message): the whole text is cleaned first, then windowed
// (Window), so that a secret across the cut is redacted whole, never cut
// in two. The worker's input is bounded by its 2 MiB body limit.
func (p *Policy) CleanLong(s string) string { return Window(p.Clean(s)) }

// CleanID cleans an identifier (session, tool use or prompt id): one that
// cleaning changes is stored as its cleaned form and a hash of the raw id,
// the same for every event (see privacy.Redactor.CleanID).
func (p *Policy) CleanID(s string) string { return p.Redactor.CleanID(s) }

// ExcludedBy returns the exclude glob that matches one of the files, or a
// path-like token of a Bash command, or "" when none does.
func (p *Policy) ExcludedBy(cwd, command string, files []string) string {
	if len(p.globs) == 0 {
		return ""
	}
	candidates := make([]string, 0, len(files)+4)
	candidates = append(candidates, files...)
	if command != "" {
		for _, tok := range strings.FieldsFunc(command, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '|' || r == '&' || r == '<' || r == '>' || r == '(' || r == ')' || r == '=' || r == '`'
		}) {
			tok = strings.Trim(tok, `"'`)
			if tok != "" && !strings.HasPrefix(tok, "-") {
				candidates = append(candidates, tok)
			}
		}
	}
	for _, c := range candidates {
		for _, g := range p.globs {
			if g.match(cwd, c) {
				return g.pattern
			}
		}
	}
	return ""
}

// excludeGlob is an exclude glob with the text any match must contain.
type excludeGlob struct {
	pattern string
	// literal is the longest run of plain characters between the
	// pattern's wildcards and separators: every path the pattern matches
	// contains it, so a path without it is refused without matching. ""
	// when the pattern has classes, alternatives or escapes, or is not
	// UTF-8 (doublestar reads any invalid byte as U+FFFD).
	literal string
}

func compileGlob(pattern string) excludeGlob {
	g := excludeGlob{pattern: pattern}
	if strings.ContainsAny(pattern, "[]{}\\") || !utf8.ValidString(pattern) {
		return g
	}
	for _, part := range strings.FieldsFunc(pattern, func(r rune) bool { return r == '*' || r == '?' || r == '/' }) {
		if len(part) > len(g.literal) {
			g.literal = part
		}
	}
	return g
}

// match matches a gitignore-like glob: a pattern without '/' matches the
// base name; one with '/' matches the path, absolute or relative to cwd.
// "**/x" also matches "x" at the top.
func (g excludeGlob) match(cwd, name string) bool {
	name = filepath.ToSlash(name)
	if !strings.Contains(g.pattern, "/") {
		return g.matchOne(g.pattern, path.Base(name))
	}
	abs := name
	if !path.IsAbs(abs) && cwd != "" {
		abs = path.Join(filepath.ToSlash(cwd), name)
	}
	pattern := strings.TrimPrefix(g.pattern, "/")
	return g.matchOne(pattern, strings.TrimPrefix(abs, "/")) || g.matchOne(pattern, strings.TrimPrefix(name, "./"))
}

func (g excludeGlob) matchOne(pattern, name string) bool {
	if !strings.Contains(name, g.literal) && utf8.ValidString(name) {
		return false
	}
	ok, _ := doublestar.Match(pattern, name)
	return ok
}

// Observation shapes a tool event (PostToolUse, PostToolUseFailure) into
// the observation to store, by e's policy: read-tool mode, exclude globs
// (which leave only a stub naming the rule), description, and
// compression. Its text comes from e's cleaned values, so a title may be
// cut safely; what joins several of them (a diff of many lines, compact
// JSON) is cleaned once more as joined, as a secret may span them. It
// returns nil when the tool is not recorded at all.
func (e *Event) Observation() *models.Observation {
	p, ev := e.pol, &e.p
	if p.Skips(ev.ToolName) {
		return nil
	}
	d := Describe(e)
	o := &models.Observation{
		ToolName:    ev.ToolName,
		Kind:        d.Kind,
		Success:     d.Success,
		Importance:  d.Importance,
		DurationMS:  ev.DurationMS,
		CommandKind: d.CommandKind,
		TestOutcome: p.Clean(d.TestOutcome),
		FileCreated: d.FileCreated,
	}
	if ev.ToolUseID != "" {
		id := ev.ToolUseID
		o.ToolUseID = &id
	}
	command := ""
	if ev.ToolName == "Bash" {
		command = d.Input
	}
	if rule := p.ExcludedBy(ev.Cwd, command, d.Files); rule != "" {
		o.Kind = models.KindExcluded
		o.ExcludedBy = rule
		o.Title = ev.ToolName + ": excluded by privacy rule " + rule
		o.Files = []string{}
		return o
	}
	outputCap := p.Settings.Capture.OutputCapBytes
	if d.IsRead && p.Settings.Capture.ReadTools == models.ReadsMetadata {
		d.Output = ""
	}
	o.Title = p.Clean(d.Title)
	o.Input = Compress(p.Clean(Window(d.Input)), outputCap)
	o.Output = Compress(p.Clean(Window(d.Output)), outputCap)
	o.Files = make([]string, 0, len(d.Files))
	for _, f := range d.Files {
		o.Files = append(o.Files, p.Clean(f))
	}
	if !o.Success || reportsFailingTests(o) {
		// From the text as stored, so a migration derives the same.
		o.Signature = failsig.Key(o.ToolName, o.Input, o.Output)
	}
	return o
}

// reportsFailingTests tells a call Claude Code reports as a success
// (PostToolUse) whose output says tests failed: `go test … | tee`,
// `pytest || true`. It is not a failure, but it is seen again like one.
func reportsFailingTests(o *models.Observation) bool {
	return o.CommandKind == models.CommandTest && strings.Contains(o.TestOutcome, " failed")
}
