package privacy

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// parsedFilter is the filter of a pattern as parsing gives it.
func parsedFilter(pattern string) filter {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return filter{}
	}
	need, _ := required(re)
	if slicesContain(need, "") {
		need = nil
	}
	prefix, lead := prefixLiterals(pattern)
	return filter{need: minimal(need), prefix: prefix, lead: lead, fold: foldsCase(re)}
}

// foldsCase reports whether any part of re matches case-insensitively.
func foldsCase(re *syntax.Regexp) bool {
	if re.Flags&syntax.FoldCase != 0 && (re.Op == syntax.OpLiteral || re.Op == syntax.OpCharClass) {
		return true
	}
	for _, sub := range re.Sub {
		if foldsCase(sub) {
			return true
		}
	}
	return false
}

func TestBuiltinFilters(t *testing.T) {
	var b strings.Builder
	b.WriteString("var builtinFilters = []filter{\n")
	ok := len(builtinFilters) == len(BuiltinRules())
	for _, r := range BuiltinRules() {
		f := parsedFilter(r.Pattern)
		got, _ := builtinFilter(r.Pattern)
		if !slices.Equal(got.need, f.need) || !slices.Equal(got.prefix, f.prefix) || got.lead != f.lead || got.fold != f.fold {
			ok = false
			t.Errorf("%s: table has %+v, parsing gives %+v", r.Name, got, f)
		}
		fmt.Fprintf(&b, "\t// %s\n\t{\n\t\tpattern: %q,\n\t\tneed: %#v,\n", r.Name, r.Pattern, f.need)
		if f.prefix != nil {
			fmt.Fprintf(&b, "\t\tprefix: %#v,\n", f.prefix)
		}
		switch f.lead {
		case leadWord:
			b.WriteString("\t\tlead: leadWord,\n")
		case leadAlnum:
			b.WriteString("\t\tlead: leadAlnum,\n")
		}
		if f.fold {
			b.WriteString("\t\tfold: true,\n")
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	if !ok {
		t.Logf("builtinFilters should be:\n%s", b.String())
	}
}

// The anchored scan (a rule run only where one of its prefix literals
// starts) finds exactly the matches of the plain leftmost-first search,
// on every sample and near miss, alone and run together, in other case,
// and beside word characters (for \b).
func TestAnchoredScanMatchesPlainSearch(t *testing.T) {
	var texts []string
	for _, tc := range redactionCases {
		texts = append(texts, tc.sample, tc.want)
		texts = append(texts, tc.nearMisses...)
	}
	texts = append(texts, fuzzSecrets...)
	all := strings.Join(texts, " ")
	texts = append(texts, all, strings.Join(texts, ""), strings.ToUpper(all), strings.ToLower(all),
		"xAKIAIOSFODNN7EXAMPLE _AKIAIOSFODNN7EXAMPLE -AKIAIOSFODNN7EXAMPLE", "PASSWORD=a password:bbbb Password = 'cccc dd'",
		"paſſword=hunter22 KEY", "api_key=api_key=xxxx")
	anchored := 0
	for _, rule := range BuiltinRules() {
		c := &compiledRule{name: rule.Name, pattern: rule.Pattern, marker: Marker(rule.Name)}
		c.compile()
		if c.anchored == nil {
			continue
		}
		anchored++
		for _, s := range texts {
			got, ok := c.findAnchored(s)
			want := c.plain().FindAllStringSubmatchIndex(s, -1)
			if !ok {
				continue
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s on %.80q:\nanchored %v\n   plain %v", rule.Name, s, got, want)
			}
		}
	}
	if anchored < 10 {
		t.Errorf("only %d built-in rules scan from their literals", anchored)
	}
}
