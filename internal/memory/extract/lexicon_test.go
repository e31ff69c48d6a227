package extract

import (
	"strings"
	"testing"
)

// The subject table is the narrow part of the lexicon, not a copy that
// drifts: each of its tools does the same job in the lexicon.
func TestSubjectCategoriesWithinLexicon(t *testing.T) {
	for cat, ws := range subjectCategories {
		wide := strings.Fields(lexicon[cat])
		for _, w := range strings.Fields(ws) {
			found := false
			for _, x := range wide {
				found = found || x == w
			}
			if !found {
				t.Errorf("%q names the subject %q but the lexicon does not list it under that job", w, cat)
			}
		}
	}
}
