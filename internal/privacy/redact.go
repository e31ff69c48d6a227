package privacy

import (
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
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

// literalCache remembers literalRunes.
type literalCache struct {
	once  sync.Once
	runes *runeSet
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
	plainOnce   sync.Once
	re          *regexp.Regexp // see plain
	secret      []int          // the (?P<secret>…) groups; empty replaces the whole match
	// When every match starts with one of the literals prefix (ASCII
	// case folded), anchored is the pattern anchored at the start of its
	// input, and apply runs it only where a literal occurs (see
	// findAnchored); lead is what the pattern requires before them
	// (leadWord for \b, leadAlnum for (?:^|[^0-9A-Za-z])). fold means
	// the pattern folds case somewhere.
	prefix   []string
	anchored *regexp.Regexp
	lead     int
	fold     bool
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

// Redact returns s with every match of every rule replaced. Text written
// with JSON escapes (a member's name or value in a document quoted in
// text, {"pass\u0077ord":"…"}) or %-escapes (a URL's query, a form body)
// is read as what it stands for too (see jsonUnescaped, percentDecoded).
func (r *Redactor) Redact(s string) string {
	if r == nil || s == "" {
		return s
	}
	s = r.redactEscaped(s)
	if strings.IndexByte(s, '%') >= 0 || strings.Contains(s, "=") && strings.IndexByte(s, '+') >= 0 {
		s = percentDecoded(s, func(d string) string { return r.redactEscaped(StripTags(Sanitize(d))) })
	}
	return s
}

// redactEscaped applies every rule to s, and to the text its JSON escapes
// stand for (see jsonUnescaped).
func (r *Redactor) redactEscaped(s string) string {
	s = r.redactRules(s)
	if strings.Contains(s, `\u`) || strings.Contains(s, `\/`) {
		s = jsonUnescaped(s, r.redactRules)
	}
	return s
}

// redactRules applies every rule to s once.
func (r *Redactor) redactRules(s string) string {
	text := newFilterText(foldForFilter(s))
	for _, rule := range r.rules {
		if !rule.mayMatch(text) {
			continue
		}
		if out := rule.apply(s); out != s {
			s = out
			text = newFilterText(foldForFilter(s))
		}
	}
	return s
}

// mayMatch reports whether any rule could match the lower-cased text.
func (r *Redactor) mayMatch(text *filterText) bool {
	for _, rule := range r.rules {
		if rule.mayMatch(text) {
			return true
		}
	}
	return false
}

// filterText is a lower-cased text for the literal prefilter, with the set
// of its adjacent byte pairs: a literal one of whose pairs the text lacks
// is not in it, known without a scan. (A Contains for each of the rules'
// ~200 literals was a quarter of what a hook spends cleaning a tool
// event.)
type filterText struct {
	lower string
	pairs []uint64 // 1<<16 bits, the pair a<<8|b at bit a<<8|b; nil: see short
	// short holds the pairs of a text too short for pairs, hashed into
	// 1024 bits (shortPair): most fields of an event (a command, a path,
	// an id, a small JSON object) are, and for them a Contains of every
	// literal was most of the cleaning, and the 8 kB of pairs most of what
	// the worker allocated per event. Two pairs may share a bit, so a
	// literal whose pairs are all set is still looked for.
	short [16]uint64
}

// pairsUpTo is the longest text whose pairs are listed: past it, the
// set fills up and costs more than it saves.
const pairsUpTo = 256 << 10

// shortUpTo bounds the texts whose pairs are hashed into short: up to
// 255 pairs fill about a fifth of its bits, so a literal of a few pairs
// absent from the text is still told apart without a scan.
const shortUpTo = 256

// newFilterText is small enough to inline, so the filterText stays on its
// caller's stack.
func newFilterText(lower string) *filterText {
	t := &filterText{lower: lower}
	t.index()
	return t
}

// index sets the pairs of the text.
func (t *filterText) index() {
	lower := t.lower
	switch {
	case len(lower) < shortUpTo:
		for i := 0; i+1 < len(lower); i++ {
			k := shortPair(lower[i], lower[i+1])
			t.short[k>>6] |= 1 << (k & 63)
		}
	case len(lower) <= pairsUpTo:
		t.pairs = make([]uint64, 1<<16/64)
		for i := 0; i+1 < len(lower); i++ {
			k := uint(lower[i])<<8 | uint(lower[i+1])
			t.pairs[k>>6] |= 1 << (k & 63)
		}
	}
}

// shortPair hashes the byte pair a, b to one of 1024 bits (the top bits
// of a multiplicative hash).
func shortPair(a, b byte) uint { return uint((uint32(a)<<8|uint32(b))*2654435761) >> 22 }

// contains reports whether the text holds lit.
func (t *filterText) contains(lit string) bool {
	switch {
	case t.pairs != nil:
		for i := 0; i+1 < len(lit); i++ {
			if k := uint(lit[i])<<8 | uint(lit[i+1]); t.pairs[k>>6]&(1<<(k&63)) == 0 {
				return false
			}
		}
	case len(t.lower) < shortUpTo:
		if len(lit) > len(t.lower) {
			return false
		}
		for i := 0; i+1 < len(lit); i++ {
			if k := shortPair(lit[i], lit[i+1]); t.short[k>>6]&(1<<(k&63)) == 0 {
				return false
			}
		}
	}
	return strings.Contains(t.lower, lit)
}

// literalRunes are the runes, lower-cased, of every rule's prefilter
// literals, of the names SecretName accepts, and the '<' of tags: a JSON
// escape (\uXXXX) of any other rune cannot hide what a rule, a member name
// or a tag needs, so the encoded text can be prefiltered as it is (and the
// \u0026 that JSON encoders write for '&' does not force a decoding).
func (r *Redactor) literalRunes() *runeSet {
	set := &runeSet{}
	set.add("<ſK")
	for _, rule := range r.rules {
		rule.parse()
		for _, lit := range rule.need {
			set.add(lit)
		}
	}
	for _, h := range secretNameHints {
		set.add(h)
	}
	return set
}

// runeSet is a set of runes, ASCII ones in a table.
type runeSet struct {
	ascii [128]bool
	other map[rune]bool
}

func (s *runeSet) add(str string) {
	for _, c := range str {
		if c < 128 {
			s.ascii[c] = true
			continue
		}
		if s.other == nil {
			s.other = map[rune]bool{}
		}
		s.other[c] = true
	}
}

func (s *runeSet) has(c rune) bool {
	if c < 128 {
		return s.ascii[c]
	}
	return s.other[c]
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
		if f, ok := builtinFilter(c.pattern); ok {
			c.need = f.need
			return
		}
		re, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			c.bad = true
			return
		}
		need, _ := required(re)
		if slicesContain(need, "") {
			need = nil // some match needs no literal at all
		}
		c.need = minimal(need)
	})
}

