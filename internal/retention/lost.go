package retention

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// lost is the words a rewrite took out of a row: the lower-case runs of
// letters and digits, of at least minLost runes, that an old value held
// and its new value does not (the words of redaction markers aside).
// What was derived from the row (a memory's key words, a tool call's
// title) loses them too: it holds them in lower case, stemmed, split at
// punctuation or cut, where the rule that found them in the row's text
// no longer matches.
type lost map[string]bool

const minLost = 3

// derivedMarker replaces a lost word in derived text.
var derivedMarker = privacy.Marker("derived")

// add adds the words old held and new does not, and returns l (made when
// nil and there are any).
func (l lost) add(old, new string) lost {
	now := map[string]bool{}
	eachWord(new, func(w string, _, _ int) { now[w] = true })
	eachWord(old, func(w string, _, _ int) {
		if !now[w] && utf8.RuneCountInString(w) >= minLost {
			if l == nil {
				l = lost{}
			}
			l[w] = true
		}
	})
	return l
}

// taints reports whether the word w (lower case) is a lost one, or a
// piece of one as derivation leaves it: cut ("ab12cd…"), stemmed
// ("polic" of "policies") or split at punctuation. A piece has four runes
// at least and a letter.
func (l lost) taints(w string) bool {
	if l[w] {
		return true
	}
	if utf8.RuneCountInString(w) < 4 || strings.IndexFunc(w, unicode.IsLetter) < 0 {
		return false
	}
	stem := strings.TrimSuffix(w, "y")
	for x := range l {
		if strings.Contains(x, w) || utf8.RuneCountInString(stem) >= 4 && strings.Contains(x, stem) {
			return true
		}
	}
	return false
}

// holds reports whether s holds a word l taints.
func (l lost) holds(s string) bool {
	found := false
	eachWord(s, func(w string, _, _ int) { found = found || l.taints(w) })
	return found
}

// scrubText replaces each word of s that l taints with derivedMarker.
func (l lost) scrubText(s string) string {
	if len(l) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	eachWord(s, func(w string, start, end int) {
		if l.taints(w) {
			b.WriteString(s[last:start])
			b.WriteString(derivedMarker)
			last = end
		}
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// scrubJSON drops from every array of the JSON document doc the elements
// that hold a word of words (a key word, an identifier, a file, a file's
// state) or that the row an event announces lost (of.dropped), and
// replaces each other string that is a derived text of that row as
// cleaned (a key of of.copies) with what it became. What it drops is
// added to took.dropped. The other members are left as they are: they
// are cleaned as they stand, and hold what the document is (a kind, a
// state, a time). doc is returned as it is when nothing changes, or when
// it is no JSON.
func scrubJSON(doc string, words lost, of, took *rowChange) string {
	if of == nil {
		of = &rowChange{}
	}
	if len(words) == 0 && of.empty() {
		return doc
	}
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return doc
	}
	s := scrubber{words: words, of: of, took: took}
	if v = s.value(v); !s.changed {
		return doc
	}
	out, err := encodeJSON(v)
	if err != nil {
		return doc
	}
	return out
}

type scrubber struct {
	words    lost
	of, took *rowChange
	changed  bool
}

func (s *scrubber) value(v any) any {
	switch t := v.(type) {
	case string:
		if c, ok := s.of.copies[t]; ok {
			s.changed = true
			return c
		}
	case []any:
		kept := t[:0]
		for _, e := range t {
			if key, drop := s.drops(e); drop {
				s.changed = true
				if s.took.dropped == nil {
					s.took.dropped = map[string]bool{}
				}
				s.took.dropped[key] = true
				continue
			}
			kept = append(kept, s.value(e))
		}
		return kept
	case map[string]any:
		for k, e := range t {
			t[k] = s.value(e)
		}
	}
	return v
}

// drops reports whether the array element e goes, and its canonical JSON.
func (s *scrubber) drops(e any) (key string, drop bool) {
	if s.words.holdsDeep(e) {
		key, _ = encodeJSON(e)
		return key, true
	}
	if len(s.of.dropped) == 0 {
		return "", false
	}
	key, err := encodeJSON(e)
	return key, err == nil && s.of.dropped[key]
}

// encodeJSON encodes v as JSON without HTML escapes, object members in
// key order (so equal values encode alike).
func encodeJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

// holdsDeep reports whether v is, or holds, a string l taints.
func (l lost) holdsDeep(v any) bool {
	switch t := v.(type) {
	case string:
		return l.holds(t)
	case []any:
		for _, e := range t {
			if l.holdsDeep(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range t {
			if l.holdsDeep(e) {
				return true
			}
		}
	}
	return false
}

// markerPrefix starts a redaction marker, "[REDACTED:name]".
var markerPrefix = strings.TrimSuffix(privacy.Marker(""), "]")

// eachWord calls fn with each word of s (a run of letters and digits), in
// lower case, with where it starts and ends in s. Redaction markers are
// skipped: their words are no text of the row.
func eachWord(s string, fn func(w string, start, end int)) {
	start := -1
	for i := 0; i < len(s); {
		if s[i] == '[' && strings.HasPrefix(s[i:], markerPrefix) {
			if start >= 0 {
				fn(strings.ToLower(s[start:i]), start, i)
				start = -1
			}
			if j := strings.IndexByte(s[i:], ']'); j >= 0 {
				i += j + 1
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			fn(strings.ToLower(s[start:i]), start, i)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(strings.ToLower(s[start:]), start, len(s))
	}
}
