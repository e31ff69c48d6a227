package searchq

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Each table's column weights, as models has them (pgColumnWeights).
var (
	observationWeights = map[string]string{"title": "A", "files": "B", "input": "C", "output": "D"}
	promptWeights      = map[string]string{"text": ""}
	summaryWeights     = map[string]string{"request": "A", "learned": "B", "completed": "B",
		"investigated": "C", "next_steps": "C", "last_assistant_message": "D"}
)

// TestRender: FTS5 syntax, as Normalize leaves it, written as to_tsquery
// strings per table, and what has no tsquery form refused.
func TestRender(t *testing.T) {
	tests := []struct {
		q         string
		obs       string // observations; "!" + message for an error
		prompt    string // prompts
		summary   string // summaries
		errSubstr string // an error of the whole query
	}{
		{q: "go test", obs: "('go' & 'test')"},
		{q: "a AND b", obs: "('a' & 'b')"},
		{q: "a OR b", obs: "('a' | 'b')"},
		{q: "a NOT b", obs: "('a' & !'b')"},
		{q: "a b NOT c OR d", obs: "((('a' & 'b') & !'c') | 'd')"},
		{q: "a OR b AND c", obs: "('a' | ('b' & 'c'))"},
		{q: "(a OR b) c", obs: "(('a' | 'b') & 'c')"},
		{q: `"schema version 4"`, obs: "('schema' <-> 'version' <-> '4')"},
		{q: `"foo_test.go"`, obs: "('foo' <-> 'test' <-> 'go')"},
		{q: "Migrat*", obs: "'migrat':*"},
		{q: `"models.go"*`, obs: "('models' <-> 'go':*)"},
		{q: `"he said ""hi"""`, obs: "('he' <-> 'said' <-> 'hi')"},
		{q: "title:foo", obs: "'foo':A", prompt: "!unknown column \"title\"", summary: "!unknown column \"title\""},
		{q: "title:foo*", obs: "'foo':*A"},
		{q: `title:"a b"`, obs: "('a':A <-> 'b':A)"},
		{q: "title:(a OR b)", obs: "('a':A | 'b':A)"},
		{q: "text:foo", obs: "!unknown column \"text\"", prompt: "'foo'"},
		{q: "learned:foo completed:bar", obs: "!unknown column \"learned\"", summary: "('foo':B & 'bar':B)"},
		{q: "request:foo OR next_steps:bar", obs: "!unknown column \"request\"", summary: "('foo':A | 'bar':C)"},
		{q: "über", obs: "'über'"},
		{q: `"..."`, obs: ""},
		{q: `"..." OR a`, obs: "'a'"},
		{q: "NEAR(a b, 3)", errSubstr: "NEAR() is not supported"},
		{q: "^a", errSubstr: "^ (a column's first word) is not supported"},
		{q: "{title files}:a", errSubstr: "column groups"},
		{q: "a + b", errSubstr: "phrase concatenation"},
		{q: "a,b", errSubstr: "NEAR()'s"},
		{q: `"open`, errSubstr: "not closed"},
		{q: `"open""`, errSubstr: "not closed"},
		{q: "OR a", errSubstr: `syntax error near "OR"`},
		{q: "a NOT", errSubstr: "ends too early"},
		{q: "(a", errSubstr: "ends too early"},
		{q: "a)", errSubstr: `syntax error near ")"`},
		{q: "title:(a files:b)", errSubstr: "leave no column"},
		{q: "*", errSubstr: "cannot start with '*'"},
		{q: "NEAR", obs: "'near'"},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			tree, err := Parse(tt.q)
			if tt.errSubstr != "" {
				var qe *Error
				if !errors.As(err, &qe) || !strings.Contains(err.Error(), tt.errSubstr) {
					t.Errorf("Parse(%q): err = %v, want an *Error saying %q", tt.q, err, tt.errSubstr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.q, err)
			}
			for _, table := range []struct {
				name    string
				weights map[string]string
				want    string
			}{{"observations", observationWeights, tt.obs}, {"prompts", promptWeights, tt.prompt}, {"summaries", summaryWeights, tt.summary}} {
				if table.want == "" && table.name != "observations" {
					continue // not checked for this table
				}
				got := ""
				if tree != nil {
					got, err = tree.Render(table.weights)
					if err != nil {
						got = "!" + err.(*Error).Msg
					}
				}
				if strings.HasPrefix(table.want, "!") && strings.HasPrefix(got, table.want) || got == table.want {
					continue
				}
				t.Errorf("Render(%q) for %s = %q, want %q", tt.q, table.name, got, table.want)
			}
		})
	}
}

// TestPhrases: the phrases every match must hold, which the pair index
// narrows by, come from AND and the left of NOT, never from an OR.
func TestPhrases(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{`"broker http"`, []string{"broker http"}},
		{`"a b c" d`, []string{"a b c"}},
		{`"a b" AND "c d"`, []string{"a b", "c d"}},
		{`"a b" NOT "c d"`, []string{"a b"}},
		{`"a b" OR "c d"`, nil},
		{`("a b" OR c) "d e"`, []string{"d e"}},
		{`"models.go"*`, []string{"models go*"}},
		{`title:"Foo Bar"`, []string{"foo bar"}},
		{`foo_test.go`, []string{"foo test go"}}, // one token, three words: a phrase
		{`"single"`, nil},
		{`word`, nil},
	} {
		t.Run(tt.q, func(t *testing.T) {
			tree, err := Parse(tt.q)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.q, err)
			}
			if got := tree.Phrases(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Phrases(%q) = %q, want %q", tt.q, got, tt.want)
			}
		})
	}
}

// TestImplied: the words a row holding one of matches the query come
// from a lone word and both sides of an OR, never from an AND, a NOT, a
// phrase or a column filter.
func TestImplied(t *testing.T) {
	for _, tt := range []struct {
		q      string
		words  []string
		prefix []bool
	}{
		{`word`, []string{"word"}, []bool{false}},
		{`migr*`, []string{"migr"}, []bool{true}},
		{`a OR b*`, []string{"a", "b"}, []bool{false, true}},
		{`a OR (b c)`, []string{"a"}, []bool{false}},
		{`a OR "b c"`, []string{"a"}, []bool{false}},
		{`a b`, nil, nil},
		{`a NOT b`, nil, nil},
		{`"a b"`, nil, nil},
		{`title:a`, nil, nil},
		{`title:a OR b`, []string{"b"}, []bool{false}},
	} {
		t.Run(tt.q, func(t *testing.T) {
			tree, err := Parse(tt.q)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.q, err)
			}
			words, prefix := tree.Implied()
			if !reflect.DeepEqual(words, tt.words) || !reflect.DeepEqual(prefix, tt.prefix) {
				t.Errorf("Implied(%q) = %q %v, want %q %v", tt.q, words, prefix, tt.words, tt.prefix)
			}
		})
	}
}
