package recall

import (
	"regexp"

	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// foldWindow is how many rows, per observation considered, the builder
// reads to find that many distinct ones: routine calls repeated with other
// numbers (a check run on each of 24 fixtures) fold into one.
const foldWindow = 4

// digits are what varies between repeats of one routine call.
var digits = regexp.MustCompile(`[0-9]+`)

// routine reports whether o is a successful call of no more than ordinary
// importance: neither a failure, nor a test run, nor a file change.
func routine(o models.Observation) bool {
	return o.Success && o.Importance < shape.ImportanceFileChange
}

// foldRoutine keeps, from obs (newest first), the first n observations
// that are not repeats: a routine call whose title, digits aside, equals a
// newer routine call's is folded into it and does not count. like maps a
// kept observation's id to how many older ones were folded into it.
// Failures, tests and file changes are never folded.
func foldRoutine(obs []models.Observation, n int) (kept []models.Observation, like map[int64]int) {
	like = map[int64]int{}
	seen := map[string]int64{} // shape → the id it folds into
	for _, o := range obs {
		if routine(o) {
			shape := o.ToolName + "\x00" + digits.ReplaceAllString(o.Title, "#")
			if id, ok := seen[shape]; ok {
				like[id]++
				continue
			}
			seen[shape] = o.ID
		}
		if len(kept) == n {
			break
		}
		kept = append(kept, o)
	}
	return kept, like
}
