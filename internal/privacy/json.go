package privacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MapStrings applies fn to every string value (not keys) in a JSON
// document. Numbers are preserved as written. Invalid JSON is treated as
// one string.
func MapStrings(raw []byte, fn func(string) string) []byte {
	v, ok := decode(raw)
	if !ok {
		out, _ := json.Marshal(fn(string(raw)))
		return out
	}
	v = WalkStrings(v, fn)
	out, err := encode(v)
	if err != nil {
		return raw
	}
	return out
}

// WalkStrings applies fn to every string value (not keys) of a decoded JSON
// value, in place, and returns it.
func WalkStrings(v any, fn func(string) string) any {
	switch t := v.(type) {
	case string:
		return fn(t)
	case []any:
		for i := range t {
			t[i] = WalkStrings(t[i], fn)
		}
	case map[string]any:
		for k, e := range t {
			t[k] = WalkStrings(e, fn)
		}
	}
	return v
}

// decode reads one JSON document, numbers kept as written. It fails on
// anything but white space after the document: what follows would be
// dropped unread, or kept uncleaned.
func decode(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		return nil, false
	}
	return v, true
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// RuneStart moves i back to the start of the rune it falls in.
func RuneStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	if i <= 0 {
		return 0
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// CleanJSON cleans every string of a JSON document, keys included, as
// decoded (a secret written with JSON escapes, "\u0041KIA…" or
// "https:\/\/user:pass@…", is found in the text it stands for), and
// encodes the result again:
//   - members that hold identifiers (IsIDKey) are cleaned with CleanID;
//   - while the KeyRule rule is on, a member named like a secret
//     (SecretName) has its whole string value redacted;
//   - every other string gets Clean.
//
// It returns raw itself when nothing changes. Text that is not one JSON
// document is cleaned as one string and returned as a JSON string.
func (r *Redactor) CleanJSON(raw []byte) []byte { return r.cleanJSON(raw, 0, false) }

// CleanJSONText is CleanJSON for a JSON column read as text.
func (r *Redactor) CleanJSONText(s string) string {
	out := r.CleanJSON([]byte(s))
	return string(out)
}

// ShrinkKeep is how much of each end of a long string CleanPayload keeps
// when a payload is over its limit: the first of the edge's Shrink steps.
const ShrinkKeep = 64 << 10

// Around each cut of a long string, windowMargin more bytes are redacted
// with what is kept, and of that, what may hold part of a secret that
// crosses the end of the redacted region (the last or first windowProtect
// bytes) is not kept: a secret up to windowProtect long that crosses a cut
// is redacted whole, and the redaction of a 50 MB tool response stays
// bounded.
const (
	windowMargin  = 64 << 10
	windowProtect = 32 << 10
)

// CleanPayload is CleanJSON for the hook's payload, which may be up to
// 64 MB. When raw is over limit bytes, strings longer than two ShrinkKeep
// are cut to their first and last ShrinkKeep bytes, with the cut made
// after redaction (see windowMargin). The result may still be over limit;
// further shrinking only cuts text already clean. A string that was
// private as a whole becomes PrivateMark.
func (r *Redactor) CleanPayload(raw []byte, limit int) []byte {
	window := 0
	if len(raw) > limit {
		window = ShrinkKeep
	}
	return r.cleanJSON(raw, window, true)
}

// PrivateMark is what the hook sends for a string that tags emptied (it
// was private as a whole): an empty private block, which the worker strips
// again, but from which it knows that there was something. A prompt that
// is entirely private stores nothing and the tool calls of its turn are
// dropped; an empty prompt would be stored as one.
const PrivateMark = "<private></private>"

func (r *Redactor) cleanJSON(raw []byte, window int, edge bool) []byte {
	if len(raw) == 0 {
		return raw
	}
	if window == 0 && r.nothingToClean(raw) {
		return raw
	}
	w := &jsonWalker{r: r, window: window, edge: edge}
	v, ok := decode(raw)
	if !ok {
		out, _ := json.Marshal(w.text(string(raw)))
		return out
	}
	v = w.value(v, "")
	if !w.changed {
		return raw
	}
	out, err := encode(v)
	if err != nil {
		// Only NaN or the like, which decoding cannot produce: never hand
		// back the uncleaned input.
		out, _ = json.Marshal(w.text(string(raw)))
	}
	return out
}

// nothingToClean is the fast path of CleanJSON: raw holds no JSON escape
// that could hide a secret or a tag (a \uXXXX of a rune some literal holds,
// \/), no tag, no literal any rule needs, and no member name that could be
// a secret's. Most tool events are like that and need no decoding.
func (r *Redactor) nothingToClean(raw []byte) bool {
	if r == nil {
		return !containsTagJSON(raw)
	}
	if bytes.Contains(raw, []byte(`\/`)) || containsTagJSON(raw) || r.escapesHide(raw) {
		return false
	}
	text := newFilterText(foldForFilter(string(raw)))
	if r.mayMatch(text) {
		return false
	}
	if r.keyRule {
		for _, w := range secretNameHints {
			if text.contains(w) {
				return false
			}
		}
	}
	return true
}

// escapesHide reports whether raw has a \uXXXX escape of a rune that a
// rule's literal, a secret's name or a tag holds (see literalRunes), or one
// it cannot read.
func (r *Redactor) escapesHide(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return false
	}
	if bytes.Contains(raw, []byte(`\\u`)) {
		return true // an escape in a JSON document written inside a string
	}
	r.lits.once.Do(func() { r.lits.runes = r.literalRunes() })
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // \\, \", \n…: the next byte is not an escape's start
			continue
		}
		if i+6 > len(raw) {
			return true
		}
		var c rune
		for _, h := range raw[i+2 : i+6] {
			if !isHex(h) {
				return true
			}
			c = c<<4 | rune(unhex(h))
		}
		if r.lits.runes.has(c) || r.lits.runes.has(unicode.ToLower(c)) {
			return true
		}
		i += 5
	}
	return false
}

