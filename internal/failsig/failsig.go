// Package failsig gives a failed tool call its signature: what makes two
// failures the same failure, whatever their run's numbers, paths, times,
// ids and addresses. A signature names the tool, the shape of the command
// (its program and subcommand), the failing tests or the error's class,
// and what the output says of it (internal/outcome's reading) with every
// number, path, time, hex id and address masked:
//
//	Bash | go test | TestParseHeader | -
//	Bash | tsc | TS2322 | src/a.ts(N,N): error TS2322: Type 'string' is not assignable to type 'number'.
//	Edit | - | - | String to replace not found in file.
//
// It reads the text as stored (already redacted and compressed), so the
// store's migrations derive the signatures of old rows with it, and the
// worker those of new ones. Standard library only (and internal/outcome).
package failsig

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/outcome"
)

// MaxRunes bounds a signature: it is stored and indexed.
const MaxRunes = 300

// Signature is a failure's identity.
type Signature struct {
	Tool string
	// Command is a Bash call's shape: its program and subcommand ("go
	// test", "npm run build"), else its program ("./step-N"); "" for the
	// other tools.
	Command string
	// Class is the failing tests ("TestA, TestB"), or the error's class
	// when it has one (TS2322, E0308, KeyError, HTTP 500); else "".
	Class string
	// Message is what the output says came of it, masked.
	Message string
}

// String is the signature as stored: its parts joined by " | ", cut to
// MaxRunes; "" when the failure says nothing to know it by (no class and
// no message: an interrupted call, an empty error).
func (s Signature) String() string {
	if s.Class == "" && s.Message == "" {
		return ""
	}
	parts := []string{s.Tool, s.Command, s.Class, s.Message}
	for i, p := range parts {
		if p == "" {
			parts[i] = "-"
		}
	}
	return cut(strings.Join(parts, " | "), MaxRunes)
}

// ClassOf is the class part of a stored signature (the failing tests or
// the error's class), "" when it has none.
func ClassOf(signature string) string {
	parts := strings.SplitN(signature, " | ", 4)
	if len(parts) < 4 || parts[2] == "-" {
		return ""
	}
	return parts[2]
}

// Key is Of(tool, input, output).String(): the stored signature of a
// failed call of tool with input (a Bash call's command) and output (its
// error as stored).
func Key(tool, input, output string) string { return Of(tool, input, output).String() }

// Of reads the signature of a failed call of tool: input is what storage
// keeps of its input (a Bash call's command), output of its error.
func Of(tool, input, output string) Signature {
	output = stripTags(dropExitLine(ansiRe.ReplaceAllString(output, "")))
	s := Signature{Tool: tool}
	cmd := ""
	if tool == "Bash" {
		cmd = input
		s.Command = Mask(CommandShape(input))
	}
	var tests bool
	s.Class, tests = class(output)
	if tests {
		// The failing tests are the failure: the runner's line lists them
		// again, in the order they ran, which parallel tests change.
		return s
	}
	msg := outcome.Outcome(cmd, output, true)
	if msg == "" {
		msg = firstMeaningful(output)
	}
	s.Message = Mask(msg)
	return s
}

// exitLineRe is Claude Code's "Exit code N" that starts a failed Bash
// call's error: the same failure exits alike, and says it in the class
// of its tests or error.
var exitLineRe = regexp.MustCompile(`(?i)^\s*exit (?:code|status)[: ]+-?\d+\s*$`)

func dropExitLine(s string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if exitLineRe.MatchString(first) {
		if !ok {
			return ""
		}
		return rest
	}
	return s
}

var (
	ansiRe = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)
	// toolErrorTagRe is Claude Code's wrapping of a tool's own error.
	toolErrorTagRe = regexp.MustCompile(`</?tool_use_error>`)
)

func stripTags(s string) string { return toolErrorTagRe.ReplaceAllString(s, "") }

// The readers of a class, tried in order.
var (
	goFailRe     = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	goTimeoutRe  = regexp.MustCompile(`(?m)^panic: test timed out after`)
	pytestRe     = regexp.MustCompile(`(?m)^(?:FAILED|ERROR) (\S+::\S+)`)
	jestRe       = regexp.MustCompile(`(?m)^\s*● (.+?)\s*$`)
	cargoRe      = regexp.MustCompile(`(?m)^test (\S+) \.\.\. FAILED`)
	codeRe       = regexp.MustCompile(`\berror(?:\[| )((?:TS|CS|E)\d{3,5})\b`)
	excRe        = regexp.MustCompile(`(?m)^(?:Exception in thread "[^"]*" )?([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Fault))(?::|$)`)
	httpStatusRe = regexp.MustCompile(`(?m)^HTTP/[\d.]+ (\d{3})\b`)
)

// class names the failing tests (tests set) or the error's class of
// output.
func class(output string) (c string, tests bool) {
	if goTimeoutRe.MatchString(output) {
		return "test timeout", false
	}
	for _, re := range []*regexp.Regexp{goFailRe, pytestRe, cargoRe, jestRe} {
		if names := leaves(submatches(re, output)); len(names) > 0 {
			return joinNames(names), true
		}
	}
	return errorClass(output), false
}

// errorClass is the class of an error: a compiler's code, an exception's
// name, an HTTP status of 400 or more.
func errorClass(output string) string {
	if m := codeRe.FindStringSubmatch(output); m != nil {
		return m[1]
	}
	if m := excRe.FindStringSubmatch(output); m != nil {
		name := m[1]
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:] // java.lang.IllegalStateException: IllegalStateException
		}
		return name
	}
	if m := httpStatusRe.FindStringSubmatch(output); m != nil && m[1][0] >= '4' {
		return "HTTP " + m[1]
	}
	return ""
}

