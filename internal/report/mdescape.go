package report

import (
	"strings"
)

// Markdown escaping. A report is read raw and in Markdown viewers (GitHub,
// editors, static sites), so stored text must make no markup there at all:
// no raw HTML (&, < and > become entities), no link, image or autolink
// (GFM links bare "http://", "www." and e-mail addresses), no code span
// (a prompt's "run `x`" stays text, backticks and all), no emphasis or
// strikethrough, no table cell it can split, no hard line break and no
// block marker at the start of a quoted line. The only markup around
// stored text is the report's own: mdCode's code spans, which hold a
// value whole.

// mdEscaper backslash-escapes the characters that open markup, and breaks
// what GFM would autolink: "://" and "www." get an escaped character
// (rendered as it is, but no longer the pattern), and so does "@" (an
// e-mail address, and with it "mailto:" and "xmpp:").
var mdEscaper = strings.NewReplacer(append([]string{
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "[", `\[`, "]", `\]`,
	"*", `\*`, "_", `\_`, "~", `\~`, "@", `\@`,
	"://", `\://`,
}, wwwVariants()...)...)

// wwwVariants are the replacements of "www." in every case.
func wwwVariants() []string {
	var out []string
	for i := range 8 {
		w := []byte("www")
		for j := range 3 {
			if i&(1<<j) != 0 {
				w[j] = 'W'
			}
		}
		out = append(out, string(w)+".", string(w)+`\.`)
	}
	return out
}

// mdText is stored text as Markdown inline text that renders as exactly
// that text.
func mdText(s string) string { return mdEscaper.Replace(s) }

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
	s = mdText(strings.TrimRight(s, " \t")) // two trailing spaces would break the line
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
func mdCell(s string) string { return strings.ReplaceAll(mdText(oneLine(s)), "|", `\|`) }

// backtickRun is the length of the run of backticks s starts with.
func backtickRun(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}