// secretNameHints are in every name SecretName accepts, lower-cased.
var secretNameHints = []string{"pass", "secret", "token", "key", "auth", "credential", "cookie"}

type jsonWalker struct {
	r       *Redactor
	window  int
	edge    bool // mark strings that tags emptied (PrivateMark)
	depth   int  // how many documents this one is written inside
	changed bool
}

// looksLikeJSON reports whether s may be one JSON document worth decoding
// (an object, an array or a string) of at most maxNestedBytes.
func looksLikeJSON(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || len(s) > maxNestedBytes {
		return false
	}
	switch first, last := s[0], s[len(s)-1]; {
	case first == '{' && last == '}', first == '[' && last == ']', first == '"' && last == '"':
		return true
	}
	return false
}

// cleanNested cleans s, a JSON document written inside a string, as
// CleanJSON would, and encodes it again when that changes something;
// ok is false when s is not one JSON document.
func (r *Redactor) cleanNested(s string, depth int) (string, bool) {
	v, ok := decode([]byte(s))
	if !ok {
		return "", false
	}
	w := &jsonWalker{r: r, depth: depth}
	v = w.value(v, "")
	if !w.changed {
		return r.Redact(s), true
	}
	out, err := encode(v)
	if err != nil {
		return "", false
	}
	return r.Redact(string(out)), true
}

func (w *jsonWalker) value(v any, key string) any {
	switch t := v.(type) {
	case string:
		n := w.str(t, key)
		if n != t {
			w.changed = true
		}
		return n
	case []any:
		for i := range t {
			t[i] = w.value(t[i], key) // a list under "tokens" is a list of secrets
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t[k] = w.value(t[k], k)
		}
		for _, k := range keys {
			if nk := w.r.clean(k, w.depth); nk != k {
				w.changed = true
				if _, taken := t[nk]; !taken {
					t[nk] = t[k]
				}
				delete(t, k)
			}
		}
	}
	return v
}

func (w *jsonWalker) str(s, key string) string {
	switch {
	case IsIDKey(key):
		return w.r.CleanID(s)
	case w.r != nil && w.r.keyRule && s != "" && !strings.HasPrefix(s, redactedPrefix) && SecretName(key):
		return Marker(KeyRule)
	}
	return w.text(s)
}

func (w *jsonWalker) text(s string) string {
	var c string
	if w.window > 0 {
		c = w.r.cleanWindow(s, w.window)
	} else {
		c = w.r.clean(s, w.depth)
	}
	if c == "" && w.edge && strings.TrimSpace(s) != "" {
		return PrivateMark
	}
	return c
}

// cleanWindow is Clean, then the text cut to its first and last keep
// bytes; when s is long, only the regions around what is kept are
// redacted (see windowMargin), never a cut secret.
func (r *Redactor) cleanWindow(s string, keep int) string { return r.cleanWindowOf(s, keep, 0) }

// cleanCut is cleanWindow for a string read in part (ReadPayload): head
// and tail are its ends, and the n bytes between them were not kept. The
// omission is marked between them, and counted in the marker of a cut
// that takes it out. Without a tail, the head is cleaned alone and what
// is kept of it ends windowProtect bytes before its end at least, as
// cleanWindow keeps a head.
func (r *Redactor) cleanCut(head, tail string, n int) string {
	if tail == "" {
		h := r.Clean(head)
		h = h[:RuneStart(h, max(min(cutKeep, len(h)-windowProtect), 0))]
		return h + omitted(len(head)+n-len(h))
	}
	mark := omitted(n)
	return r.cleanWindowOf(head+mark+tail, cutKeep, n-len(mark))
}

// cleanWindowOf is cleanWindow with unread bytes: extra more are counted
// in the marker of the cut.
func (r *Redactor) cleanWindowOf(s string, keep, extra int) string {
	s = StripTags(Sanitize(s))
	if len(s) <= 2*(keep+windowMargin) {
		return cut(r.Clean(s), keep, extra)
	}
	head := r.Redact(s[:RuneStart(s, keep+windowMargin)])
	tail := r.Redact(s[RuneStart(s, len(s)-keep-windowMargin):])
	head = head[:RuneStart(head, min(keep, len(head)-windowProtect))]
	tail = tail[runeAfter(tail, max(len(tail)-keep, windowProtect)):]
	return head + omitted(len(s)-len(head)-len(tail)+extra) + tail
}

// cut keeps the first and last keep bytes of s, on rune boundaries,
// counting extra more bytes in the marker of the cut.
func cut(s string, keep, extra int) string {
	if len(s) <= 2*keep {
		return s
	}
	head, tail := s[:RuneStart(s, keep)], s[runeAfter(s, len(s)-keep):]
	return head + omitted(len(s)-len(head)-len(tail)+extra) + tail
}

// omitted is the marker that stands for n bytes cut out, as the edge's
// Shrink writes it.
func omitted(n int) string { return fmt.Sprintf("\n… %d bytes omitted by mneme …\n", n) }

// runeAfter moves i forward to the start of a rune.
func runeAfter(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return min(i, len(s))
}
