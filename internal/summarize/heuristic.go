package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mneme-dev/mneme/internal/memory/extract"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// Heuristic summarizes from the record alone: offline, deterministic and
// free. It reads the prompts, the tool calls (files created and modified,
// commands and their outcome, failures and whether a later call fixed them,
// test runs and their results) and Claude's last answer.
type Heuristic struct{}

// Name is "heuristic".
func (Heuristic) Name() string { return GenHeuristic }

// Summarize builds the summary; it never fails.
func (h Heuristic) Summarize(_ context.Context, in *Input) (Result, error) { return h.Build(in), nil }

// testRun is the latest run of one test command.
type testRun struct {
	cmd    string
	ok     bool
	result string
}

// Build is Summarize without a context.
func (Heuristic) Build(in *Input) Result {
	r := Result{Generator: GenHeuristic, Request: request(in)}
	obs := in.Observations
	var (
		created, modified    ordered
		reads, searches, web ordered
		commands             ordered
		tests                = map[string]*testRun{}
		testOrder            []string
		tracker              = Tracker{Rel: in.rel}
		hidden               int
		editCounts           = map[string]int{}
	)
	for _, o := range obs {
		tracker.Add(o)
		switch {
		case o.ExcludedBy != "":
			hidden++
		case !o.Success:
			if IsTest(o) {
				cmd := command(o)
				if tests[cmd] == nil {
					testOrder = append(testOrder, cmd)
				}
				tests[cmd] = &testRun{cmd: cmd, ok: false, result: TestOutcome(o)}
			}
		case o.Kind == models.KindFileChange:
			for _, f := range o.Files {
				p := in.rel(f)
				if o.FileCreated && !modified.has(p) {
					created.add(p)
				} else if !created.has(p) {
					modified.add(p)
				}
				editCounts[p]++
			}
		case o.Kind == models.KindTest || IsTest(o):
			cmd := command(o)
			if tests[cmd] == nil {
				testOrder = append(testOrder, cmd)
			}
			tests[cmd] = &testRun{cmd: cmd, ok: true, result: TestOutcome(o)}
		case o.Kind == models.KindBash:
			commands.add("`" + clip(shape.FirstLine(command(o)), 80) + "`")
		case o.Kind == models.KindRead:
			for _, f := range o.Files {
				reads.add(in.rel(f))
			}
		case o.Kind == models.KindSearch:
			searches.add(in.search(o))
		case o.Kind == models.KindWeb || o.Kind == models.KindAgent || o.Kind == models.KindMCP:
			web.add(o.Title)
		}
	}

	// Completed: what changed, and the tests that pass now.
	var done []string
	if created.len() > 0 {
		done = append(done, "created "+created.list(6, nil))
	}
	if modified.len() > 0 {
		done = append(done, "modified "+modified.list(6, func(p string) string {
			if n := editCounts[p]; n > 1 {
				return fmt.Sprintf("%s (%d edits)", p, n)
			}
			return p
		}))
	}
	var passing, failing []string
	for _, cmd := range testOrder {
		t := tests[cmd]
		res := ""
		if t.result != "" {
			res = " (" + t.result + ")"
		}
		if t.ok {
			passing = append(passing, fmt.Sprintf("`%s` passes%s", clip(cmd, 80), res))
		} else {
			failing = append(failing, fmt.Sprintf("`%s` still fails%s", clip(cmd, 80), res))
		}
	}
	done = append(done, passing...)
	completed := sentence(done)
	if first := extract.Gist(in.LastAssistantMessage, 300); first != "" {
		completed = strings.TrimSpace(completed + " Claude's answer: \"" + first + "\"")
	}
	r.Completed = completed

	// Investigated: why things failed, and what was looked at.
	failures := tracker.Failures
	var inv []string
	for _, f := range failures {
		s := "why " + failureLabel(in, f.Obs) + " failed"
		if f.Reason != "" {
			s += " (" + f.Reason + ")"
		}
		inv = append(inv, s)
	}
	if reads.len() > 0 {
		inv = append(inv, "read "+reads.list(5, nil))
	}
	if searches.len() > 0 {
		inv = append(inv, "searched with "+searches.list(3, nil))
	}
	if commands.len() > 0 {
		inv = append(inv, "ran "+commands.list(4, nil))
	}
	if web.len() > 0 {
		inv = append(inv, web.list(2, nil))
	}
	r.Investigated = sentence(inv)

	// Learned: the failures that were fixed, and how.
	var learned []string
	for _, f := range failures {
		if !f.Fixed {
			continue
		}
		s := failureLabel(in, f.Obs) + " failed"
		if f.Reason != "" {
			s += " with \"" + f.Reason + "\""
		}
		if len(f.Changes) > 0 {
			s += "; fixed by changing " + joinMax(f.Changes, 4)
		} else {
			s += "; it succeeded when run again"
		}
		learned = append(learned, s)
	}
	r.Learned = sentence(learned)

	// Next: what still fails, and what Claude said remains.
	var next []string
	next = append(next, failing...)
	for _, f := range failures {
		if !f.Fixed && !IsTest(f.Obs) {
			s := "fix " + failureLabel(in, f.Obs)
			if f.Reason != "" {
				s += " (" + f.Reason + ")"
			}
			next = append(next, s)
		}
	}
	next = append(next, nextFromAnswer(in.LastAssistantMessage)...)
	r.NextSteps = sentence(dedupe(next))

	var notes []string
	if in.Omitted > 0 {
		notes = append(notes, fmt.Sprintf("based on the %d most important of %d tool calls", len(obs), len(obs)+in.Omitted))
	}
	if hidden > 0 {
		notes = append(notes, fmt.Sprintf("%d tool calls hidden by privacy rules", hidden))
	}
	r.Note = strings.Join(notes, "; ")
	return r
}