// compile prepares the rule's matching: the anchored pattern when the rule
// has prefix literals, else the plain one. The plain pattern is compiled
// only when it is needed (see plain): compiling costs a hook more than
// the matching.
func (c *compiledRule) compile() {
	c.compileOnce.Do(func() {
		f, ok := builtinFilter(c.pattern)
		if !ok {
			f.prefix, f.lead = prefixLiterals(c.pattern)
		}
		if f.prefix != nil {
			if a, err := regexp.Compile(`^(?:` + c.pattern + `)`); err == nil {
				c.anchored, c.prefix, c.lead, c.secret = a, f.prefix, f.lead, secretGroups(a)
				c.fold = !ok || f.fold
				return
			}
		}
		if re := c.plain(); re != nil {
			c.secret = secretGroups(re)
		}
	})
}

// plain is the pattern as written, compiled the first time it is needed;
// nil when it does not compile.
func (c *compiledRule) plain() *regexp.Regexp {
	c.plainOnce.Do(func() {
		re, err := regexp.Compile(c.pattern)
		if err != nil {
			c.bad = true
			return
		}
		c.re = re
	})
	return c.re
}

// prefixLiterals returns lower-case literals one of which every match of
// pattern starts with, or nil, and whether the pattern starts with \b
// (then every literal starts with a word character). Go's matcher tries
// every position of the text for a pattern that does not start with a
// case-sensitive literal; secret_assignment ((?i)password…) ran at a few
// MB/s. Starting it only where one of its literals is found keeps the
// leftmost-first matches the same.
func prefixLiterals(pattern string) ([]string, int) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, leadNone
	}
	subs := flattenHead(re)
	boundary, alnum := false, false
	switch {
	case len(subs) > 0 && subs[0].Op == syntax.OpWordBoundary:
		boundary, subs = true, subs[1:]
	case len(subs) > 0 && isAlnumLead(subs[0]):
		alnum, subs = true, flattenHead(&syntax.Regexp{Op: syntax.OpConcat, Sub: subs[1:]})
	}
	run := []string{""}
	for _, sub := range subs {
		lits, exact := required(sub)
		if !exact || len(run)*len(lits) > maxLiterals {
			break
		}
		run = cross(run, lits)
	}
	if len(run) == 0 || slicesContain(run, "") {
		return nil, leadNone
	}
	for _, l := range run {
		if l[0] >= utf8.RuneSelf || (boundary || alnum) && !isWordByte(l[0]) {
			return nil, leadNone
		}
	}
	lead := leadNone
	switch {
	case boundary:
		lead = leadWord
	case alnum:
		lead = leadAlnum
	}
	return minimalPrefixes(run), lead
}

