package recall

import (
	"regexp"
	"strings"

	"github.com/mneme-dev/mneme/internal/summarize"
)

var (
	// decisionCue marks a sentence that states a decision, a standing
	// constraint or a cause found: what was chosen over what, what must or
	// must never be done, what does not work, what the bug was.
	decisionCue = regexp.MustCompile(`(?i)\b(decision|decided|decide|chose|chosen|choose|instead of|rather than|prefer|preferred|always|never|must|do not|don't|does not work|doesn't work|won't work|from now on|convention|root cause|the (bug|problem|issue|cause) (was|is))\b`)
	// decisionHeading is a heading or a bold label ("## Decisions",
	// "**Important:**") under which every sentence counts.
	decisionHeading = regexp.MustCompile(`(?i)\b(decisions?|choices?|trade-?offs?|important|caveats?|gotchas?|constraints?|notes?|root cause)\b`)
	// heading is a markdown heading line or a line that is only bold text.
	heading = regexp.MustCompile(`^\s*(#{1,6}\s+.*|\*\*[^*]+\*\*:?)\s*$`)
	// boldLabel is a bold label opening a line or bullet: "**Format:** …".
	boldLabel = regexp.MustCompile(`^\s*(?:[-*]\s+|\d+\.\s+)?\*\*([^*]+)\*\*`)
	// listItem is a bullet or numbered line.
	listItem = regexp.MustCompile(`^\s*([-*]|\d+\.)\s+`)
)

// maxDecisions bounds the decisions taken from one answer.
const maxDecisions = 5

// decisionsOf picks the sentences of a session's last answer that state a
// decision, a constraint or a cause: those with a cue word, and all of
// those under a heading or bold label such as "Decisions" or "Important".
// A heading's block ends at the next heading, or at a paragraph after its
// list (a closing "let me know if ..." is not a decision). At most
// maxDecisions, each cut to 240 runes; a sentence the session's own line
// already shows whole is left out.
func decisionsOf(answer, shown string, c cleaner) []string {
	var out []string
	under, listed := false, false
	for _, line := range strings.Split(answer, "\n") {
		if heading.MatchString(line) {
			under, listed = decisionHeading.MatchString(line), false
			continue
		}
		switch {
		case listItem.MatchString(line):
			listed = true
		case listed && strings.TrimSpace(line) != "":
			under = false
		}
		labelled := false
		if m := boldLabel.FindStringSubmatch(line); m != nil {
			labelled = decisionHeading.MatchString(m[1])
		}
		for _, s := range summarize.Sentences(line) {
			if !under && !labelled && !decisionCue.MatchString(s) {
				continue
			}
			s = c.text(s, 240)
			if s == "" || strings.Contains(shown, s) {
				continue
			}
			out = append(out, s)
			if len(out) == maxDecisions {
				return out
			}
		}
	}
	return out
}