// request is what the user asked in the scope.
func request(in *Input) string {
	var texts []string
	for _, p := range in.Prompts {
		if t := oneLine(p.Text); t != "" {
			texts = append(texts, t)
		}
	}
	switch len(texts) {
	case 0:
		return ""
	case 1:
		return clip(texts[0], 400)
	}
	s := strings.TrimRight(clip(texts[0], 240), ".") + ". Then: "
	more := texts[1:]
	shown := more
	if len(shown) > 3 {
		shown = shown[:3]
	}
	for i, t := range shown {
		if i > 0 {
			s += "; "
		}
		s += "\"" + clip(t, 100) + "\""
	}
	if len(more) > len(shown) {
		s += fmt.Sprintf(" (+%d more prompts)", len(more)-len(shown))
	}
	return s
}

// command is a Bash call's command line (its stored input).
func command(o models.Observation) string {
	return strings.TrimSpace(o.Input)
}

// search names a Grep, Glob or LS call from its stored input (never its
// title, whose wording may change): the tool, its pattern (LS: its path),
// and, for a Grep, where it searched unless that was the session's
// directory. An input that is not the tool's JSON names the tool alone.
func (in *Input) search(o models.Observation) string {
	var args struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	if json.Unmarshal([]byte(o.Input), &args) != nil {
		return o.ToolName
	}
	what := args.Pattern
	if what == "" {
		what = args.Path
	}
	if what == "" {
		return o.ToolName
	}
	s := fmt.Sprintf("%s `%s`", o.ToolName, clip(what, 80))
	if o.ToolName == "Grep" && args.Path != "" {
		if where := in.rel(args.Path); where != "." {
			s += " in " + where
		}
	}
	return s
}

// IsTest reports whether o ran a test suite (recorded at ingest).
func IsTest(o models.Observation) bool {
	return o.Kind == models.KindTest || o.CommandKind == models.CommandTest
}

// TestOutcome is a test run's result as recorded at ingest ("3 packages
// ok", "2 tests failed", "interrupted"), or "".
func TestOutcome(o models.Observation) string { return o.TestOutcome }

// failureLabel names a failed call: its command, or tool and file.
func failureLabel(in *Input, o models.Observation) string {
	if o.ToolName == "Bash" {
		return "`" + clip(shape.FirstLine(command(o)), 80) + "`"
	}
	if len(o.Files) > 0 {
		return o.ToolName + " of " + in.rel(o.Files[0])
	}
	return o.ToolName
}

