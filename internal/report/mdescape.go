package report

import (
	"strings"
)

// Markdown escaping. A report is read raw and in Markdown viewers (GitHub,
// editors, static sites), so stored text must not become structure there:
// no raw HTML or autolinks (&, < and > become entities), no links or images
// (an image would load a URL when the report is opened), no code span that
// stored text can close, no table cell it can split, and no block marker
// at the start of a quoted line. Emphasis is left alone: it changes how
// text looks, not what the report is.

// mdEscaper backslash-escapes what can open a link, image or code span, and
// the escape character itself.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "[", `\[`, "]", `\]`,
)

// mdText is stored text as Markdown inline text.
func mdText(s string) string { return mdEscaper.Replace(s) }

// mdInline is stored text that may carry code spans of its own (the titles
// and summaries mneme writes quote commands and paths in backticks): each
// code span that closes the way CommonMark would close it stays a code
// span, and everything around it is escaped; a backtick that opens nothing
// is escaped.
func mdInline(s string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			b.WriteString(mdText(s))
			break
		}
		b.WriteString(mdText(s[:i]))
		n := backtickRun(s[i:])
		fence := s[i : i+n]
		end := closingRun(s[i+n:], n)
		if end < 0 {
			b.WriteString(strings.Repeat("\\`", n))
			s = s[i+n:]
			continue
		}
		b.WriteString(fence)
		b.WriteString(s[i+n : i+n+end]) // literal inside a code span
		b.WriteString(fence)
		s = s[i+n+end+n:]
	}
	return b.String()
}

// mdCode is s as one code span whose fence is longer than any run of
// backticks inside it, so nothing in s can close it.
func mdCode(s string) string {
	s = oneLine(s)
	longest := 0
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := backtickRun(s[i:])
		longest = max(longest, n)
		i += n
	}
	fence := strings.Repeat("`", longest+1)
	if s == "" || s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' {
		s = " " + s + " " // CommonMark strips one space from each side
	}
	return fence + s + fence
}

// mdLine is one line of quoted stored text: mdText, with a leading block
// marker (heading, list item, rule, setext underline, table pipe, fence)
// escaped so the line stays a paragraph line inside the quote.
func mdLine(s string) string {
	s = mdText(s)
	lead := len(s) - len(strings.TrimLeft(s, " \t"))
	rest := s[lead:]
	if rest == "" {
		return s
	}
	switch rest[0] {
	case '#', '-', '+', '*', '=', '_', '|', '~':
		return s[:lead] + `\` + rest
	}
	// An ordered list item: digits, then '.' or ')'.
	d := 0
	for d < len(rest) && d < 9 && rest[d] >= '0' && rest[d] <= '9' {
		d++
	}
	if d > 0 && d < len(rest) && (rest[d] == '.' || rest[d] == ')') {
		return s[:lead] + rest[:d] + `\` + rest[d:]
	}
	return s
}

// mdCell is stored text in a table cell: one line, with its pipes escaped
// (GitHub splits cells on a pipe even inside a code span).
func mdCell(s string) string { return strings.ReplaceAll(mdInline(oneLine(s)), "|", `\|`) }

// backtickRun is the length of the run of backticks s starts with.
func backtickRun(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}

// closingRun is the offset in s of the first run of exactly n backticks,
// or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := backtickRun(s[i:])
		if m == n {
			return i
		}
		i += m
	}
	return -1
}
