package searchq

import (
	"fmt"
	"slices"
	"strings"
)

// The query language on PostgreSQL: the FTS5 syntax Normalize prepares is
// parsed into a small tree (Parse) and written out per table as a
// to_tsquery('english', …) string (Node.Render). The words come from
// ftsWords, the letter and digit runs mneme_words cuts the indexed text
// into, each quoted as a lexeme; to_tsquery then stems them and drops
// stopwords as to_tsvector did.
//
//	FTS5                    to_tsquery
//	a b, a AND b            'a' & 'b'
//	a OR b                  'a' | 'b'
//	a NOT b                 'a' & !'b'
//	( … )                   ( … )
//	"a b c"                 ( 'a' <-> 'b' <-> 'c' )
//	abc*, "a bc"*           'abc':*, ( 'a' <-> 'bc':* )
//	title:a, title:(a OR b) 'a':A, ( 'a':A | 'b':A )
//
// Precedence is FTS5's: implicit AND binds tightest, then NOT, AND, OR.
// A column filter becomes the weight that column's text has in the
// table's fts column (Render's weights); a column the table does not
// have makes that table answer nothing, as FTS5 skips it. NEAR(),
// ^initial, + and {column groups} have no tsquery form and are refused.

// Node is a parsed query: a term (op 0), or l op r with op '&', '|' or
// '!' (l AND NOT r). A term is a word or a phrase: its words, whether the
// last is a prefix, and the columns it is limited to (nil for all).
type Node struct {
	op     byte
	l, r   *Node
	words  []string
	prefix bool
	cols   []string
}

// tsItem is a lexical item of the parser: a term, an operator
// ("AND", "OR", "NOT"), a parenthesis, or a column filter before a
// parenthesis or a phrase (col set).
type tsItem struct {
	kind string // "term", "op", "(", ")", "col"
	op   string
	term *Node
	col  string
}

// tsLex reads the items of match, refusing what has no tsquery form.
func tsLex(match string) ([]tsItem, error) {
	toks := scanQuery(match)
	var out []tsItem
	skipStar := false
	for i, t := range toks {
		starred := skipStar
		skipStar = false
		switch t.Kind {
		case tokSpace:
		case tokPhrase:
			if !phraseClosed(t.Raw) {
				return nil, &Error{Msg: `a "quoted phrase" is not closed`}
			}
			out = append(out, tsItem{kind: "term", term: &Node{words: lowerWords(t.Text), prefix: t.Star}})
			skipStar = t.Star
		case tokPunct:
			switch t.Raw {
			case "(", ")":
				out = append(out, tsItem{kind: t.Raw})
			case "{", "}":
				return nil, &Error{Msg: "column groups {col1 col2}: are not supported on PostgreSQL; write (col1:word OR col2:word)"}
			default:
				return nil, &Error{Msg: `a ',' outside a "quoted phrase" is only NEAR()'s, which PostgreSQL does not support; quote it or leave it out`}
			}
		case tokWord:
			w := t.Raw
			if starred {
				if w = w[1:]; w == "" {
					continue
				}
			}
			switch {
			case w == "AND" || w == "OR" || w == "NOT":
				out = append(out, tsItem{kind: "op", op: w})
				continue
			case w == "NEAR" && nextIs(toks[i+1:], "("):
				return nil, &Error{Msg: `NEAR() is not supported on PostgreSQL; write a "quoted phrase" for words next to each other, or the words alone to find them anywhere in the text`}
			case w == "*":
				return nil, &Error{Msg: "a query cannot start with '*'; put the * right after a word prefix, like migr*"}
			case w == "+":
				return nil, &Error{Msg: `'+' (phrase concatenation) is not supported on PostgreSQL; write the words as one "quoted phrase"`}
			}
			col := ""
			if k := strings.IndexByte(w, ':'); k > 0 && ftsColumns[strings.ToLower(w[:k])] {
				col, w = strings.ToLower(w[:k]), w[k+1:]
				if w == "" {
					out = append(out, tsItem{kind: "col", col: col})
					continue
				}
			}
			if strings.HasPrefix(w, "^") {
				return nil, &Error{Msg: fmt.Sprintf("%q: ^ (a column's first word) is not supported on PostgreSQL; leave out the ^", t.Raw)}
			}
			n := &Node{}
			if strings.HasSuffix(w, "*") {
				w, n.prefix = strings.TrimSuffix(w, "*"), true
			}
			n.words = lowerWords(w)
			if col != "" {
				n.cols = []string{col}
			}
			out = append(out, tsItem{kind: "term", term: n})
		}
	}
	return out, nil
}

