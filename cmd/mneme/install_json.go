package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
)

// keyOrder is the order of the keys of every object of a JSON document,
// by the object's path ("" the top, "hooks", "hookwire.PostToolUse[]", …;
// the elements of an array share one path). install edits the user's
// settings as maps; keyOrder lets it write them back in the user's order.
type keyOrder map[string][]string

// keyOrderOf reads raw's key order; a document it cannot read gives none.
func keyOrderOf(raw []byte) keyOrder {
	order := keyOrder{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := order.read(dec, ""); err != nil {
		return keyOrder{}
	}
	return order
}

// read consumes one value at path.
func (o keyOrder) read(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for _, k := range o[path] {
			seen[k] = true
		}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			if !seen[k] {
				seen[k] = true
				o[path] = append(o[path], k)
			}
			if err := o.read(dec, path+"."+k); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := o.read(dec, path+"[]"); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

// marshalOrdered writes v as JSON indented by two spaces, the keys of each
// object in the order o knows, then the keys it does not know sorted (what
// install adds), without escaping <, > and & (the user's text stays as
// written).
func marshalOrdered(v any, o keyOrder) ([]byte, error) {
	var b bytes.Buffer
	if err := o.write(&b, v, "", ""); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (o keyOrder) write(w *bytes.Buffer, v any, path, indent string) error {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			w.WriteString("{}")
			return nil
		}
		keys := o.keys(t, path)
		w.WriteString("{\n")
		for i, k := range keys {
			w.WriteString(indent + "  ")
			if err := writeScalar(w, k); err != nil {
				return err
			}
			w.WriteString(": ")
			if err := o.write(w, t[k], path+"."+k, indent+"  "); err != nil {
				return err
			}
			if i < len(keys)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			w.WriteString("[]")
			return nil
		}
		w.WriteString("[\n")
		for i, e := range t {
			w.WriteString(indent + "  ")
			if err := o.write(w, e, path+"[]", indent+"  "); err != nil {
				return err
			}
			if i < len(t)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "]")
	default:
		return writeScalar(w, v)
	}
	return nil
}

// keys are m's keys: first those o knows for path, in its order, then
// the rest sorted.
func (o keyOrder) keys(m map[string]any, path string) []string {
	keys := make([]string, 0, len(m))
	known := map[string]bool{}
	for _, k := range o[path] {
		if _, ok := m[k]; ok && !known[k] {
			known[k] = true
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range m {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// writeScalar writes a string, number, bool or null (or any other value
// encoding/json takes, on one line).
func writeScalar(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if strings.ContainsAny(s, "\n") {
		return errors.New("a JSON value spans lines")
	}
	_, err := io.WriteString(w, s)
	return err
}
