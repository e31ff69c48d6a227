// Package outcome reads what a Bash call's output says came of it, without
// a model, for its title: the failing tests by name, a compiler's first
// error with its place, an HTTP status line, what a package manager added
// or why it could not, what git did, else the first line that reads as an
// error (a failure) or the last meaningful line (a success). It reads the
// text as stored (already redacted and compressed), so that titles can be
// derived again from stored rows: the worker's shaping (internal/shape)
// and the store's migrations (models) both use it. Standard library only.
package outcome

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TitleRunes bounds a Bash title that carries an outcome.
const TitleRunes = 120

// reader reads one family of outputs; "" when the output is not of
// its family or says nothing it can name.
type reader struct {
	name string
	read func(cmd string, lines []string, failed bool) string
	// chain tells an outcome that is an error chain ("a: b: c"), cut in
	// its middle when too long rather than at its end.
	chain bool
}

// readers are tried in order; the first to answer wins. Test
// runners come first (their output holds compiler errors and HTTP
// lines of its own), the generic readers last.
var readers = []reader{
	{"go test", goTestOutcome, false},
	{"pytest", pytestOutcome, false},
	{"jest/vitest", jestOutcome, false},
	{"cargo test", cargoTestOutcome, false},
	{"rspec", rspecOutcome, false},
	{"maven", mavenOutcome, false},
	{"gradle", gradleOutcome, false},
	{"mocha", mochaOutcome, false},
	{"phpunit", phpunitOutcome, false},
	{"diagnostics", diagnosticOutcome, false},
	{"http", httpOutcome, true},
	{"npm", npmOutcome, false},
	{"pip", pipOutcome, false},
	{"go get", goGetOutcome, false},
	{"cargo add", cargoAddOutcome, false},
	{"docker build", dockerBuildOutcome, false},
	{"git", gitOutcome, false},
	{"traceback", tracebackOutcome, true},
	{"generic", genericOutcome, true},
}

// Outcome is what output says came of running cmd, in one short line, or
// "" when it says nothing worth a title. failed tells a non-zero exit.
func Outcome(cmd, output string, failed bool) string {
	s, _ := read(cmd, output, failed)
	return s
}

func read(cmd, output string, failed bool) (s string, chain bool) {
	lines := outputLines(output)
	for _, r := range readers {
		if s := r.read(cmd, lines, failed); s != "" {
			return oneLine(s), r.chain
		}
	}
	return "", false
}

// exitCodeRe reads Claude Code's "Exit code N" that starts a failed Bash
// call's error.
var exitCodeRe = regexp.MustCompile(`(?i)exit (?:code|status)[: ]+(-?\d+)`)

// BashTitle is the title of a Bash call from its command and its output as
// storage keeps it (the first and last lines; a failure's starts with
// Claude Code's "Exit code N"). testOutcome is a test run's counts, said
// when the output names nothing better.
//
//	Ran `go test ./...`: 3 packages ok
//	`go test ./...`: 2 failed: TestParseHeader, TestTotals (exit 1)
//	Ran `curl -i localhost:8080/me`: HTTP/1.1 401 Unauthorized
func BashTitle(cmd, output string, success, isTest bool, testOutcome string) string {
	exit := ""
	if !success {
		first, rest, _ := strings.Cut(output, "\n")
		if m := exitCodeRe.FindStringSubmatch(first); m != nil {
			exit, output = m[1], rest
		}
	}
	outcome, chain := read(cmd, output, !success)
	if outcome == "" && isTest {
		outcome = testOutcome
	}
	if outcome == "" {
		short := "`" + truncate(FirstLine(cmd), 100) + "`"
		switch {
		case success && isTest:
			return "Ran " + short + ": passed"
		case success:
			return "Ran " + short + ": exit 0"
		case exit != "":
			return short + " failed: exit " + exit
		}
		return short + " failed"
	}
	head := "`" + truncate(FirstLine(cmd), 50) + "`: "
	tail := ""
	if success {
		head = "Ran " + head
	} else if exit != "" {
		tail = " (exit " + exit + ")"
	} else {
		head = "`" + truncate(FirstLine(cmd), 50) + "` failed: "
	}
	room := TitleRunes - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	if chain {
		return head + shortenChain(outcome, room) + tail
	}
	return head + shorten(outcome, room) + tail
}