var (
	reasonStrong = regexp.MustCompile(`(?i)\b(want|errors?|missing|not set|not found|no such|cannot|can't|undefined|panic|denied|refused|expected|unexpected|invalid|timed? ?out|unknown|permission|does not exist|doesn't exist)\b`)
	reasonWeak   = regexp.MustCompile(`(?i)\b(fail|failed|fatal)\b`)
	exitLine     = regexp.MustCompile(`(?i)^(exit (code|status)\s*-?\d+|FAIL\s*$|exit status \d+)$`)
)

// FailureReason picks the most telling line of an error output.
func FailureReason(out string) string {
	var weak string
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || exitLine.MatchString(l) {
			continue
		}
		if reasonStrong.MatchString(l) {
			return clip(oneLine(l), 160)
		}
		if weak == "" && reasonWeak.MatchString(l) {
			weak = l
		}
	}
	return clip(oneLine(weak), 160)
}

var (
	sentenceEnd = regexp.MustCompile(`([.!?])\s+`)
	nextHint    = regexp.MustCompile(`(?i)\b(next step|next,|todo|remaining|still need|not yet|left to|follow[- ]up|you (can|could|may|might|should) |i('d| would) (suggest|recommend)|consider )`)
	nextPrefix  = regexp.MustCompile(`(?i)^(next steps?|next|todo)\s*[:,\-–]\s*`)
	markdownRe  = regexp.MustCompile(`(?m)^\s*(#+|[-*]|\d+\.)\s+`)
)

// Sentences splits text into plain sentences, dropping markdown markers.
func Sentences(text string) []string {
	text = markdownRe.ReplaceAllString(text, "")
	var out []string
	for _, para := range strings.Split(text, "\n") {
		para = strings.TrimSpace(strings.ReplaceAll(para, "**", ""))
		if para == "" {
			continue
		}
		for _, s := range strings.Split(sentenceEnd.ReplaceAllString(para, "$1\x00"), "\x00") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// nextFromAnswer picks sentences of the answer that point to remaining work.
func nextFromAnswer(text string) []string {
	var out []string
	for _, s := range Sentences(text) {
		if nextHint.MatchString(s) {
			s = nextPrefix.ReplaceAllString(s, "")
			out = append(out, strings.TrimRight(clip(s, 240), "."))
			if len(out) == 2 {
				break
			}
		}
	}
	return out
}

// sentence joins clauses into one sentence: "A; b; c."
func sentence(clauses []string) string {
	if len(clauses) == 0 {
		return ""
	}
	s := strings.Join(clauses, "; ")
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "\"") {
		s += "."
	}
	return s
}

func dedupe(ss []string) []string {
	var o ordered
	for _, s := range ss {
		o.add(s)
	}
	return o.items
}

func joinMax(items []string, max int) string {
	o := ordered{items: items}
	return o.list(max, nil)
}

// ordered is a set that keeps insertion order.
type ordered struct {
	items []string
	seen  map[string]bool
}

func (o *ordered) add(s string) {
	if o.seen == nil {
		o.seen = map[string]bool{}
		for _, it := range o.items {
			o.seen[it] = true
		}
	}
	if s == "" || o.seen[s] {
		return
	}
	o.seen[s] = true
	o.items = append(o.items, s)
}

func (o *ordered) has(s string) bool { return o.seen[s] }
func (o *ordered) len() int          { return len(o.items) }

// list renders up to max items, then "and N more".
func (o *ordered) list(max int, show func(string) string) string {
	items := o.items
	extra := 0
	if len(items) > max {
		extra = len(items) - max
		items = items[:max]
	}
	parts := make([]string, len(items))
	for i, it := range items {
		if show != nil {
			it = show(it)
		}
		parts[i] = it
	}
	s := strings.Join(parts, ", ")
	if extra > 0 {
		s += fmt.Sprintf(" and %d more", extra)
	}
	return s
}
