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
	prefix, boundary := prefixLiterals(pattern)
	return filter{need: minimal(need), prefix: prefix, boundary: boundary}
}

func TestBuiltinFilters(t *testing.T) {
	var b strings.Builder
	b.WriteString("var builtinFilters = map[string]filter{\n")
	ok := len(builtinFilters) == len(BuiltinRules())
	for _, r := range BuiltinRules() {
		f := parsedFilter(r.Pattern)
		got := builtinFilters[r.Pattern]
		if !slices.Equal(got.need, f.need) || !slices.Equal(got.prefix, f.prefix) || got.boundary != f.boundary {
			ok = false
			t.Errorf("%s: table has %+v, parsing gives %+v", r.Name, got, f)
		}
		fmt.Fprintf(&b, "\t// %s\n\t%q: {\n\t\tneed: %#v,\n", r.Name, r.Pattern, f.need)
		if f.prefix != nil {
			fmt.Fprintf(&b, "\t\tprefix: %#v,\n", f.prefix)
		}
		if f.boundary {
			b.WriteString("\t\tboundary: true,\n")
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	if !ok {
		t.Logf("builtinFilters should be:\n%s", b.String())
	}
}
