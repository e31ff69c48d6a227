package models

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/models/internal/searchq"
)

// Snippets and query errors: what a search answers besides its hits.

// Snippet markers. SQLite's snippet() wraps every matched phrase in
// SnippetOpen … SnippetClose. They are ASCII control characters (STX, ETX)
// that never appear in text worth showing, so a page can split a snippet on
// them (SplitSnippet) and render the matches as <mark> while escaping the
// text itself — no HTML ever travels inside a snippet.
const (
	SnippetOpen  = "\x02"
	SnippetClose = "\x03"
)

// SnippetPart is a piece of a snippet: plain text or a match.
type SnippetPart struct {
	Text  string `json:"text"`
	Match bool   `json:"match"`
}

// SplitSnippet cuts a snippet made by Search into plain and matched parts.
// Unbalanced or stray markers are dropped, never shown; empty parts are
// omitted. The parts hold text only: escape them when rendering.
func SplitSnippet(s string) []SnippetPart {
	var parts []SnippetPart
	match := false
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			parts = append(parts, SnippetPart{Text: b.String(), Match: match})
			b.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case SnippetOpen[0]:
			if !match {
				flush()
				match = true
			}
		case SnippetClose[0]:
			if match {
				flush()
				match = false
			}
		default:
			b.WriteByte(s[i])
		}
	}
	flush()
	return parts
}

// QueryError is a search query refused, by the query language
// (searchq) or by SQLite, with a message fit for the user. It matches
// ErrInvalid (errors.Is), so handlers answer 400.
type QueryError struct {
	Query string
	Msg   string
}

// Error implements error.
func (e *QueryError) Error() string { return "invalid search query: " + e.Msg }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *QueryError) Is(target error) bool { return target == ErrInvalid }

// queryErr turns the query language's refusal (a *searchq.Error) into a
// *QueryError about the user's query q, and sets q on a *QueryError.
func queryErr(err error, q string) error {
	var se *searchq.Error
	if errors.As(err, &se) {
		return &QueryError{Query: q, Msg: se.Msg}
	}
	var qe *QueryError
	if errors.As(err, &qe) {
		qe.Query = q
	}
	return err
}

// normalizeQuery is searchq.Normalize, a refusal as a *QueryError.
func normalizeQuery(q string) (string, error) {
	match, err := searchq.Normalize(q)
	return match, queryErr(err, strings.TrimSpace(q))
}

// ftsError turns SQLite's complaint about a MATCH expression into a
// *QueryError; other errors pass through unchanged.
func ftsError(err error, q string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if i := strings.Index(msg, "SQL logic error: "); i >= 0 {
		msg = msg[i+len("SQL logic error: "):]
	}
	msg = strings.TrimSuffix(msg, " (1)")
	switch {
	case strings.Contains(msg, "unterminated string"):
		return &QueryError{Query: q, Msg: `a "quoted phrase" is not closed`}
	case strings.Contains(msg, "fts5: syntax error near"):
		near := strings.TrimPrefix(msg[strings.Index(msg, "near")+len("near"):], " ")
		if near == `""` {
			return &QueryError{Query: q, Msg: "the query ends too early (an operator or a parenthesis is missing its other side)"}
		}
		return &QueryError{Query: q, Msg: "syntax error near " + near + ` (operators are AND, OR, NOT and NEAR(); quote words that contain them: "and")`}
	case strings.Contains(msg, "no such column"):
		col := strings.TrimSpace(msg[strings.Index(msg, "no such column")+len("no such column"):])
		col = strings.TrimPrefix(col, ": ")
		return &QueryError{Query: q, Msg: fmt.Sprintf("unknown column %q before ':' (columns: title, input, output, files, text, request, investigated, learned, completed, next_steps)", col)}
	case strings.Contains(msg, "expected integer"):
		return &QueryError{Query: q, Msg: "the distance of NEAR(…, N) must be a whole number, after a comma: NEAR(a b, 5)"}
	case strings.Contains(msg, "unknown special query"):
		return &QueryError{Query: q, Msg: "a query cannot start with '*'; put the * right after a word prefix, like migr*"}
	case strings.Contains(msg, "fts5:"):
		return &QueryError{Query: q, Msg: strings.TrimPrefix(msg[strings.Index(msg, "fts5:"):], "fts5: ")}
	}
	return err
}
