package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mneme-dev/mneme/internal/ref"
)

// ID is an observation or session number as a model writes it: 123,
// "123", "#123" as rows show an observation, or "s7" as rows show a
// session.
type ID int64

// UnmarshalJSON reads a number or a string of one (package ref's forms).
func (id *ID) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		*id = ID(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s is not an id: ids look like 123, \"#123\" or \"s7\"", b)
	}
	r, err := ref.Parse(s)
	if err != nil || r.Kind != ref.Observation && r.Kind != ref.Session {
		return fmt.Errorf("%q is not an id here: give an observation's #123 or a session's s7", s)
	}
	*id = ID(r.ID)
	return nil
}

// Ref is any row as rows print it: an observation (123, "#123"), a
// memory ("m6") or a session ("s7").
type Ref struct{ ref.Ref }

// UnmarshalJSON reads a number (an observation) or a string.
func (r *Ref) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		r.Ref = ref.Ref{Kind: ref.Observation, ID: n}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s is not an id: ids look like 123, \"#123\", \"m6\" or \"s7\"", b)
	}
	parsed, err := ref.Parse(s)
	if err != nil || parsed.Kind != ref.Observation && parsed.Kind != ref.Memory && parsed.Kind != ref.Session {
		return fmt.Errorf("%q is not an id: give an observation's #123, a memory's m6 or a session's s7", s)
	}
	r.Ref = parsed
	return nil
}

// inputSchema is In's JSON schema, with ids that take a number or a
// string.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[ID]():  {Types: []string{"integer", "string"}, Pattern: `^#?[sS]?[0-9]+$`},
		reflect.TypeFor[Ref](): {Types: []string{"integer", "string"}, Pattern: `^#?[msMS]?[0-9]+$`},
	}})
	if err != nil {
		panic(err) // the input types are fixed: a test catches this
	}
	return s
}