// phraseClosed reports whether a phrase token, as scanQuery cut it, ends
// with its closing quote ("" inside is an escaped quote).
func phraseClosed(raw string) bool {
	for i := 1; i < len(raw); i++ {
		if raw[i] == '"' {
			if i+1 < len(raw) && raw[i+1] == '"' {
				i++
				continue
			}
			return i == len(raw)-1
		}
	}
	return false
}

// nextIs reports whether the first token of toks that is not a blank is
// punctuation p.
func nextIs(toks []queryToken, p string) bool {
	for _, t := range toks {
		if t.Kind != tokSpace {
			return t.Kind == tokPunct && t.Raw == p
		}
	}
	return false
}

func lowerWords(s string) []string {
	words := ftsWords(s)
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return words
}

// tsParser is a recursive-descent parser over the items of one query.
type tsParser struct {
	items []tsItem
	pos   int
}

// Parse parses match (FTS5 syntax, as Normalize returns it); what has no
// tsquery form is refused as an *Error. A nil tree with no error is a
// query without a single word (only punctuation).
func Parse(match string) (*Node, error) {
	items, err := tsLex(match)
	if err != nil {
		return nil, err
	}
	p := &tsParser{items: items}
	n, err := p.or(nil)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.items) {
		return nil, p.unexpected()
	}
	return n, nil
}

func (p *tsParser) peek() *tsItem {
	if p.pos < len(p.items) {
		return &p.items[p.pos]
	}
	return nil
}

func (p *tsParser) peekOp(op string) bool {
	it := p.peek()
	return it != nil && it.kind == "op" && it.op == op
}

// unexpected is the error for the item at pos (or the end).
func (p *tsParser) unexpected() error {
	it := p.peek()
	if it == nil {
		return &Error{Msg: "the query ends too early (an operator or a parenthesis is missing its other side)"}
	}
	near := it.op
	switch it.kind {
	case "(", ")":
		near = it.kind
	case "col":
		near = it.col + ":"
	}
	return &Error{Msg: fmt.Sprintf(`syntax error near %q (operators are AND, OR and NOT; quote words that contain them: "and")`, near)}
}

func (p *tsParser) or(cols []string) (*Node, error) {
	return p.binary(cols, "OR", '|', p.and)
}

func (p *tsParser) and(cols []string) (*Node, error) {
	return p.binary(cols, "AND", '&', p.not)
}

func (p *tsParser) not(cols []string) (*Node, error) {
	return p.binary(cols, "NOT", '!', p.seq)
}

// binary parses operands joined by the operator word, left to right.
func (p *tsParser) binary(cols []string, word string, op byte, operand func([]string) (*Node, error)) (*Node, error) {
	l, err := operand(cols)
	if err != nil {
		return nil, err
	}
	for p.peekOp(word) {
		p.pos++
		r, err := operand(cols)
		if err != nil {
			return nil, err
		}
		l = join(op, l, r)
	}
	return l, nil
}

// seq parses operands side by side: an implicit AND.
func (p *tsParser) seq(cols []string) (*Node, error) {
	l, err := p.primary(cols)
	if err != nil {
		return nil, err
	}
	for it := p.peek(); it != nil && (it.kind == "term" || it.kind == "(" || it.kind == "col"); it = p.peek() {
		r, err := p.primary(cols)
		if err != nil {
			return nil, err
		}
		l = join('&', l, r)
	}
	return l, nil
}

// primary parses a term, a (group) or col:(group) / col:"phrase". cols
// are the columns the enclosing filters allow (nil: any).
func (p *tsParser) primary(cols []string) (*Node, error) {
	it := p.peek()
	if it == nil {
		return nil, p.unexpected()
	}
	switch it.kind {
	case "term":
		p.pos++
		n := *it.term
		c, err := narrow(cols, n.cols)
		if err != nil {
			return nil, err
		}
		n.cols = c
		if len(n.words) == 0 {
			return nil, nil
		}
		return &n, nil
	case "col":
		p.pos++
		c, err := narrow(cols, []string{it.col})
		if err != nil {
			return nil, err
		}
		if next := p.peek(); next == nil || next.kind != "term" && next.kind != "(" {
			return nil, p.unexpected()
		}
		return p.primary(c)
	case "(":
		p.pos++
		n, err := p.or(cols)
		if err != nil {
			return nil, err
		}
		if it := p.peek(); it == nil || it.kind != ")" {
			return nil, p.unexpected()
		}
		p.pos++
		return n, nil
	}
	return nil, p.unexpected()
}