func submatches(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, 20) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// leaves drops the names of which another is a subtest ("TestA" of
// "TestA/b"): a failing subtest fails its parents too.
func leaves(names []string) []string {
	var out []string
	for _, n := range names {
		parent := false
		for _, m := range names {
			parent = parent || strings.HasPrefix(m, n+"/")
		}
		if !parent {
			out = append(out, n)
		}
	}
	return out
}

// joinNames lists names sorted (runners report them in the order they
// ran, which parallel tests change), the first few only.
func joinNames(names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}

func firstMeaningful(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); strings.IndexFunc(l, isAlnum) >= 0 {
			return l
		}
	}
	return ""
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// The maskers, applied in order: the longer shapes first, so a time's or
// an address's digits are not masked one number at a time.
var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), "<id>"},
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?`), "<time>"},
	{regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b`), "<time>"},
	{regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s/'"<>]+`), "<url>"},
	{regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b`), "<addr>"},
	{regexp.MustCompile(`\[[0-9a-fA-F:]*:[0-9a-fA-F:]*\](?::\d+)?`), "<addr>"},
	{regexp.MustCompile(`(?i)\blocalhost:\d+\b`), "localhost:<port>"},
	{regexp.MustCompile(`\b0x[0-9a-fA-F]+\b`), "<addr>"},
	// An absolute path (or ~/…, C:\…) of two parts or more: a temporary
	// directory, a home, a checkout. Relative paths name the project's
	// own files and stay (their line numbers do not).
	{regexp.MustCompile(`(^|[\s'"(=\[,])(?:~|[A-Za-z]:)?[/\\](?:[\w.@%+~-]+[/\\])+[\w.@%+~-]*`), "${1}<path>"},
	{regexp.MustCompile(`\b[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*\b|\b[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*\b`), "<hex>"},
	{regexp.MustCompile(`\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds|m|min|h)\b`), "<dur>"},
	{regexp.MustCompile(`\b\d+(?:\.\d+)*\b`), "N"},
}

// hexMin is the shortest run of hex digits masked as an id (a short git
// hash); shorter ones ("e2e", "a1") are words.
const hexMin = 7

// Mask replaces in s every number, path, time, hex id and address by a
// placeholder, and collapses its whitespace.
func Mask(s string) string {
	if s == "" {
		return ""
	}
	for _, m := range masks {
		switch m.with {
		case "<hex>":
			s = m.re.ReplaceAllStringFunc(s, func(h string) string {
				if len(h) < hexMin {
					return h
				}
				return "<hex>"
			})
		default:
			s = m.re.ReplaceAllString(s, m.with)
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

// CommandShape is the shape of a shell command's first line: the family
// (Family) of its first command that does something (`cd dir &&`,
// `export X=1;` and the like skipped), else that command's program.
func CommandShape(cmd string) string {
	line := outcome.FirstLine(cmd)
	for _, part := range separatorRe.Split(line, -1) {
		words := strings.Fields(part)
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			words = words[1:] // FOO=bar go test
		}
		if len(words) == 0 || setup[words[0]] {
			continue
		}
		if f := Family(strings.Join(words, " ")); f != "" {
			return f
		}
		return words[0]
	}
	return ""
}

// separatorRe splits a command line into its commands.
var separatorRe = regexp.MustCompile(`\s*(?:&&|\|\||;|\|)\s*`)

// setup are commands that prepare the one that matters.
var setup = map[string]bool{"cd": true, "pushd": true, "export": true, "source": true, ".": true, "set": true, "sudo": false}

// subcommand matches a word that reads as a subcommand ("build", "test",
// "run"), not as a path, URL, number or file name.
var subcommand = regexp.MustCompile(`^[a-z][a-z0-9_:-]*$`)

// runners are subcommands that run something named by the next word
// ("npm run build", "pnpm exec tsc").
var runners = map[string]bool{"run": true, "exec": true, "x": true}

// Family names what a shell command does, loosely enough that a rerun
// with other flags or arguments counts as the same: the program and its
// subcommand, as in "go build" for both `go build ./...` and `go build -o
// bin/app .`, or "npm run lint". Leading variable assignments and flags are
// skipped; only the first command of the first line counts. A command
// without a subcommand ("cat notes.md", "./build.sh", "curl -sS http://x")
// has no family: "".
func Family(cmd string) string {
	var words []string
	for _, w := range strings.Fields(outcome.FirstLine(cmd)) {
		switch {
		case w == "&&" || w == "||" || w == "|" || w == ";":
			return family(words)
		case len(words) == 0 && strings.Contains(w, "=") && !strings.HasPrefix(w, "-"):
			continue // FOO=bar go build
		case strings.HasPrefix(w, "-"):
			continue
		}
		words = append(words, w)
		if len(words) == 3 || len(words) == 2 && !runners[w] {
			break
		}
	}
	return family(words)
}

// family is "program sub" (or "program run target") when the words after
// the program read as subcommands, else "".
func family(words []string) string {
	if len(words) < 2 {
		return ""
	}
	for _, w := range words[1:] {
		if !subcommand.MatchString(w) {
			return ""
		}
	}
	if runners[words[1]] && len(words) < 3 {
		return ""
	}
	return strings.Join(words, " ")
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
