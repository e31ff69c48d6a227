package edge

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// mapJSONStrings applies fn to every string value (not keys) in a JSON
// document. Numbers are preserved as written. Invalid JSON is treated as one
// string.
func mapJSONStrings(raw []byte, fn func(string) string) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		out, _ := json.Marshal(fn(string(raw)))
		return out
	}
	v = WalkStrings(v, fn)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return raw
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
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

// RuneStart moves i back to the start of the rune it falls in.
func RuneStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
