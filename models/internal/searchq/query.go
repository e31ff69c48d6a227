// Package searchq is the search query language: the user's query, in
// FTS5's syntax, checked and prepared for SQLite's MATCH (Normalize), its
// terms listed for the cost probe (Terms), and parsed into a tree
// (Parse) written out as PostgreSQL's to_tsquery (Node.Render). One
// lexer (scanQuery) reads for all three. It needs no database, and
// imports only the standard library; models runs the queries.
package searchq

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a query the language refuses, with a message fit for the user.
type Error struct {
	Msg string
}

// Error implements error.
func (e *Error) Error() string { return e.Msg }

// tokenKind is what a piece of a query is.
type tokenKind int

const (
	tokWord   tokenKind = iota // a run of anything else: a word, an operator, col:word, prefix*
	tokPhrase                  // a "quoted phrase" ("" escapes a quote inside)
	tokSpace                   // blank
	tokPunct                   // ( ) { } ,
)

// queryToken is one piece of a query. Raw is its text as written (a
// phrase with its quotes; an unclosed phrase runs to the end). Text is a
// phrase's content, its "" read as ". Star tells that a '*' follows a
// phrase right after its closing quote (it is the next token).
type queryToken struct {
	Kind tokenKind
	Raw  string
	Text string
	Star bool
}

// breaks end a word: blanks, punctuation and a quote.
const breaks = " \t\n\r(){},\""

// scanQuery cuts q into tokens; their Raw texts put together are q.
func scanQuery(q string) []queryToken {
	var out []queryToken
	for i := 0; i < len(q); {
		switch c := q[i]; {
		case c == '"':
			j := i + 1
			var b strings.Builder
			for j < len(q) {
				if q[j] == '"' {
					if j+1 < len(q) && q[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					j++
					break
				}
				b.WriteByte(q[j])
				j++
			}
			out = append(out, queryToken{Kind: tokPhrase, Raw: q[i:j], Text: b.String(), Star: j < len(q) && q[j] == '*'})
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			out = append(out, queryToken{Kind: tokSpace, Raw: q[i : i+1]})
			i++
		case c == '(' || c == ')' || c == '{' || c == '}' || c == ',':
			out = append(out, queryToken{Kind: tokPunct, Raw: q[i : i+1]})
			i++
		default:
			j := i
			for j < len(q) && !strings.ContainsRune(breaks, rune(q[j])) {
				j++
			}
			out = append(out, queryToken{Kind: tokWord, Raw: q[i:j]})
			i = j
		}
	}
	return out
}

// minPrefix is the shortest word prefix* accepted: shorter ones expand to
// most of the vocabulary.
const minPrefix = 3

// ftsColumns are the column names that may precede ':' in a query.
var ftsColumns = map[string]bool{
	"title": true, "input": true, "output": true, "files": true, "text": true,
	"request": true, "investigated": true, "learned": true, "completed": true,
	"next_steps": true, "last_assistant_message": true,
}

// MaxLen bounds the query text handed to FTS5.
const MaxLen = 1000

// Normalize checks q and prepares it for FTS5 MATCH. The user's syntax
// goes through unchanged — AND/OR/NOT, NEAR(), prefix*, ^, "phrases",
// column: filters, parentheses — with one rewrite: a bare word holding
// characters FTS5 refuses outside quotes (foo_test.go, mneme-dev,
// src/app.ts, http://x) is wrapped in quotes, which searches it as the
// phrase of its tokens, as the user meant. A word that starts with '-' is
// refused with a hint (FTS5 has no '-' operator; use NOT), as are a prefix
// shorter than three letters, an empty query, a long one and invalid
// UTF-8: each as an *Error.
func Normalize(q string) (string, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return "", &Error{Msg: "enter something to search for"}
	}
	if len(q) > MaxLen {
		return "", &Error{Msg: fmt.Sprintf("the query is longer than %d bytes", MaxLen)}
	}
	if !utf8.ValidString(q) {
		return "", &Error{Msg: "the query is not valid UTF-8"}
	}
	var b strings.Builder
	for _, t := range scanQuery(q) {
		if t.Kind != tokWord {
			// A phrase is copied as written (an unclosed one is left for
			// FTS5 to refuse), and so are blanks and punctuation.
			b.WriteString(t.Raw)
			continue
		}
		w, err := normalizeWord(t.Raw)
		if err != nil {
			return "", err
		}
		b.WriteString(w)
	}
	return b.String(), nil
}

