package models

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQueryLexer: the lexer alone, without a database. Its tokens put
// together are the query; words hold no break; a closed phrase's text,
// quoted again, is the phrase as written; and the two readers of its
// tokens, NormalizeQuery and termsQuery, take anything.
func FuzzQueryLexer(f *testing.F) {
	for _, s := range []string{`"a b"* c`, `"x"*abc`, `title:foo OR bar*`, `NEAR(a b, 5)`, `{title input}: x`,
		`"unclosed`, `a""b`, `"a""b" c`, `-neg`, `^start`, `foo_test.go`, "tab\there", `(a OR b) AND NOT c`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		var b strings.Builder
		for _, tok := range scanQuery(q) {
			if tok.Raw == "" {
				t.Fatalf("%q: an empty token", q)
			}
			b.WriteString(tok.Raw)
			switch tok.Kind {
			case tokWord:
				if strings.ContainsAny(tok.Raw, breaks) {
					t.Fatalf("%q: word %q holds a break", q, tok.Raw)
				}
			case tokPhrase:
				closed := len(tok.Raw) >= 2 && strings.HasSuffix(tok.Raw, `"`) && strings.Count(tok.Raw, `"`)%2 == 0
				if closed && `"`+strings.ReplaceAll(tok.Text, `"`, `""`)+`"` != tok.Raw {
					t.Fatalf("%q: phrase %q reads as %q", q, tok.Raw, tok.Text)
				}
			}
		}
		if b.String() != q {
			t.Fatalf("tokens of %q put together are %q", q, b.String())
		}
		norm, err := NormalizeQuery(q)
		if err == nil && utf8.ValidString(q) {
			termsQuery(norm)
		}
	})
}

func TestScanQuery(t *testing.T) {
	toks := scanQuery(`title:go "a ""b"""* (x, y)`)
	var got []string
	for _, tok := range toks {
		if tok.Kind != tokSpace {
			got = append(got, tok.Raw)
		}
	}
	want := []string{"title:go", `"a ""b"""`, "*", "(", "x", ",", "y", ")"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("tokens %q, want %q", got, want)
	}
	if toks[2].Text != `a "b"` || !toks[2].Star {
		t.Errorf("phrase %+v", toks[2])
	}
}