// truncate shortens s to at most n runes, adding an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// FirstLine is the first non-empty line of s, trimmed.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// outputLines splits output into lines with their right ends trimmed and
// terminal colour codes dropped.
func outputLines(output string) []string {
	output = ansiRe.ReplaceAllString(output, "")
	lines := strings.Split(strings.ReplaceAll(output, "\r\n", "\n"), "\n")
	for i, l := range lines {
		if j := strings.LastIndexByte(l, '\r'); j >= 0 { // a progress line redrawn
			l = l[j+1:]
		}
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return lines
}

var ansiRe = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// oneLine collapses runs of white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shorten fits s into n runes, cut at its end.
func shorten(s string, n int) string {
	if n < 8 {
		n = 8
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	s = longHexRe.ReplaceAllStringFunc(s, func(h string) string { return h[:7] + "…" })
	return truncate(s, n)
}

// shortenChain fits an error chain ("a: b: c: d") into n runes: its
// cause is at its end, so it keeps as many of its last links as fit and
// fills what room is left from its start, in whole words.
func shortenChain(s string, n int) string {
	if n < 8 {
		n = 8
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	s = longHexRe.ReplaceAllStringFunc(s, func(h string) string { return h[:7] + "…" })
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	links := strings.Split(s, ": ")
	tail := ""
	for i := len(links) - 1; i > 0; i-- {
		next := links[i]
		if tail != "" {
			next += ": " + tail
		}
		if utf8.RuneCountInString(next) > n-12 {
			break
		}
		tail = next
	}
	if tail == "" {
		return truncate(s, n)
	}
	head := string([]rune(s)[:n-utf8.RuneCountInString(tail)-3])
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		head = head[:i]
	}
	return strings.TrimRight(head, " :;,") + " … " + tail
}

var longHexRe = regexp.MustCompile(`\b[0-9a-f]{16,}\b`)

// names lists the first few of a set of names: "A, B, C, …".
func names(list []string) string {
	const max = 3
	if len(list) > max {
		return strings.Join(list[:max], ", ") + ", …"
	}
	return strings.Join(list, ", ")
}

// failedNames is "N failed: A, B" (the count from the runner when it gives
// one, else the names counted).
func failedNames(count int, what string, list []string) string {
	if count < len(list) {
		count = len(list)
	}
	s := strconv.Itoa(count) + " " + what
	if len(list) > 0 {
		s += ": " + names(list)
	}
	return s
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// ---- test runners ----

var (
	goFailLineRe  = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	goOkPkgRe     = regexp.MustCompile(`^ok\s+\S+`)
	goFailPkgRe2  = regexp.MustCompile(`^FAIL\s+\S+(\s+\[(build|setup) failed\]|\s+[\d.]+s)?$`)
	goBuildFailRe = regexp.MustCompile(`^FAIL\s+\S+\s+\[(build|setup) failed\]`)
	goTimeoutRe   = regexp.MustCompile(`^panic: test timed out after (\S+)`)
)

func goTestOutcome(cmd string, lines []string, failed bool) string {
	var fails []string
	ok, bad, buildFailed := 0, 0, false
	timeout, running := "", ""
	for i, l := range lines {
		switch {
		case goFailLineRe.MatchString(l):
			fails = appendNew(fails, goFailLineRe.FindStringSubmatch(l)[1])
		case goOkPkgRe.MatchString(l):
			ok++
		case goBuildFailRe.MatchString(l):
			buildFailed = true
			bad++
		case goFailPkgRe2.MatchString(l):
			bad++
		case goTimeoutRe.MatchString(l):
			timeout = goTimeoutRe.FindStringSubmatch(l)[1]
			if i+2 < len(lines) && strings.TrimSpace(lines[i+1]) == "running tests:" {
				running = strings.Fields(lines[i+2])[0]
			}
		}
	}
	if len(fails) == 0 && ok == 0 && bad == 0 {
		return ""
	}
	// A failing subtest fails its parents too: name the subtest only.
	var leaves []string
	for _, f := range fails {
		parent := false
		for _, g := range fails {
			if strings.HasPrefix(g, f+"/") {
				parent = true
				break
			}
		}
		if !parent {
			leaves = append(leaves, f)
		}
	}
	switch {
	case timeout != "" && running != "":
		return "timed out after " + timeout + ": " + running
	case timeout != "":
		return "timed out after " + timeout
	case len(leaves) > 0:
		return failedNames(len(leaves), "failed", leaves)
	case buildFailed:
		if d := firstDiagnostic(lines); d != "" {
			return "build failed: " + d
		}
		return plural(bad, "package") + " failed to build"
	case bad > 0:
		return plural(bad, "package") + " failed"
	}
	return plural(ok, "package") + " ok"
}

var (
	pytestFailedRe  = regexp.MustCompile(`^(FAILED|ERROR) (\S+?)(?: - (.*))?$`)
	pytestSummaryRe = regexp.MustCompile(`^=*\s*((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected)(?:, )?)+)(?: in [\d.]+s.*)?\s*=*$`)
	pytestELineRe   = regexp.MustCompile(`^E\s+(\S.*)$`)
)

func pytestOutcome(cmd string, lines []string, failed bool) string {
	summary := ""
	var fails []string
	firstMsg, firstE := "", ""
	for _, l := range lines {
		if m := pytestSummaryRe.FindStringSubmatch(l); m != nil && (strings.Contains(l, " in ") || strings.HasPrefix(l, "=")) {
			summary = strings.TrimSuffix(m[1], ", ")
		}
		if m := pytestFailedRe.FindStringSubmatch(l); m != nil {
			name := m[2]
			if _, after, ok := strings.Cut(name, "::"); ok {
				name = after
			}
			fails = appendNew(fails, name)
			if firstMsg == "" {
				firstMsg = m[3]
			}
		}
		if m := pytestELineRe.FindStringSubmatch(l); m != nil && firstE == "" && looksLikeError(m[1]) {
			firstE = m[1]
		}
	}
	if summary == "" {
		return ""
	}
	if len(fails) == 0 {
		if failed && firstE != "" {
			return summary + ": " + firstE
		}
		return summary
	}
	count := countOf(summary, "failed") + countOf(summary, "error") + countOf(summary, "errors")
	what := "failed"
	if countOf(summary, "failed") == 0 {
		what = "errors"
		if count == 1 {
			what = "error"
		}
	}
	s := failedNames(count, what, fails)
	if len(fails) == 1 {
		msg := firstMsg
		if msg == "" {
			msg = firstE
		}
		if msg != "" {
			s += " — " + msg
		}
	}
	return s
}

// countOf reads "N word" in a runner's summary.
func countOf(summary, word string) int {
	for _, m := range countWordRe.FindAllStringSubmatch(summary, -1) {
		if m[2] == word {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	return 0
}

var countWordRe = regexp.MustCompile(`(\d+) (\w+)`)

var (
	jestTestsRe   = regexp.MustCompile(`^Tests:\s+(.*?),?\s*\d+ total$`)
	vitestTestsRe = regexp.MustCompile(`^\s*Tests\s+(.*?)\s*\(\d+\)$`)
	jestBulletRe  = regexp.MustCompile(`^\s+● (.+)$`)
	vitestFailRe  = regexp.MustCompile(`^\s*FAIL\s+\S+ > (.+)$`)
	vitestCrossRe = regexp.MustCompile(`^\s+[×✕] (.+)$`)
)

func jestOutcome(cmd string, lines []string, failed bool) string {
	summary := ""
	var fails []string
	for _, l := range lines {
		if m := jestTestsRe.FindStringSubmatch(l); m != nil {
			summary = m[1]
		} else if m := vitestTestsRe.FindStringSubmatch(l); m != nil {
			summary = strings.ReplaceAll(m[1], " | ", ", ")
		}
		if m := jestBulletRe.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "Test suite failed to run") {
			fails = appendNew(fails, m[1])
		} else if m := vitestFailRe.FindStringSubmatch(l); m != nil {
			fails = appendNew(fails, m[1])
		} else if m := vitestCrossRe.FindStringSubmatch(l); m != nil && len(fails) == 0 {
			fails = appendNew(fails, m[1])
		}
	}
	if summary == "" {
		return ""
	}
	summary = strings.TrimSuffix(summary, ",")
	if n := countOf(summary, "failed"); len(fails) > 0 {
		return failedNames(n, "failed", fails)
	}
	return summary
}

var (
	cargoFailedTestRe = regexp.MustCompile(`^test (\S+) \.\.\. FAILED$`)
	cargoResultRe     = regexp.MustCompile(`^test result: (\w+)\. (\d+) passed; (\d+) failed`)
)

func cargoTestOutcome(cmd string, lines []string, failed bool) string {
	var fails []string
	passed, failedN, seen := 0, 0, false
	for _, l := range lines {
		if m := cargoFailedTestRe.FindStringSubmatch(l); m != nil {
			fails = appendNew(fails, m[1])
		}
		if m := cargoResultRe.FindStringSubmatch(l); m != nil {
			seen = true
			p, _ := strconv.Atoi(m[2])
			f, _ := strconv.Atoi(m[3])
			passed, failedN = passed+p, failedN+f
		}
	}
	if !seen {
		return ""
	}
	if failedN > 0 || len(fails) > 0 {
		return failedNames(failedN, "failed", fails)
	}
	return fmt.Sprintf("%d passed", passed)
}

var (
	rspecSummaryRe = regexp.MustCompile(`^(\d+) examples?, (\d+) failures?(, \d+ pending)?`)
	rspecFailedRe  = regexp.MustCompile(`^rspec \S+ # (.+)$`)
)

func rspecOutcome(cmd string, lines []string, failed bool) string {
	summary := ""
	var fails []string
	for _, l := range lines {
		if m := rspecSummaryRe.FindStringSubmatch(l); m != nil {
			summary = m[0]
		}
		if m := rspecFailedRe.FindStringSubmatch(l); m != nil {
			fails = appendNew(fails, m[1])
		}
	}
	if summary == "" {
		return ""
	}
	if n := countOf(summary, "failures") + countOf(summary, "failure"); n > 0 {
		what := "failures"
		if n == 1 {
			what = "failure"
		}
		return failedNames(n, what, fails)
	}
	return summary
}

var (
	mavenFailedTestRe = regexp.MustCompile(`^\[ERROR\] (?:Tests run:.*<<< (?:FAILURE|ERROR)! -- in \S+|(\S+)\.(\w+)(?:\(.*\))? -- Time elapsed.*<<< (?:FAILURE|ERROR)!)`)
	mavenResultRe     = regexp.MustCompile(`^\[(?:ERROR|WARNING|INFO)\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)$`)
	mavenCompileRe    = regexp.MustCompile(`^\[ERROR\] (\S+\.(?:java|kt|scala)):\[(\d+),(\d+)\] (.+)$`)
	mavenBuildRe      = regexp.MustCompile(`^\[INFO\] BUILD (SUCCESS|FAILURE)`)
)

func mavenOutcome(cmd string, lines []string, failed bool) string {
	var fails []string
	result, build, compile := "", "", ""
	for _, l := range lines {
		if m := mavenFailedTestRe.FindStringSubmatch(l); m != nil && m[2] != "" {
			fails = appendNew(fails, shortClass(m[1])+"."+m[2])
		}
		if m := mavenResultRe.FindStringSubmatch(l); m != nil {
			result = l
		}
		if m := mavenCompileRe.FindStringSubmatch(l); m != nil && compile == "" {
			compile = fmt.Sprintf("%s:[%s,%s] %s", shortPath(m[1]), m[2], m[3], m[4])
		}
		if m := mavenBuildRe.FindStringSubmatch(l); m != nil {
			build = m[1]
		}
	}
	switch {
	case compile != "":
		return compile
	case len(fails) > 0:
		m := mavenResultRe.FindStringSubmatch(result)
		n := 0
		if m != nil {
			f, _ := strconv.Atoi(m[2])
			e, _ := strconv.Atoi(m[3])
			n = f + e
		}
		return failedNames(n, "failed", fails)
	case result != "":
		m := mavenResultRe.FindStringSubmatch(result)
		return fmt.Sprintf("%s tests run, %s failures, %s errors", m[1], m[2], m[3])
	case build == "SUCCESS":
		return "BUILD SUCCESS"
	}
	return ""
}

// shortClass is a Java class name without its package.
func shortClass(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

var (
	gradleFailedRe  = regexp.MustCompile(`^(\S.*?) > (.+?) FAILED$`)
	gradleSummaryRe = regexp.MustCompile(`^(\d+) tests? completed, (\d+) failed`)
	gradleBuildRe   = regexp.MustCompile(`^BUILD (SUCCESSFUL|FAILED)\b`)
	gradleWrongRe   = regexp.MustCompile(`^\* What went wrong:$`)
)

func gradleOutcome(cmd string, lines []string, failed bool) string {
	var fails []string
	summary, build, wrong := "", "", ""
	for i, l := range lines {
		if m := gradleFailedRe.FindStringSubmatch(l); m != nil && !strings.HasPrefix(l, ">") {
			fails = appendNew(fails, m[2])
		}
		if m := gradleSummaryRe.FindStringSubmatch(l); m != nil {
			summary = m[0]
		}
		if gradleBuildRe.MatchString(l) {
			build = l
		}
		if gradleWrongRe.MatchString(l) && i+1 < len(lines) && wrong == "" {
			wrong = strings.TrimSpace(lines[i+1])
		}
	}
	switch {
	case len(fails) > 0:
		return failedNames(countOf(summary, "failed"), "failed", fails)
	case build == "":
		return ""
	case wrong != "":
		if d := firstDiagnostic(lines); d != "" {
			return d
		}
		return wrong
	}
	return build
}

var (
	mochaCountRe = regexp.MustCompile(`^\s+(\d+) (passing|failing|pending)\b`)
	mochaItemRe  = regexp.MustCompile(`^\s+(\d+)\) (.+)$`)
)

func mochaOutcome(cmd string, lines []string, failed bool) string {
	passing, failing := -1, 0
	var fails []string
	seen := map[string]bool{}
	for _, l := range lines {
		if m := mochaCountRe.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			switch m[2] {
			case "passing":
				passing = n
			case "failing":
				failing = n
			}
			continue
		}
		// The spec list names a failing test by its number first; the
		// report after it repeats the number with the suite.
		if m := mochaItemRe.FindStringSubmatch(l); m != nil && passing < 0 && !seen[m[1]] {
			seen[m[1]] = true
			fails = append(fails, strings.TrimSuffix(m[2], ":"))
		}
	}
	if passing < 0 {
		return ""
	}
	if failing > 0 {
		return failedNames(failing, "failing", fails)
	}
	return fmt.Sprintf("%d passing", passing)
}

var (
	phpunitHeadRe   = regexp.MustCompile(`^There (?:was|were) (\d+) (failures?|errors?):$`)
	phpunitItemRe   = regexp.MustCompile(`^\d+\) (\S+::\S+)$`)
	phpunitResultRe = regexp.MustCompile(`^(?:OK \((\d+) tests?|Tests: (\d+), Assertions: \d+(.*)\.$)`)
)

func phpunitOutcome(cmd string, lines []string, failed bool) string {
	var fails []string
	result := ""
	bad := 0
	for _, l := range lines {
		if m := phpunitHeadRe.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			bad += n
		}
		if m := phpunitItemRe.FindStringSubmatch(l); m != nil {
			name := m[1]
			if i := strings.LastIndexByte(name[:strings.Index(name, "::")], '\\'); i >= 0 {
				name = name[i+1:]
			}
			fails = appendNew(fails, name)
		}
		if phpunitResultRe.MatchString(l) {
			result = l
		}
	}
	if result == "" {
		return ""
	}
	if bad > 0 || len(fails) > 0 {
		return failedNames(bad, "failed", fails)
	}
	return strings.TrimSuffix(result, ".")
}

// ---- compilers, linters, type checkers ----

var (
	// path:line:col: error: msg (gcc, clang, go vet's style), path:line: error: msg (mypy)
	ccDiagRe = regexp.MustCompile(`^(\S+?):(\d+)(?::(\d+))?: (?:fatal )?error: (.+)$`)
	// path:line:col: msg (go build, ruff, golangci-lint)
	plainDiagRe = regexp.MustCompile(`^(\S+?\.[A-Za-z]\w*):(\d+):(\d+): (.+)$`)
	// path(line,col): error TS1234: msg (tsc)
	tscDiagRe = regexp.MustCompile(`^(\S+?)\((\d+),(\d+)\): error (TS\d+): (.+)$`)
	// error[E0308]: msg, then --> path:line:col (rustc)
	rustErrRe = regexp.MustCompile(`^error(\[E\d+\])?: (.+)$`)
	rustAtRe  = regexp.MustCompile(`^\s*--> (\S+:\d+:\d+)$`)
	// eslint's stylish format: the file, then "  line:col  error  msg  rule"
	eslintItemRe = regexp.MustCompile(`^\s+(\d+):(\d+)\s+error\s+(.+?)(?:\s{2,}\S+)?$`)
	eslintFileRe = regexp.MustCompile(`^(/|[A-Za-z]:\\|\./|[\w.-]+/)\S*\.\w+$`)
	// the linker
	ldRe = regexp.MustCompile(`undefined reference to .+|ld: .*(?:not found|undefined).*`)
)

func diagnosticOutcome(cmd string, lines []string, failed bool) string {
	if !failed {
		return ""
	}
	return firstDiagnostic(lines)
}

// firstDiagnostic is the first compiler or linter error of lines, with
// its place: "src/a.ts(12,5): error TS2322: …", "src/main.rs:14:22:
// mismatched types".
func firstDiagnostic(lines []string) string {
	file := ""
	for i, l := range lines {
		if m := tscDiagRe.FindStringSubmatch(l); m != nil {
			return fmt.Sprintf("%s(%s,%s): error %s: %s", shortPath(m[1]), m[2], m[3], m[4], m[5])
		}
		if m := ccDiagRe.FindStringSubmatch(l); m != nil {
			place := shortPath(m[1]) + ":" + m[2]
			if m[3] != "" {
				place += ":" + m[3]
			}
			return place + ": error: " + m[4]
		}
		if m := rustErrRe.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[2], "could not compile") && !strings.HasPrefix(m[2], "aborting") {
			for j := i + 1; j < len(lines) && j <= i+3; j++ {
				if at := rustAtRe.FindStringSubmatch(lines[j]); at != nil {
					return at[1] + ": error" + m[1] + ": " + m[2]
				}
			}
		}
		if eslintFileRe.MatchString(l) {
			file = l
			continue
		}
		if m := eslintItemRe.FindStringSubmatch(l); m != nil && file != "" {
			return fmt.Sprintf("%s:%s:%s: %s", shortPath(file), m[1], m[2], m[3])
		}
		if m := plainDiagRe.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[4], "warning") && !strings.HasPrefix(m[4], "note") {
			return fmt.Sprintf("%s:%s:%s: %s", shortPath(m[1]), m[2], m[3], m[4])
		}
	}
	for _, l := range lines {
		if m := ldRe.FindString(l); m != "" {
			return m
		}
	}
	return ""
}

// shortPath keeps the last three elements of a long path.
func shortPath(p string) string {
	if len(p) <= 40 {
		return p
	}
	parts := strings.Split(p, "/")
	if len(parts) <= 3 {
		return p
	}
	return "…/" + path.Join(parts[len(parts)-3:]...)
}

// ---- HTTP ----

var (
	httpStatusRe = regexp.MustCompile(`^(?:< )?(HTTP/[\d.]+ \d{3}(?: .*)?)$`)
	curlErrRe    = regexp.MustCompile(`^curl: \(\d+\) (.+)$`)
	httpCmdRe    = regexp.MustCompile(`(^|[\s;&|(])(curl|http|https|xh|wget)\s`)
)

func httpOutcome(cmd string, lines []string, failed bool) string {
	if !httpCmdRe.MatchString(FirstLine(cmd) + " ") {
		return ""
	}
	status := ""
	for _, l := range lines {
		if m := httpStatusRe.FindStringSubmatch(l); m != nil && !strings.Contains(m[1], " 100 Continue") {
			status = strings.TrimSpace(m[1])
		}
		if m := curlErrRe.FindStringSubmatch(l); m != nil {
			return "curl: " + m[1]
		}
	}
	return status
}

// ---- package managers ----

var (
	npmErrRe   = regexp.MustCompile(`^npm (?:ERR!|error) ?(.*)$`)
	npmCodeRe  = regexp.MustCompile(`^npm (?:ERR!|error) code (\S+)$`)
	npmAddedRe = regexp.MustCompile(`^((?:added|removed|changed) \d+ packages?(?:, (?:added|removed|changed) \d+ packages?)*|up to date)\b`)
	npmPeerRe  = regexp.MustCompile(`^npm (?:ERR!|error) (peer \S+ from \S+)$`)
)

func npmOutcome(cmd string, lines []string, failed bool) string {
	code, first, peer := "", "", ""
	for _, l := range lines {
		if m := npmCodeRe.FindStringSubmatch(l); m != nil {
			code = m[1]
			continue
		}
		if m := npmPeerRe.FindStringSubmatch(l); m != nil && peer == "" {
			peer = m[1]
		}
		if m := npmErrRe.FindStringSubmatch(l); m != nil && first == "" && code != "" {
			if s := strings.TrimSpace(m[1]); s != "" {
				first = s
			}
		}
		if m := npmAddedRe.FindStringSubmatch(l); m != nil && !failed {
			return m[1]
		}
	}
	switch {
	case first != "" && peer != "":
		return first + ": " + peer
	case first != "":
		return first
	}
	return code
}

var (
	pipErrRe       = regexp.MustCompile(`^ERROR: (.+)$`)
	pipInstalledRe = regexp.MustCompile(`^Successfully installed (.+)$`)
	pipCmdRe       = regexp.MustCompile(`\b(pip3?|uv pip|python3? -m pip)\s+install\b(.*)`)
)

func pipOutcome(cmd string, lines []string, failed bool) string {
	m := pipCmdRe.FindStringSubmatch(FirstLine(cmd))
	if m == nil {
		return ""
	}
	for _, l := range lines {
		if e := pipErrRe.FindStringSubmatch(l); e != nil && failed {
			return e[1]
		}
		if ok := pipInstalledRe.FindStringSubmatch(l); ok != nil {
			return installed(strings.Fields(ok[1]), requested(m[2]))
		}
	}
	return ""
}

// requested are the package names a pip install asked for.
func requested(args string) map[string]bool {
	out := map[string]bool{}
	for _, a := range strings.Fields(args) {
		if strings.HasPrefix(a, "-") || strings.ContainsAny(a, "/") {
			continue
		}
		name := strings.FieldsFunc(a, func(r rune) bool { return strings.ContainsRune("=<>!~[;", r) })
		if len(name) > 0 {
			out[pipName(name[0])] = true
		}
	}
	return out
}

func pipName(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(s), "_", "-"), ".", "-")
}