// normalizeWord quotes one bare word of a query when FTS5 would refuse it.
func normalizeWord(w string) (string, error) {
	if w == "*" || w == "+" || w == "^" {
		return w, nil
	}
	if strings.HasPrefix(w, "-") && len(w) > 1 {
		return "", &Error{Msg: fmt.Sprintf("%q: FTS5 has no '-' operator; write NOT %s to exclude it, or quote it", w, strings.TrimLeft(w, "-"))}
	}
	core, prefix := w, ""
	if strings.HasSuffix(core, "*") {
		core, prefix = strings.TrimSuffix(core, "*"), "*"
		if n := utf8.RuneCountInString(strings.TrimLeft(core, "^")); n > 0 && n < minPrefix && !strings.Contains(core, ":") {
			return "", &Error{Msg: fmt.Sprintf("%q: a prefix search needs at least %d letters before the *", w, minPrefix)}
		}
	}
	caret := ""
	if strings.HasPrefix(core, "^") {
		core, caret = core[1:], "^"
	}
	// col:word keeps its column filter when col is a real column.
	if i := strings.IndexByte(core, ':'); i > 0 && ftsColumns[strings.ToLower(core[:i])] {
		rest, err := normalizeWord(core[i+1:] + prefix)
		if err != nil {
			return "", err
		}
		return caret + core[:i+1] + rest, nil
	}
	if core == "" || bareword(core) {
		return w, nil
	}
	return caret + `"` + strings.ReplaceAll(core, `"`, `""`) + `"` + prefix, nil
}

// bareword reports whether FTS5 accepts w unquoted: letters, digits, '_'
// and any non-ASCII character.
func bareword(w string) bool {
	for _, r := range w {
		if r < 0x80 && !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// Terms returns an FTS5 query matching the rows that hold any term of
// match (a query Normalize prepared): its words, prefix* words and the
// words of its "phrases", each quoted, joined by OR; operators, column
// filters, ^ and NEAR distances left out. single tells that match is no
// more than that already: one term, or terms joined by OR. models' Search
// uses it to tell cheaply what ranking would cost (RankTermRows).
func Terms(match string) (terms string, single bool) {
	var list []string
	seen := map[string]bool{}
	add := func(words []string, prefix bool) {
		for k, w := range words {
			term := `"` + w + `"`
			if prefix && k == len(words)-1 {
				term += "*"
			}
			if !seen[term] {
				seen[term] = true
				list = append(list, term)
			}
		}
	}
	single = true
	operand := false  // the last thing read was an operand: another one is an implicit AND
	braces := 0       // inside {col1 col2}: column names, not terms
	comma := false    // after the ',' of NEAR(…, N)
	skipStar := false // the '*' after a phrase was read with it
	for _, t := range scanQuery(match) {
		starred := skipStar
		skipStar = false
		switch t.Kind {
		case tokPhrase:
			words := ftsWords(t.Text)
			if len(words) != 1 || operand || braces > 0 {
				single = false
			}
			if braces == 0 {
				add(words, t.Star)
			}
			operand, comma, skipStar = true, false, t.Star
		case tokSpace:
		case tokPunct:
			switch c := t.Raw[0]; c {
			case '(':
				if operand {
					single = false
				}
				operand, comma = false, false
			case ')':
				operand, comma = true, false
			case '{', '}':
				single = false
				if c == '{' {
					braces++
				} else if braces > 0 {
					braces--
				}
				operand, comma = false, false
			case ',':
				single, comma = false, true
			}
		case tokWord:
			w := t.Raw
			if starred {
				if w = w[1:]; w == "" {
					continue
				}
			}
			afterComma := comma
			comma = false
			switch {
			case braces > 0:
				continue // a column name
			case w == "OR":
				operand = false
				continue
			case w == "AND" || w == "NOT" || w == "NEAR" || strings.HasSuffix(w, ":"):
				single, operand = false, false
				continue
			case afterComma && strings.Trim(w, "0123456789") == "":
				continue // NEAR's distance
			}
			if k := strings.IndexByte(w, ':'); k >= 0 {
				w, single = w[k+1:], false
			}
			if strings.HasPrefix(w, "^") {
				w, single = w[1:], false
			}
			prefix := strings.HasSuffix(w, "*")
			words := ftsWords(strings.TrimSuffix(w, "*"))
			if len(words) != 1 || operand {
				single = false
			}
			add(words, prefix)
			operand = true
		}
	}
	if len(list) == 0 {
		return "", true
	}
	return strings.Join(list, " OR "), single
}

// ftsWords splits text into words as FTS5's unicode61 tokenizer does:
// runs of letters, digits and private-use characters.
func ftsWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Co, r)
	})
}
