package privacy

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

//go:generate go run gen_lookalike.go

// Tags are looked for in a folded copy of the text, so that a tag spelled
// with look-alike characters is a tag too: ＜private＞ (fullwidth),
// <mneme‐context> (U+2010 HYPHEN), <system\u200b-reminder> (a zero-width
// space). The folding reads every rune whose NFKC form is ASCII as that
// form (lookalike_table.go, generated from golang.org/x/text's NFKC: this
// package stays on the standard library for the hook), every dash as '-',
// drops what is invisible (Ignorable) and lowers ASCII letters. It is only
// for finding tags: what is kept is cut from the text as written.

// foldRange is one entry of foldTable: the runes lo..hi read as to, or,
// with inc, rune r reads as the one byte to[0]+(r-lo).
type foldRange struct {
	lo, hi rune
	to     string
	inc    bool
}

// Dash reports whether r is read as a hyphen-minus in a tag: any dash
// punctuation (U+2010 HYPHEN, the en and em dashes, fullwidth and small
// hyphen-minus…) or U+2212 MINUS SIGN, none of which NFKC folds to '-'.
func Dash(r rune) bool {
	return r == '-' || r == '\u2212' || unicode.Is(unicode.Pd, r)
}

// Ignorable reports whether r is invisible where it stands between the
// letters of a tag: a format character (Unicode category Cf: zero-width
// space and joiners, BOM, bidirectional controls, soft hyphen, tag
// characters), a variation selector, or another default-ignorable code
// point (combining grapheme joiner, Hangul fillers).
func Ignorable(r rune) bool {
	return r >= utf8.RuneSelf && unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// foldRune is how a rune past ASCII reads in a tag: as '-' when it is a
// Dash, as nothing when it is Ignorable, as its NFKC form when that is
// ASCII (lowered); ok is false when it reads as itself. It looks r up in
// foldTable, which TestLookalikeTable checks against those definitions.
func foldRune(r rune) (s string, ok bool) {
	if p := r >> 8; p < 256 && foldPages[p/64]&(1<<(p%64)) == 0 {
		return "", false
	}
	lo, hi := 0, len(foldTable)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if foldTable[m].hi < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(foldTable) || foldTable[lo].lo > r {
		return "", false
	}
	e := &foldTable[lo]
	if !e.inc {
		return e.to, true
	}
	c := int(e.to[0]) + int(r-e.lo)
	return asciiBytes[c : c+1], true
}

// asciiBytes holds every ASCII byte at its own index: asciiBytes[c:c+1]
// is string(c) without an allocation.
const asciiBytes = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f" +
	" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f"

// ltForms are the runes past ASCII that fold to '<' (checked against the
// table by TestLookalikeTableIsNFKC): no tag starts without one of them
// or '<'.
var ltForms = []string{"\uFE64", "\uFF1C"}

// mayHoldTag is StripTags' quick test: s has a '<' or a look-alike of it.
func mayHoldTag(s string) bool {
	if strings.IndexByte(s, '<') >= 0 {
		return true
	}
	for _, lt := range ltForms {
		if strings.Contains(s, lt) {
			return true
		}
	}
	return false
}

// folded is a text as tags are looked for in it (see above), and where
// it differs from the text byte for byte, to map its indexes back.
type folded struct {
	text string
	// segs are the runes folding changed, in order: text[at:end] reads
	// s[from:to]. Between them text and s match byte for byte.
	segs []foldSeg
}

type foldSeg struct{ at, end, from, to int }

// foldText folds s in one pass. ASCII text costs what lowering it does;
// only the runes it changes take room in segs.
func foldText(s string) folded {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return folded{text: asciiLower(s)}
	}
	// The copy is made from the first change on: text past ASCII that
	// reads as itself costs no copy.
	var b strings.Builder
	var segs []foldSeg
	kept := 0 // s[kept:j] is to be written as it is
	flush := func(j int) {
		if b.Cap() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[kept:j])
	}
	for j := 0; j < len(s); {
		c := s[j]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				flush(j)
				b.WriteByte(c + 'a' - 'A')
				kept = j + 1
			}
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		f, ok := foldRune(r)
		if !ok {
			j += size
			continue
		}
		flush(j)
		at := b.Len()
		b.WriteString(f)
		segs = append(segs, foldSeg{at: at, end: b.Len(), from: j, to: j + size})
		j += size
		kept = j
	}
	if kept == 0 {
		return folded{text: s}
	}
	flush(len(s))
	return folded{text: b.String(), segs: segs}
}

// orig maps an index of f.text to s: an index inside a changed rune's
// reading maps to that rune's start.
func (f folded) orig(i int) int {
	k := sort.Search(len(f.segs), func(k int) bool { return f.segs[k].at > i }) - 1
	if k < 0 {
		return i
	}
	sg := f.segs[k]
	if i < sg.end {
		return sg.from
	}
	return sg.to + (i - sg.end)
}

// origEnd maps an end index of f.text to s: one inside a changed rune's
// reading maps to that rune's end.
func (f folded) origEnd(i int) int {
	if i == 0 {
		return f.orig(0)
	}
	k := sort.Search(len(f.segs), func(k int) bool { return f.segs[k].at > i-1 }) - 1
	if k >= 0 && i-1 < f.segs[k].end {
		return f.segs[k].to
	}
	return f.orig(i-1) + 1
}

// ReplaceTagName replaces every spelling of the tag name name (lower-case
// ASCII, such as "mneme-context") in s, read as StripTags reads tags (in
// any letter case, look-alikes folded, any dash for its hyphen, invisible
// runes anywhere in it), by repl: the text around is kept as written. It
// runs in linear time.
func ReplaceTagName(s, name, repl string) string {
	if name == "" {
		return s
	}
	f := foldText(s)
	i := strings.Index(f.text, name)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0 // s[last:] is not written yet
	for i >= 0 {
		from, to := f.orig(i), f.origEnd(i+len(name))
		b.WriteString(s[last:max(from, last)])
		b.WriteString(repl)
		last = max(to, last)
		pos := i + len(name)
		j := strings.Index(f.text[pos:], name)
		if j < 0 {
			break
		}
		i = pos + j
	}
	b.WriteString(s[last:])
	return b.String()
}