// installed names the packages asked for first: "installed httpx-0.27.0
// (+6 more)".
func installed(pkgs []string, asked map[string]bool) string {
	var first, rest []string
	for _, p := range pkgs {
		name := p
		if i := strings.LastIndexByte(p, '-'); i > 0 {
			name = p[:i]
		}
		if asked[pipName(name)] {
			first = append(first, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(first) == 0 {
		return "installed " + names(pkgs)
	}
	s := "installed " + strings.Join(first, ", ")
	if len(rest) > 0 {
		s += fmt.Sprintf(" (+%d more)", len(rest))
	}
	return s
}

var goGetRe = regexp.MustCompile(`^go: (added|upgraded|downgraded|removed) (\S+) (.+)$`)

func goGetOutcome(cmd string, lines []string, failed bool) string {
	if !strings.Contains(cmd, "go get") && !strings.Contains(cmd, "go mod tidy") {
		return ""
	}
	args := strings.Fields(cmd)
	var mine, others []string
	for _, l := range lines {
		m := goGetRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := m[1] + " " + m[2] + " " + m[3]
		asked := false
		for _, a := range args {
			if mod, _, _ := strings.Cut(a, "@"); mod == m[2] {
				asked = true
			}
		}
		if asked {
			mine = append(mine, s)
		} else {
			others = append(others, s)
		}
	}
	all := append(mine, others...)
	if len(all) == 0 {
		return ""
	}
	s := all[0]
	if len(all) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(all)-1)
	}
	return s
}

var cargoAddRe = regexp.MustCompile(`^\s+Adding (\S+ v\S+) to (\S+)`)

func cargoAddOutcome(cmd string, lines []string, failed bool) string {
	var added []string
	for _, l := range lines {
		if m := cargoAddRe.FindStringSubmatch(l); m != nil {
			added = append(added, m[1])
		}
	}
	if len(added) == 0 {
		return ""
	}
	return "added " + names(added)
}

var dockerNamedRe = regexp.MustCompile(`^(?:#\d+ naming to (\S+)|Successfully tagged (\S+))`)

func dockerBuildOutcome(cmd string, lines []string, failed bool) string {
	if failed {
		return ""
	}
	for _, l := range lines {
		if m := dockerNamedRe.FindStringSubmatch(l); m != nil {
			return "built " + m[1] + m[2]
		}
	}
	return ""
}

// ---- git ----

var (
	gitCommitRe   = regexp.MustCompile(`^\[(\S+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.*)$`)
	gitChangedRe  = regexp.MustCompile(`^ \d+ files? changed.*$`)
	gitSwitchedRe = regexp.MustCompile(`^(Switched to (?:a new )?branch '[^']+'|Already on '[^']+')`)
	gitConflictRe = regexp.MustCompile(`^CONFLICT \([^)]+\): (?:Merge conflict in (\S+)|(.+))$`)
	gitRejectedRe = regexp.MustCompile(`^\s*! \[(?:rejected|remote rejected)\]\s+(.+)$`)
	gitBehindRe   = regexp.MustCompile(`^Your branch is (?:behind|ahead of) .*`)
)

func gitOutcome(cmd string, lines []string, failed bool) string {
	var conflicts []string
	switched, behind := "", ""
	for i, l := range lines {
		if m := gitCommitRe.FindStringSubmatch(l); m != nil {
			s := m[2] + " on " + m[1]
			if i+1 < len(lines) && gitChangedRe.MatchString(lines[i+1]) {
				s += ", " + strings.TrimSpace(lines[i+1])
			}
			return s
		}
		if m := gitConflictRe.FindStringSubmatch(l); m != nil {
			conflicts = appendNew(conflicts, m[1]+m[2])
		}
		if m := gitRejectedRe.FindStringSubmatch(l); m != nil {
			return "rejected " + oneLine(m[1])
		}
		if m := gitSwitchedRe.FindStringSubmatch(l); m != nil && switched == "" {
			switched = m[1]
		}
		if m := gitBehindRe.FindString(l); m != "" && behind == "" {
			behind = strings.TrimSuffix(m, ".")
		}
	}
	switch {
	case len(conflicts) > 0:
		return "conflicts in " + names(conflicts)
	case switched != "" && behind != "":
		return switched + "; " + behind
	}
	return switched
}

// ---- the rest ----

var (
	tracebackRe = regexp.MustCompile(`^Traceback \(most recent call last\):$`)
	pyExcRe     = regexp.MustCompile(`^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Fault)|[A-Za-z_][\w.]*\.[A-Z]\w*)(?::\s*(.*))?$`)
	javaExcRe   = regexp.MustCompile(`^Exception in thread "[^"]*" (\S+?)(?::\s*(.*))?$`)
)

func tracebackOutcome(cmd string, lines []string, failed bool) string {
	if !failed {
		return ""
	}
	inTrace := false
	last := ""
	for _, l := range lines {
		if m := javaExcRe.FindStringSubmatch(l); m != nil {
			return shortClass(m[1]) + tailMsg(m[2])
		}
		if tracebackRe.MatchString(l) {
			inTrace = true
			continue
		}
		if inTrace && !strings.HasPrefix(l, " ") && pyExcRe.MatchString(l) {
			last = l
		}
	}
	return last
}

func tailMsg(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// errorWords mark a line that reads as an error.
var errorWords = regexp.MustCompile(`(?i)(\b(error|fatal|failed|failure|cannot|can't|could not|couldn't|unable|denied|not found|no such|exception|refused|panic|undefined|invalid|missing|conflict|rejected|timed out|timeout|segmentation fault|not allowed|forbidden|unauthorized|does not exist|doesn't exist|not installed|unknown)\b|ERR!)`)

func looksLikeError(l string) bool { return errorWords.MatchString(l) }

// contentCommands print what they read (a file, matches, a diff): their
// last line is no outcome.
var contentCommands = regexp.MustCompile(`^\s*(cat|head|tail|less|more|sed|awk|grep|egrep|rg|ag|find|fd|tree|git (diff|show|log|blame)|diff|jq|yq|xxd|od|sort|uniq|nl|bat)\b`)

func genericOutcome(cmd string, lines []string, failed bool) string {
	if failed {
		for _, l := range lines {
			if s := strings.TrimSpace(l); meaningful(s) && looksLikeError(s) && !strings.HasPrefix(s, "at ") {
				return s
			}
		}
	} else if contentCommands.MatchString(FirstLine(cmd)) {
		return ""
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(lines[i]); meaningful(s) && (failed || !asideRe.MatchString(s)) {
			return s
		}
	}
	return ""
}

// asideRe marks a line that is said in passing (a warning, a hint, a
// notice), no outcome of a command that succeeded.
var asideRe = regexp.MustCompile(`(?i)^(warning|warn|npm warn|hint|note|notice|info|deprecat\w*)\b`)

// meaningful tells a line that says something: not blank, not a rule,
// not a box or progress bar, not an elision marker.
func meaningful(s string) bool {
	if s == "" || strings.HasPrefix(s, "… ") && strings.HasSuffix(s, " omitted …") {
		return false
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			letters++
		}
	}
	return letters >= 2
}
