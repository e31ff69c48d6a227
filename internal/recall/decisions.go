package recall

import (
	"regexp"
	"strings"

	"github.com/mneme-dev/mneme/internal/summarize"
)

// decisionCue marks a sentence that states a decision or a standing
// constraint: what was chosen over what, what must or must never be done,
// what does not work.
var decisionCue = regexp.MustCompile(`(?i)\b(decision|decided|decide|chose|chosen|choose|instead of|rather than|prefer|preferred|always|never|must|do not|don't|does not work|doesn't work|won't work|from now on|convention)\b`)

// maxDecisions bounds the decisions taken from one answer.
const maxDecisions = 3

// decisionsOf picks the sentences of a session's last answer that state a
// decision or a constraint, at most maxDecisions, each cut to 240 runes.
// A sentence the session's own line already shows whole is left out.
func decisionsOf(answer, shown string, c cleaner) []string {
	var out []string
	for _, s := range summarize.Sentences(answer) {
		if !decisionCue.MatchString(s) {
			continue
		}
		s = c.text(s, 240)
		if s == "" || strings.Contains(shown, s) {
			continue
		}
		out = append(out, s)
		if len(out) == maxDecisions {
			break
		}
	}
	return out
}
