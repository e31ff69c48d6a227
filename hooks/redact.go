package hooks

import (
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/mneme-dev/mneme/models"
)

// Redactor replaces secrets with [REDACTED:<rule>]. Build one per settings
// version with NewRedactor and share it: it is safe for concurrent use.
type Redactor struct {
	rules []compiledRule
}

// redactedPrefix starts every marker. A later rule must not redact an earlier
// rule's marker (password=[REDACTED:github_token] keeps its rule name).
const redactedPrefix = "[REDACTED:"

type compiledRule struct {
	name   string
	re     *regexp.Regexp
	secret int // index of the (?P<secret>…) group, or -1 to replace the whole match
	marker string
	// need lists lower-case literals one of which every match contains;
	// nil when the pattern has no such literal. A text containing none of
	// them is skipped without running the (slow, \b-led) regexp.
	need []string
}

// NewRedactor compiles the enabled rules. Invalid rules are skipped (settings
// validation rejects them before they are saved).
func NewRedactor(rules []models.RedactionRule) *Redactor {
	r := &Redactor{}
	for _, rule := range rules {
		if !rule.Enabled {
			continue
		}
		re, err := regexp.Compile(rule.Pattern)
		if err != nil {
			continue
		}
		r.rules = append(r.rules, compiledRule{
			name:   rule.Name,
			re:     re,
			secret: re.SubexpIndex("secret"),
			marker: redactedPrefix + rule.Name + "]",
			need:   requiredLiterals(rule.Pattern),
		})
	}
	return r
}

// Redact returns s with every match of every rule replaced.
func (r *Redactor) Redact(s string) string {
	if r == nil || s == "" {
		return s
	}
	lower := foldForFilter(s)
	for _, rule := range r.rules {
		if !rule.mayMatch(lower) {
			continue
		}
		if out := rule.apply(s); out != s {
			s = out
			lower = foldForFilter(s)
		}
	}
	return s
}

// foldForFilter lower-cases s for the literal prefilter. Go's (?i) also
// folds ſ (U+017F) to s; K (U+212A) is lowered to k by ToLower already.
func foldForFilter(s string) string {
	l := strings.ToLower(s)
	if strings.Contains(l, "ſ") {
		l = strings.ReplaceAll(l, "ſ", "s")
	}
	return l
}

func (c compiledRule) mayMatch(lower string) bool {
	if c.need == nil {
		return true
	}
	for _, lit := range c.need {
		if strings.Contains(lower, lit) {
			return true
		}
	}
	return false
}

// requiredLiterals returns lower-case literals one of which every match of
// pattern must contain, or nil when it cannot tell.
func requiredLiterals(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	return required(re.Simplify())
}

func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{foldForFilter(string(re.Rune))}
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any one part's requirement holds for the whole; keep the most
		// selective (the longest shortest literal).
		var best []string
		bestLen := 0
		for _, sub := range re.Sub {
			lits := required(sub)
			if lits == nil {
				continue
			}
			shortest := len(lits[0])
			for _, l := range lits {
				shortest = min(shortest, len(l))
			}
			if shortest > bestLen {
				best, bestLen = lits, shortest
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			lits := required(sub)
			if lits == nil {
				return nil
			}
			all = append(all, lits...)
		}
		return all
	}
	return nil
}

// Rules names the active rules, in the order they apply.
func (r *Redactor) Rules() []string {
	out := make([]string, len(r.rules))
	for i, rule := range r.rules {
		out[i] = rule.name
	}
	return out
}

func (c compiledRule) apply(s string) string {
	idx := c.re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range idx {
		start, end := m[0], m[1]
		if c.secret >= 0 && m[2*c.secret] >= 0 {
			start, end = m[2*c.secret], m[2*c.secret+1]
		}
		if strings.HasPrefix(s[start:end], redactedPrefix) {
			continue // an earlier rule's marker: keep its name
		}
		b.WriteString(s[last:start])
		b.WriteString(c.marker)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// TestRule applies one rule to sample and counts its matches, for the settings page's
// "test this rule" box.
func TestRule(rule models.RedactionRule, sample string) (result string, matches int, err error) {
	re, err := regexp.Compile(rule.Pattern)
	if err != nil {
		return "", 0, err
	}
	c := compiledRule{name: rule.Name, re: re, secret: re.SubexpIndex("secret"), marker: redactedPrefix + rule.Name + "]"}
	return c.apply(sample), len(re.FindAllStringIndex(sample, -1)), nil
}
