package searchq

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQueryLexer: the lexer alone, without a database. Its tokens put
// together are the query; words hold no break; a closed phrase's text,
// quoted again, is the phrase as written; and the two readers of its
// tokens, Normalize and Terms, take anything.
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
		norm, err := Normalize(q)
		if err == nil && utf8.ValidString(q) {
			Terms(norm)
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

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"go test", "go test"},
		{"foo_test.go", `"foo_test.go"`},
		{"mneme-dev/mneme", `"mneme-dev/mneme"`},
		{"models.go*", `"models.go"*`},
		{"title:foo.go", `title:"foo.go"`},
		{"http://x.y", `"http://x.y"`},
		{`"already quoted.go" OR x`, `"already quoted.go" OR x`},
		{"(a.b OR c) NOT d", `("a.b" OR c) NOT d`},
		{"NEAR(a b, 3)", "NEAR(a b, 3)"},
		{"^start", "^start"},
		{"über", "über"},
		{`say "he said ""hi""" now`, `say "he said ""hi""" now`},
		{"  padded  ", "padded"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestNormalizeRefused: what Normalize refuses, each with a message
// saying why.
func TestNormalizeRefused(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "enter something"},
		{"   ", "enter something"},
		{strings.Repeat("a", MaxLen+1), "longer than 1000 bytes"},
		{"\xff", "not valid UTF-8"},
		{"-flag", "no '-' operator"},
		{"title:-x", "no '-' operator"},
		{"ab*", "at least 3 letters"},
		{"^ab*", "at least 3 letters"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Normalize(tt.in)
			var qe *Error
			if !errors.As(err, &qe) || !strings.Contains(qe.Msg, tt.msg) {
				t.Errorf("Normalize(%q) = %q, %v; want an *Error saying %q", tt.in, got, err, tt.msg)
			}
		})
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		match, terms string
		single       bool
	}{
		{"websocket", `"websocket"`, true},
		{"migr*", `"migr"*`, true},
		{"a OR b OR a", `"a" OR "b"`, true},
		{"(a OR b)", `"a" OR "b"`, true},
		{"a b", `"a" OR "b"`, false},
		{"a AND b", `"a" OR "b"`, false},
		{"a NOT b", `"a" OR "b"`, false},
		{`"broker http"`, `"broker" OR "http"`, false},
		{`"one"`, `"one"`, true},
		{`"foo_test.go"`, `"foo" OR "test" OR "go"`, false},
		{`"models.go"*`, `"models" OR "go"*`, false},
		{`"say ""hi"""`, `"say" OR "hi"`, false},
		{"title:reconnect", `"reconnect"`, false},
		{`title:"a b"`, `"a" OR "b"`, false},
		{"title:migr*", `"migr"*`, false},
		{"^start", `"start"`, false},
		{"NEAR(a b, 3)", `"a" OR "b"`, false},
		{"NEAR(a 10 b)", `"a" OR "10" OR "b"`, false},
		{"{title input}: x", `"x"`, false},
		{"(a OR b) c", `"a" OR "b" OR "c"`, false},
		{"a (b OR c)", `"a" OR "b" OR "c"`, false},
		{"über*", `"über"*`, true},
		{`"..."`, "", true},
		{"a + b", `"a" OR "b"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.match, func(t *testing.T) {
			terms, single := Terms(tt.match)
			if terms != tt.terms || single != tt.single {
				t.Errorf("Terms(%q) = %q, %v; want %q, %v", tt.match, terms, single, tt.terms, tt.single)
			}
		})
	}
}