// narrow is the columns both filters allow (nil for no filter).
func narrow(outer, inner []string) ([]string, error) {
	if outer == nil {
		return inner, nil
	}
	if inner == nil {
		return outer, nil
	}
	var both []string
	for _, c := range inner {
		if slices.Contains(outer, c) {
			both = append(both, c)
		}
	}
	if len(both) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("column filters %s: and %s: inside each other leave no column to search", strings.Join(outer, ","), strings.Join(inner, ","))}
	}
	return both, nil
}

// join combines two operands; a missing one (a term without words) drops
// out, as to_tsquery drops a stopword: nothing NOT b finds nothing.
func join(op byte, l, r *Node) *Node {
	switch {
	case l == nil && op == '!':
		return nil
	case l == nil:
		return r
	case r == nil:
		return l
	}
	return &Node{op: op, l: l, r: r}
}

// unknownColumnError is a column filter a table does not have: that table
// is skipped, and the error is the search's when every table is.
func unknownColumnError(col string) *Error {
	return &Error{Msg: fmt.Sprintf("unknown column %q before ':' (columns: title, input, output, files, text, request, investigated, learned, completed, next_steps)", col)}
}

// Render writes n as a to_tsquery string for a table whose columns a
// query may filter on are weights' keys, each mapped to the tsvector
// weights its text has in the table's fts column ("" for every weight: a
// table of one column). Two columns that share a weight cannot be told
// apart. A column filter weights lacks is an *Error: skip that table.
func (n *Node) Render(weights map[string]string) (string, error) {
	var b strings.Builder
	if err := n.write(&b, weights); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (n *Node) write(b *strings.Builder, weights map[string]string) error {
	if n.op != 0 {
		b.WriteByte('(')
		if err := n.l.write(b, weights); err != nil {
			return err
		}
		switch n.op {
		case '!':
			b.WriteString(" & !")
		default:
			b.WriteString(" " + string(n.op) + " ")
		}
		if err := n.r.write(b, weights); err != nil {
			return err
		}
		b.WriteByte(')')
		return nil
	}
	label := ""
	for _, c := range n.cols {
		w, ok := weights[c]
		if !ok {
			return unknownColumnError(c)
		}
		if w == "" {
			label = ""
			break
		}
		if !strings.Contains(label, w) {
			label += w
		}
	}
	if len(n.words) > 1 {
		b.WriteByte('(')
	}
	for i, w := range n.words {
		if i > 0 {
			b.WriteString(" <-> ")
		}
		b.WriteString("'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(w) + "'")
		suffix := label
		if n.prefix && i == len(n.words)-1 {
			suffix = "*" + suffix
		}
		if suffix != "" {
			b.WriteString(":" + suffix)
		}
	}
	if len(n.words) > 1 {
		b.WriteByte(')')
	}
	return nil
}

// Implied are the words each of which implies a match of n: a row
// holding one matches. They are n's word, or the implied words of both
// sides of an OR; none for an AND, a NOT, a phrase or a column filter,
// which a row holding one word may still fail. A prefix stands for every
// word it begins. n then has at least as many matches as any of them
// (models' mneme_common_rows).
func (n *Node) Implied() (words []string, prefix []bool) {
	switch {
	case n == nil:
	case n.op == '|':
		lw, lp := n.l.Implied()
		rw, rp := n.r.Implied()
		return append(lw, rw...), append(lp, rp...)
	case n.op == 0 && len(n.words) == 1 && len(n.cols) == 0:
		return n.words, []bool{n.prefix}
	}
	return nil, nil
}

// Phrases are the phrases every match of n contains: those (of two words
// or more) among n's terms joined by AND, or on the left of a NOT; none
// under an OR, whose other side may match alone. Each is its words joined
// by spaces, with a trailing * when its last word is a prefix: what
// mneme_phrase_pairs (models/migrations_postgres.go) reads.
func (n *Node) Phrases() []string {
	switch {
	case n == nil || n.op == '|':
		return nil
	case n.op == '&':
		return append(n.l.Phrases(), n.r.Phrases()...)
	case n.op == '!':
		return n.l.Phrases()
	case len(n.words) < 2:
		return nil
	}
	p := strings.Join(n.words, " ")
	if n.prefix {
		p += "*"
	}
	return []string{p}
}
