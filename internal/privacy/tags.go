package privacy

import (
	"strings"
	"unicode/utf8"
)

// MaxTagsPerField bounds how many private-style tags are removed from one
// field. Past it, everything from the next opening tag on is dropped: the
// safe direction for privacy, and a hard bound on work.
const MaxTagsPerField = 100

// strippedTags are removed with their content: the user's private blocks,
// mneme's own injected context (which would otherwise be re-ingested and
// recurse), claude-mem's context and Claude Code's system reminders.
var strippedTags = []string{"private", "mneme-context", "claude-mem-context", "system-reminder"}

// StripTags removes every <private>, <mneme-context>, <claude-mem-context>
// and <system-reminder> block from s, content included. A block ends at the
// closing tag that balances its opening one, so blocks of the same kind may
// nest. It runs in linear time (each byte is scanned a bounded number of
// times) and is case-insensitive. An opening tag without its closing tag
// hides everything after it: an unterminated <private> must not leak.
//
// Tags spelled with look-alike characters count: fullwidth or small forms
// and other compatibility characters (by NFKC), any dash for the hyphen,
// and invisible characters anywhere inside (see lookalike.go).
func StripTags(s string) string {
	if !mayHoldTag(s) {
		return s
	}
	// The tags are looked for in the folded text; its indexes are mapped
	// back to cut s. (Lowering by strings.ToLower would not do: it
	// changes the length of invalid UTF-8 and of some runes, İ, K; a
	// fuzzed "\xee<privAte " panicked.)
	f := foldText(s)
	lower := f.text
	if !hasAnyTag(lower) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pos, tags := 0, 0
	for pos < len(lower) {
		start, name, openEnd := nextOpenTag(lower, pos)
		if start < 0 {
			b.WriteString(s[f.orig(pos):])
			break
		}
		b.WriteString(s[f.orig(pos):f.orig(start)])
		tags++
		if tags > MaxTagsPerField {
			break
		}
		end, ok := closingTag(lower, openEnd, name, &tags)
		if !ok {
			break // unterminated, or past the bound: drop the rest
		}
		pos = end
	}
	return strings.TrimSpace(collapseBlankRuns(b.String()))
}

// closingTag finds the end of the block whose opening tag of kind name ends
// at from: just past the closing tag that balances it, counting the
// blocks of the same kind nested inside (<private>a<private>b</private>
// c</private> is one block). Each nested opening tag counts toward
// MaxTagsPerField; ok is false when the block is unterminated or the bound
// is passed. Every byte is looked at once.
func closingTag(lower string, from int, name string, tags *int) (end int, ok bool) {
	closeTag := "</" + name + ">"
	depth := 1
	for i := from; ; {
		j := strings.IndexByte(lower[i:], '<')
		if j < 0 {
			return 0, false
		}
		i += j
		switch {
		case strings.HasPrefix(lower[i:], closeTag):
			i += len(closeTag)
			if depth--; depth == 0 {
				return i, true
			}
		case openingTagAt(lower, i, name):
			if *tags++; *tags > MaxTagsPerField {
				return 0, false
			}
			depth++
			i += 1 + len(name)
		default:
			i++
		}
	}
}

// openingTagAt reports whether an opening tag of kind name starts at i:
// "<name" followed by '>' or white space.
func openingTagAt(lower string, i int, name string) bool {
	after := i + 1 + len(name)
	if after >= len(lower) || !strings.HasPrefix(lower[i+1:], name) {
		return false
	}
	switch lower[after] {
	case '>', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func hasAnyTag(lower string) bool {
	for _, t := range strippedTags {
		if strings.Contains(lower, "<"+t) {
			return true
		}
	}
	return false
}

// nextOpenTag finds the earliest opening tag of a stripped kind at or after
// pos. It returns its start, its name and the index just past its '>'.
func nextOpenTag(lower string, pos int) (start int, name string, openEnd int) {
	for {
		i := strings.IndexByte(lower[pos:], '<')
		if i < 0 {
			return -1, "", 0
		}
		i += pos
		for _, t := range strippedTags {
			if !strings.HasPrefix(lower[i+1:], t) {
				continue
			}
			after := i + 1 + len(t)
			if after >= len(lower) {
				continue
			}
			switch lower[after] {
			case '>':
				return i, t, after + 1
			case ' ', '\t', '\n', '\r':
				gt := strings.IndexByte(lower[after:], '>')
				if gt < 0 {
					return i, t, len(lower)
				}
				return i, t, after + gt + 1
			}
		}
		pos = i + 1
	}
}

// collapseBlankRuns turns three or more newlines, left where blocks were
// cut out, into two.
func collapseBlankRuns(s string) string {
	if !strings.Contains(s, "\n\n\n") {
		return s
	}
	var b strings.Builder
	nl := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			nl++
			if nl > 2 {
				continue
			}
		} else {
			nl = 0
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// StripTagsJSON applies StripTags to every string inside a JSON document
// without re-encoding what has no tags. It returns raw unchanged when there
// is nothing to strip.
func StripTagsJSON(raw []byte) []byte {
	if len(raw) == 0 {
		return raw
	}
	if !containsTagJSON(raw) {
		return raw
	}
	changed := false
	out := MapStrings(raw, func(s string) string {
		c := StripTags(s)
		changed = changed || c != s
		return c
	})
	if !changed {
		return raw
	}
	return out
}

// containsTagJSON reports whether raw may hold an opening tag of a
// stripped kind: written "<name" or, as JSON encoders may, "\u003cname",
// in any ASCII letter case; or spelled with look-alikes (see StripTags),
// which takes a '<' or a look-alike of it, and a rune past ASCII or a
// \u escape. It scans raw in place: a 50 MB tool response used to be
// copied three times here before anything was sent.
func containsTagJSON(raw []byte) bool {
	lt, other := false, false
	for i := 0; i < len(raw); i++ {
		var rest []byte
		switch c := raw[i]; {
		case c == '<':
			lt, rest = true, raw[i+1:]
		case c == '\\' && i+1 < len(raw) && raw[i+1] != 'u':
			i++ // \\, \", \n…: the next byte starts no escape
			continue
		case c == '\\' && i+6 <= len(raw):
			r, ok := hex4(raw[i+2 : i+6])
			switch {
			case ok && r == '<':
				lt, rest = true, raw[i+6:]
			case ok && isLTForm(r):
				lt, other = true, true
			default:
				other = true
			}
			i += 5
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(raw[i:])
			lt = lt || isLTForm(r)
			other = true
			i += size - 1
			continue
		default:
			continue
		}
		for _, t := range strippedTags {
			if hasPrefixFoldASCII(rest, t) {
				return true
			}
		}
	}
	return lt && other
}

// isLTForm reports whether r, past ASCII, folds to '<'.
func isLTForm(r rune) bool {
	for _, lt := range ltForms {
		if string(r) == lt {
			return true
		}
	}
	return false
}

// hex4 reads the four hex digits of a \u escape.
func hex4(h []byte) (rune, bool) {
	var r rune
	for _, c := range h {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, true
}

// hasPrefixFoldASCII reports whether b starts with the lower-case ASCII
// word w, ignoring the case of b's letters.
func hasPrefixFoldASCII(b []byte, w string) bool {
	if len(b) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// asciiLower lowers A-Z only, so the result has exactly the bytes of s at
// the same offsets. Tag names are ASCII.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}
