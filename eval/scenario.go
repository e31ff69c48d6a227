//go:build unix

// Package eval is mneme's recall benchmark: scripted multi-session
// scenarios run through real Claude Code against the loopback fake Messages
// API (package e2e), and for the session that follows them, how many of the
// facts it should know reach the model — in the SessionStart context alone,
// with the MCP search tools, and for a same-run baseline that injects the
// latest observations' titles, as claude-mem does.
//
// The scenarios and the scoring live here; the runner is TestEval
// (MNEME_EVAL=1, `make eval`).
package eval

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mneme-dev/mneme/e2e"
)

// Scenario is a few Claude Code sessions in one or more projects, then the
// next session, whose context is scored against Facts.
type Scenario struct {
	// Name is the row label of the table.
	Name string
	// Files are written into a project before its first session, by
	// project and path relative to the project (e.g. a go.mod).
	Files map[string]map[string]string
	// Sessions run in order; each is one `claude -p` run.
	Sessions []Session
	// Next is the session whose context is scored: its project and prompt.
	Next Session
	// MaxInjectTokens, when set, is the injection budget for Next (the
	// setting maxInjectTokens, put through the settings API before it).
	MaxInjectTokens int
	// Facts are what Next should know.
	Facts []Fact
	// Wrong are claims that are false for Next: another project's facts
	// (leakage), a failure said to be open after it was fixed. Each one
	// found in what Next gets takes one found fact off the score.
	Wrong []Fact
}

// Session is one scripted `claude -p` run in a project. Steps may name
// files as {{dir}}/..., replaced by the project's directory.
type Session struct {
	Project string
	Prompt  string
	Steps   []e2e.Step
}

// Fact is a thing the next session should know. It is found in a text when
// every pattern of All matches (case-insensitive regular expressions).
type Fact struct {
	// Name says the fact in words, for the report of misses.
	Name string
	// All are the patterns that must all match.
	All []string
	// Query is the `search` query the scripted model sends for this fact
	// when the SessionStart context lacks it: its topic, written from the
	// question a user would ask, never from the patterns.
	Query string

	res []*regexp.Regexp
}

// compile compiles the patterns once.
func (f *Fact) compile() error {
	if f.res != nil {
		return nil
	}
	for _, p := range f.All {
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			return fmt.Errorf("fact %q: %w", f.Name, err)
		}
		f.res = append(f.res, re)
	}
	return nil
}

// In reports whether the fact is found in text.
func (f *Fact) In(text string) bool {
	if f.compile() != nil || len(f.res) == 0 {
		return false
	}
	for _, re := range f.res {
		if !re.MatchString(text) {
			return false
		}
	}
	return true
}

// Validate checks that every pattern compiles and every fact has a query.
func (s *Scenario) Validate() error {
	for i := range s.Facts {
		if err := s.Facts[i].compile(); err != nil {
			return err
		}
		if strings.TrimSpace(s.Facts[i].Query) == "" {
			return fmt.Errorf("%s: fact %q has no search query", s.Name, s.Facts[i].Name)
		}
	}
	for i := range s.Wrong {
		if err := s.Wrong[i].compile(); err != nil {
			return err
		}
	}
	if len(s.Sessions) == 0 || s.Next.Project == "" || s.Next.Prompt == "" {
		return fmt.Errorf("%s: needs sessions and a next session", s.Name)
	}
	return nil
}

// Projects lists the scenario's projects in order of first use.
func (s *Scenario) Projects() []string {
	var out []string
	seen := map[string]bool{}
	for _, ss := range append(append([]Session(nil), s.Sessions...), s.Next) {
		if !seen[ss.Project] {
			seen[ss.Project] = true
			out = append(out, ss.Project)
		}
	}
	return out
}

// Score is how a text did against a scenario's facts.
type Score struct {
	// Found and Wrong count the facts found and the wrong claims made.
	Found, Wrong int
	// Facts is the number of facts.
	Facts int
	// Missed names the facts not found.
	Missed []string
	// Bytes is the size of the text scored.
	Bytes int
}

// Recall is the found facts less the wrong claims, over the facts (0..1).
func (s Score) Recall() float64 {
	if s.Facts == 0 {
		return 0
	}
	return float64(max(s.Found-s.Wrong, 0)) / float64(s.Facts)
}

// Tokens estimates the text's tokens as mneme budgets them: bytes / 4.
func (s Score) Tokens() int { return (s.Bytes + 3) / 4 }

// Per1k is the net number of facts found per 1,000 tokens of text.
func (s Score) Per1k() float64 {
	if s.Bytes == 0 {
		return 0
	}
	return float64(max(s.Found-s.Wrong, 0)) * 1000 / float64(s.Tokens())
}

// ScoreText scores text against the scenario's facts and wrong claims.
func (s *Scenario) ScoreText(text string) Score {
	sc := Score{Facts: len(s.Facts), Bytes: len(text)}
	for i := range s.Facts {
		if s.Facts[i].In(text) {
			sc.Found++
		} else {
			sc.Missed = append(sc.Missed, s.Facts[i].Name)
		}
	}
	for i := range s.Wrong {
		if s.Wrong[i].In(text) {
			sc.Wrong++
		}
	}
	return sc
}

// Missing returns the facts not found in text, in order.
func (s *Scenario) Missing(text string) []Fact {
	var out []Fact
	for i := range s.Facts {
		if !s.Facts[i].In(text) {
			out = append(out, s.Facts[i])
		}
	}
	return out
}
