package summarize

import (
	"strings"

	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// Failure is a failed tool call and, once a later call redoes it
// successfully, the call that fixed it and the files changed in between.
type Failure struct {
	Obs     models.Observation
	Reason  string // the most telling line of its error output
	Fixed   bool
	FixedBy models.Observation
	Changes []string // files changed between the failure and the fix (at most 5)

	key, file  string
	family     string // shape.CommandFamily of a Bash call
	test       bool
	changesSet map[string]bool
}

// Tracker follows failures through the observations of a session, in
// order, without holding the observations: it keeps only the failures (at
// most Max; more are counted in Dropped). The summaries and the reports
// use it so both tell the same story.
type Tracker struct {
	Failures []*Failure
	Dropped  int
	// Max bounds Failures; 0 means no bound.
	Max int
	// Rel shortens file paths for display; nil keeps them.
	Rel func(string) string
}

func failureKey(o *models.Observation) (key, file string) {
	if len(o.Files) > 0 {
		file = o.Files[0]
	}
	if o.ToolName == "Bash" {
		return "bash:" + shape.FirstLine(strings.TrimSpace(o.Input)), file
	}
	return o.ToolName + ":" + file, file
}

// bashFamily is a Bash call's shape.CommandFamily, "" for other tools.
func bashFamily(o *models.Observation) string {
	if o.ToolName != "Bash" {
		return ""
	}
	return shape.CommandFamily(o.Input)
}

// Add folds one observation in: a failure is recorded; a success fixes
// the open failures it redoes (the same command, or the same program and
// subcommand with other arguments, any test run after a failed test run,
// the same tool on the same file, a Write after a failed Edit) and is noted
// as a change before the others.
func (t *Tracker) Add(o models.Observation) {
	if o.ExcludedBy != "" {
		return
	}
	test := IsTest(o)
	if !o.Success {
		if t.Max > 0 && len(t.Failures) >= t.Max {
			t.Dropped++
			return
		}
		key, file := failureKey(&o)
		t.Failures = append(t.Failures, &Failure{Obs: o, Reason: FailureReason(o.Output), key: key, file: file,
			family: bashFamily(&o), test: test, changesSet: map[string]bool{}})
		return
	}
	key, file := failureKey(&o)
	family := bashFamily(&o)
	for _, f := range t.Failures {
		if f.Fixed {
			continue
		}
		if f.key == key || f.test && test || family != "" && f.family == family || f.Obs.ToolName == "Edit" && o.ToolName == "Write" && file != "" && file == f.file {
			f.Fixed, f.FixedBy = true, o
			continue
		}
		if o.Kind == models.KindFileChange && len(f.Changes) < 5 {
			for _, p := range o.Files {
				if t.Rel != nil {
					p = t.Rel(p)
				}
				if !f.changesSet[p] {
					f.changesSet[p] = true
					f.Changes = append(f.Changes, p)
				}
			}
		}
	}
}
