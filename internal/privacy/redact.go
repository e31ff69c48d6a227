package privacy

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// Redactor replaces secrets with [REDACTED:<rule>]. Build one per rule set
// with New and share it: it is safe for concurrent use. Each rule's
// regular expression is compiled the first time a text could match it
// (its literal prefilter passes), so a short-lived hook process pays only
// for the rules its event needs.
type Redactor struct {
	rules []*compiledRule
	// keyRule redacts the values of JSON members named like a secret
	// (KeyRule is enabled).
	keyRule bool
	// idKey keys the hash that keeps a redacted identifier unique; see
	// CleanID. Nil means an unkeyed hash.
	idKey func() []byte
	lits  *literalCache // shared by the copies WithIDKey makes
}

// literalCache remembers whether the rules' literals read the same in
// encoded JSON (see literalsSurviveJSON).
type literalCache struct {
	once sync.Once
	ok   bool
}

// redactedPrefix starts every marker. A later rule must not redact an earlier
// rule's marker (password=[REDACTED:github_token] keeps its rule name).
const redactedPrefix = "[REDACTED:"

// Marker is what a match of the named rule becomes.
func Marker(rule string) string { return redactedPrefix + rule + "]" }

type compiledRule struct {
	name    string
	pattern string
	marker  string

	parseOnce sync.Once
	// need lists lower-case literals one of which every match contains;
	// nil when the pattern has no such literal. A text containing none of
	// them is skipped without running the (slow, \b-led) regexp.
	need []string
	bad  bool // the pattern does not parse

	compileOnce sync.Once
	re          *regexp.Regexp
	secret      []int // the (?P<secret>…) groups; empty replaces the whole match
}

// New compiles the enabled rules (lazily, see Redactor). Invalid rules are
// skipped (settings validation rejects them before they are saved).
func New(rules []Rule) *Redactor {
	r := &Redactor{lits: &literalCache{}}
	for _, rule := range rules {
		if !rule.Enabled || rule.Pattern == "" {
			continue
		}
		if rule.Name == KeyRule {
			r.keyRule = true
		}
		r.rules = append(r.rules, &compiledRule{name: rule.Name, pattern: rule.Pattern, marker: Marker(rule.Name)})
	}
	return r
}

// Builtins is a Redactor of the built-in rules.
func Builtins() *Redactor { return New(BuiltinRules()) }

// WithIDKey returns a copy of r whose CleanID keys its hash with what key
// returns (called once, when an identifier first needs it).
func (r *Redactor) WithIDKey(key func() []byte) *Redactor {
	if r == nil {
		return nil
	}
	c := *r
	var once sync.Once
	var k []byte
	c.idKey = func() []byte {
		once.Do(func() { k = key() })
		return k
	}
	return &c
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

// mayMatch reports whether any rule could match the lower-cased text.
func (r *Redactor) mayMatch(lower string) bool {
	for _, rule := range r.rules {
		if rule.mayMatch(lower) {
			return true
		}
	}
	return false
}

// literalsSurviveJSON reports whether every rule's prefilter literal reads
// the same in JSON text as in the decoded string: none holds a character
// JSON escapes. Only then can encoded JSON be prefiltered as it is.
func (r *Redactor) literalsSurviveJSON() bool {
	for _, rule := range r.rules {
		rule.parse()
		for _, lit := range rule.need {
			if strings.ContainsAny(lit, "\"\\/") || strings.IndexFunc(lit, func(c rune) bool { return c < 0x20 }) >= 0 {
				return false
			}
		}
	}
	return true
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

func (c *compiledRule) parse() {
	c.parseOnce.Do(func() {
		re, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			c.bad = true
			return
		}
		c.need = required(re.Simplify())
	})
}

func (c *compiledRule) compile() {
	c.compileOnce.Do(func() {
		re, err := regexp.Compile(c.pattern)
		if err != nil {
			c.bad = true
			return
		}
		c.re = re
		c.secret = secretGroups(re)
	})
}

func secretGroups(re *regexp.Regexp) []int {
	var out []int
	for i, n := range re.SubexpNames() {
		if n == "secret" {
			out = append(out, i)
		}
	}
	return out
}

func (c *compiledRule) mayMatch(lower string) bool {
	c.parse()
	if c.bad {
		return false
	}
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

// Rules names the active rules, in the order they apply: the enabled
// rules whose pattern compiles.
func (r *Redactor) Rules() []string {
	out := make([]string, 0, len(r.rules))
	for _, rule := range r.rules {
		if rule.compile(); rule.re != nil {
			out = append(out, rule.name)
		}
	}
	return out
}

func (c *compiledRule) apply(s string) string {
	c.compile()
	if c.re == nil {
		return s
	}
	idx := c.re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range idx {
		start, end := m[0], m[1]
		for _, g := range c.secret {
			if m[2*g] >= 0 {
				start, end = m[2*g], m[2*g+1]
				break
			}
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

// TestRule applies one rule to sample and counts its matches, for the
// settings page's "test this rule" box.
func TestRule(rule Rule, sample string) (result string, matches int, err error) {
	re, err := regexp.Compile(rule.Pattern)
	if err != nil {
		return "", 0, err
	}
	c := &compiledRule{name: rule.Name, pattern: rule.Pattern, marker: Marker(rule.Name)}
	c.compileOnce.Do(func() { c.re, c.secret = re, secretGroups(re) })
	return c.apply(sample), len(re.FindAllStringIndex(sample, -1)), nil
}