// flattenHead is re as the parts of a concatenation, with the captures
// and concatenations it starts with opened: the secret group of
// (?:^|[^0-9A-Za-z])(?P<secret>AKIA…) does not hide its literals.
func flattenHead(re *syntax.Regexp) []*syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return []*syntax.Regexp{re}
	}
	if len(re.Sub) > 0 && (re.Sub[0].Op == syntax.OpCapture || re.Sub[0].Op == syntax.OpConcat) {
		return append(flattenHead(re.Sub[0]), re.Sub[1:]...)
	}
	return re.Sub
}

// Lead is what a pattern requires before its prefix literals.
const (
	leadNone  = 0
	leadWord  = 1 // \b: no word character (letters, digits, '_')
	leadAlnum = 2 // (?:^|[^0-9A-Za-z]): no ASCII letter or digit
)

// isAlnumLead reports whether re is (?:^|[^0-9A-Za-z]): the start of the
// text or a character that is not an ASCII letter or digit. Unlike \b
// it lets a token follow '_' (creds_AKIA…).
func isAlnumLead(re *syntax.Regexp) bool {
	if re.Op != syntax.OpAlternate || len(re.Sub) != 2 || re.Sub[0].Op != syntax.OpBeginText || re.Sub[1].Op != syntax.OpCharClass {
		return false
	}
	want := []rune{0, '0' - 1, '9' + 1, 'A' - 1, 'Z' + 1, 'a' - 1, 'z' + 1, utf8.MaxRune}
	got := re.Sub[1].Rune
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func isAlnumByte(c byte) bool { return c != '_' && isWordByte(c) }

// minimalPrefixes drops the literals that start with another one of the
// set: a match starting with the longer starts with the shorter.
func minimalPrefixes(lits []string) []string {
	var out []string
	for i, l := range lits {
		redundant := false
		for j, m := range lits {
			if i != j && len(m) < len(l) && strings.HasPrefix(l, m) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, l)
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// findAnchored is FindAllStringSubmatchIndex for a rule with prefix
// literals: the anchored pattern runs only where a literal starts, in
// order, each search going on after the last match. A pattern that starts
// with (?:^|[^0-9A-Za-z]) runs from the character before the literal, so
// that the one a match ended with can start the next (AKIA…,AKIA…). It
// returns ok false when the pattern folds case and s holds one of the two
// non-ASCII runes that (?i) folds to ASCII letters (ſ, K): the
// ASCII-folded literals could miss them there.
func (c *compiledRule) findAnchored(s string) (idx [][]int, ok bool) {
	if c.fold && (strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")) {
		return nil, false
	}
	lower := asciiLower(s)
	var hits []int
	for _, lit := range c.prefix {
		for from := 0; ; {
			i := strings.Index(lower[from:], lit)
			if i < 0 {
				break
			}
			hits = append(hits, from+i)
			from += i + 1
		}
	}
	sort.Ints(hits)
	pos := 0
	for _, h := range hits {
		if h < pos {
			continue
		}
		from := h
		switch {
		case c.lead == leadWord && h > 0 && isWordByte(s[h-1]):
			continue // \b: the literal starts with a word character
		case c.lead == leadAlnum && h > 0:
			if isAlnumByte(s[h-1]) {
				continue
			}
			from = h - 1
		}
		m := c.anchored.FindStringSubmatchIndex(s[from:])
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += from
			}
		}
		idx = append(idx, m)
		pos = max(m[1], h+1)
	}
	return idx, true
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

func (c *compiledRule) mayMatch(text *filterText) bool {
	c.parse()
	if c.bad {
		return false
	}
	if c.need == nil {
		return true
	}
	for _, lit := range c.need {
		if text.contains(lit) {
			return true
		}
	}
	return false
}

// maxLiterals bounds the literal sets required builds.
const maxLiterals = 64

// required returns lower-case literals one of which every match of re
// contains, or nil when it cannot tell. exact means more: every match of
// re is exactly one of them (so adjacent exact parts of a concatenation
// can be joined into longer, more selective literals: \b(?:AKIA|ASIA)
// needs "akia" or "asia", not "a").
func required(re *syntax.Regexp) (lits []string, exact bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{foldForFilter(string(re.Rune))}, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpCharClass:
		return classLiterals(re.Rune)
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpQuest:
		if lits, exact := required(re.Sub[0]); exact && len(lits) < maxLiterals {
			return dedupe(append(lits, "")), true
		}
	case syntax.OpPlus:
		lits, _ := required(re.Sub[0])
		return lits, false
	case syntax.OpRepeat:
		if re.Min >= 1 {
			lits, exact := required(re.Sub[0])
			return lits, exact && re.Min == 1 && re.Max == 1
		}
	case syntax.OpConcat:
		return concatLiterals(re.Sub)
	case syntax.OpAlternate:
		var all []string
		exact := true
		for _, sub := range re.Sub {
			lits, e := required(sub)
			if lits == nil {
				return nil, false
			}
			all = append(all, lits...)
			exact = exact && e
		}
		all = dedupe(all)
		if len(all) > maxLiterals || slicesContain(all, "") && !exact {
			return nil, false
		}
		return all, exact
	}
	return nil, false
}

// concatLiterals joins runs of exact parts into the cross product of
// their literals, and keeps the most selective requirement (the longest
// shortest literal) of the runs and the other parts.
func concatLiterals(subs []*syntax.Regexp) ([]string, bool) {
	var best []string
	bestLen := 0
	consider := func(lits []string) {
		if lits == nil {
			return
		}
		shortest := len(lits[0])
		for _, l := range lits {
			shortest = min(shortest, len(l))
		}
		if shortest > bestLen {
			best, bestLen = lits, shortest
		}
	}
	run, allExact := []string{""}, true
	for _, sub := range subs {
		lits, exact := required(sub)
		if exact && len(run)*len(lits) <= maxLiterals {
			run = cross(run, lits)
			continue
		}
		allExact = false
		consider(run)
		if exact {
			run = lits
		} else {
			consider(lits)
			run = []string{""}
		}
	}
	if allExact {
		return run, true
	}
	consider(run)
	return best, false
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

// classLiterals is a small character class as its (lower-cased) runes.
func classLiterals(ranges []rune) ([]string, bool) {
	n := 0
	for i := 0; i < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 10 {
			return nil, false
		}
	}
	var out []string
	for i := 0; i < len(ranges); i += 2 {
		for c := ranges[i]; c <= ranges[i+1]; c++ {
			out = append(out, foldForFilter(string(c)))
		}
	}
	return dedupe(out), true
}

func dedupe(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// minimal drops the literals that contain another one of the set: a
// text holding the longer one holds the shorter.
func minimal(lits []string) []string {
	var out []string
	for i, l := range lits {
		redundant := false
		for j, m := range lits {
			if i != j && len(m) < len(l) && strings.Contains(l, m) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, l)
		}
	}
	return out
}

func slicesContain(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Rules names the active rules, in the order they apply: the enabled
// rules whose pattern compiles.
func (r *Redactor) Rules() []string {
	out := make([]string, 0, len(r.rules))
	for _, rule := range r.rules {
		if rule.compile(); rule.anchored != nil || rule.plain() != nil {
			out = append(out, rule.name)
		}
	}
	return out
}

func (c *compiledRule) apply(s string) string {
	c.compile()
	var idx [][]int
	ok := false
	if c.anchored != nil {
		idx, ok = c.findAnchored(s)
	}
	if !ok {
		re := c.plain()
		if re == nil {
			return s
		}
		idx = re.FindAllStringSubmatchIndex(s, -1)
	}
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
		start = max(start, last) // a user's pattern led by (?:^|[^0-9A-Za-z]) may take back a character
		if end <= start || strings.HasPrefix(s[start:end], redactedPrefix) {
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
	c.plainOnce.Do(func() { c.re = re })
	c.compileOnce.Do(func() { c.secret = secretGroups(re) }) // no prefix scan: the box shows the plain regexp
	return c.apply(sample), len(re.FindAllStringIndex(sample, -1)), nil
}

// percentDecoded reads every %-escaped run of s (text between white space,
// quotes, '?', '&', '=', '#', '<' and '>' holding a %XX escape, or a '+'
// after a '=': a query's value) as what it stands for, '+' as a space
// (?q=docker+login+-p+…), and when clean changes that, puts the
// cleaned text in the run's place: a secret, or a private block, written
// in a URL's query (?q=DB_PASSWORD%3D…, ?next=https%3A%2F%2Fu%3Apw%40host,
// -----BEGIN+RSA+PRIVATE+KEY-----%0A…) is redacted too. Runs that clean
// leaves alone stay as written.
func percentDecoded(s string, clean func(string) string) string {
	var b strings.Builder
	last, start := 0, -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		run := s[start:end]
		value := start > 0 && s[start-1] == '='
		start = -1
		d, ok := unescapePercent(run, value)
		if !ok {
			return
		}
		if c := clean(d); c != d {
			b.WriteString(s[last : end-len(run)])
			b.WriteString(c)
			last = end
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '"', '\'', '?', '&', '=', '#', '<', '>':
			flush(i)
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(s))
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// unescapePercent decodes %XX escapes and '+' in run; ok is false when run
// holds no valid %XX escape, nor a '+' in a query's value. An invalid
// escape is kept as written.
func unescapePercent(run string, value bool) (string, bool) {
	plus := value && strings.Contains(run, "+")
	if !strings.Contains(run, "%") && !plus {
		return run, false
	}
	var b strings.Builder
	ok := false
	for i := 0; i < len(run); i++ {
		switch c := run[i]; {
		case c == '%' && i+2 < len(run) && isHex(run[i+1]) && isHex(run[i+2]):
			b.WriteByte(unhex(run[i+1])<<4 | unhex(run[i+2]))
			i += 2
			ok = true
		case c == '+':
			b.WriteByte(' ')
			ok = ok || plus
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ok
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// jsonUnescaped reads the JSON escapes of s that can hide what a rule
// looks for (\uXXXX of a printable rune other than '"' and '\', \/),
// however many backslashes lead them (a document quoted in a string
// quoted in text), and when clean changes the text so read, returns that
// cleaned text: {"pass\u0077ord":"hunter22"} is stored as
// {"password":"[REDACTED:json_secret_member]"}. Text that holds no secret
// so hidden stays as written.
func jsonUnescaped(s string, clean func(string) string) string {
	d, ok := unescapeJSONText(s)
	if !ok {
		return s
	}
	if c := clean(d); c != d {
		return c
	}
	return s
}

// unescapeJSONText decodes the escapes jsonUnescaped reads; ok is false
// when s holds none.
func unescapeJSONText(s string) (string, bool) {
	var b strings.Builder
	ok := false
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j >= len(s) {
			break
		}
		switch {
		case s[j] == '/':
			b.WriteString(s[last:i])
			b.WriteByte('/')
			last, ok = j+1, true
		case s[j] == 'u':
			c, n := jsonEscapedRune(s[j+1:])
			if n == 0 || c == '"' || c == '\\' || !unicode.IsPrint(c) {
				break
			}
			b.WriteString(s[last:i])
			b.WriteRune(c)
			last, ok = j+1+n, true
		}
		i = j
	}
	if !ok {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// jsonEscapedRune reads the XXXX of a \uXXXX escape at the start of s (and
// the \uXXXX of a surrogate pair's second half), returning the rune and
// how many bytes it took; 0 when s does not start with four hex digits.
func jsonEscapedRune(s string) (rune, int) {
	hex4 := func(s string) (rune, bool) {
		if len(s) < 4 {
			return 0, false
		}
		var c rune
		for k := 0; k < 4; k++ {
			if !isHex(s[k]) {
				return 0, false
			}
			c = c<<4 | rune(unhex(s[k]))
		}
		return c, true
	}
	c, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(c) {
		if len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
			if c2, ok := hex4(s[6:]); ok {
				if r := utf16.DecodeRune(c, c2); r != utf8.RuneError {
					return r, 10
				}
			}
		}
		return 0, 0
	}
	return c, 4
}
