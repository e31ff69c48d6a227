package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/models"
)

// testRun is one test run.
type testRun struct {
	ID      int64     `json:"observationId"`
	Time    time.Time `json:"time"`
	Command string    `json:"command"`
	Result  string    `json:"result"`
	Passed  bool      `json:"passed"`
}

// fileTouch is how a file was touched.
type fileTouch struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Edits   int    `json:"edits"`
}

// aggregates are collected while the observations stream past; each list
// is bounded, with what was left out counted.
type aggregates struct {
	sess           *models.Session
	failures       summarize.Tracker
	Tests          []testRun    `json:"tests"`
	Files          []*fileTouch `json:"files"`
	files          map[string]*fileTouch
	Dropped        int `json:"omitted,omitempty"`
	TestsPassed    int `json:"testsPassed"`
	TestsFailed    int `json:"testsFailed"`
	DurationMS     int64
	readsOrSearch  int
	commands       int
	excluded       int
	observationsIn int
}

func newAggregates(s *models.Session) *aggregates {
	a := &aggregates{sess: s, files: map[string]*fileTouch{}, Tests: []testRun{}, Files: []*fileTouch{}}
	a.failures = summarize.Tracker{Max: maxFailures, Rel: a.rel}
	return a
}

func (a *aggregates) rel(p string) string {
	if a.sess.Cwd == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(a.sess.Cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// add folds one observation into the aggregates.
func (a *aggregates) add(o *models.Observation) {
	a.observationsIn++
	a.DurationMS += o.DurationMS
	if o.ExcludedBy != "" {
		a.excluded++
		return
	}
	test := summarize.IsTest(*o)
	a.failures.Add(*o)
	switch {
	case !o.Success:
	case o.Kind == models.KindFileChange:
		for _, f := range o.Files {
			p := a.rel(f)
			ft := a.files[p]
			if ft == nil {
				if len(a.files) >= maxFiles {
					a.Dropped++
					continue
				}
				ft = &fileTouch{Path: p}
				a.files[p] = ft
				ft.Created = o.FileCreated
			}
			ft.Edits++
		}
	case o.Kind == models.KindRead || o.Kind == models.KindSearch:
		a.readsOrSearch++
	case o.ToolName == "Bash":
		a.commands++
	}
	if test {
		if o.Success {
			a.TestsPassed++
		} else {
			a.TestsFailed++
		}
		if len(a.Tests) < maxTests {
			res := summarize.TestOutcome(*o)
			if res == "" {
				res = map[bool]string{true: "passed", false: "failed"}[o.Success]
			}
			a.Tests = append(a.Tests, testRun{ID: o.ID, Time: o.CreatedAt, Command: strings.TrimSpace(o.Input), Result: res, Passed: o.Success})
		} else {
			a.Dropped++
		}
	}
}

// resolution says in words how a failure ended.
func resolution(f *summarize.Failure) string {
	if !f.Fixed {
		return "not resolved in this session"
	}
	s := "fixed: " + f.FixedBy.Title
	if len(f.Changes) > 0 {
		s += " (after changing " + strings.Join(f.Changes, ", ") + ")"
	}
	return s
}

// finish sorts the files for display.
func (a *aggregates) finish() {
	a.Files = a.Files[:0]
	for _, f := range a.files {
		a.Files = append(a.Files, f)
	}
	sort.Slice(a.Files, func(i, j int) bool { return a.Files[i].Path < a.Files[j].Path })
}

// statList is the statistics block, shared by every format.
func statList(sd *sessionData, a *aggregates) [][2]string {
	created, modified := 0, 0
	for _, f := range a.Files {
		if f.Created {
			created++
		} else {
			modified++
		}
	}
	fixed := 0
	for _, f := range a.failures.Failures {
		if f.Fixed {
			fixed++
		}
	}
	out := [][2]string{
		{"Prompts", fmt.Sprint(sd.stats.Prompts)},
		{"Tool calls", fmt.Sprint(sd.stats.ToolCalls)},
		{"Failures (fixed)", fmt.Sprintf("%d (%d)", sd.stats.Failures, fixed)},
		{"Files created / modified", fmt.Sprintf("%d / %d", created, modified)},
		{"Test runs passed / failed", fmt.Sprintf("%d / %d", a.TestsPassed, a.TestsFailed)},
		{"Commands run", fmt.Sprint(a.commands)},
		{"Reads and searches", fmt.Sprint(a.readsOrSearch)},
		{"Hidden by privacy rules", fmt.Sprint(a.excluded)},
	}
	if sd.ledger.Calls > 0 {
		out = append(out, [2]string{"LLM summary tokens", fmt.Sprintf("%d in / %d out ($%.4f)", sd.ledger.InputTokens, sd.ledger.OutputTokens, sd.ledger.CostUSD)})
	}
	return out
}

func (a *aggregates) omittedNote() string {
	n := a.Dropped + a.failures.Dropped
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d further failures, tests or files are counted but not listed (the lists are capped).", n)
}
