package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ID is an observation or session id as a model writes it: 123, "123", or
// "#123" as the rows show it.
type ID int64

// UnmarshalJSON reads a number or a string of one, with or without "#".
func (id *ID) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		*id = ID(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s is not an id: ids look like 123 or \"#123\"", b)
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not an id: ids look like 123 or \"#123\"", s)
	}
	*id = ID(n)
	return nil
}

// inputSchema is In's JSON schema, with ids that take a number or a
// string.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[ID](): {Types: []string{"integer", "string"}, Pattern: `^#?[0-9]+$`},
	}})
	if err != nil {
		panic(err) // the input types are fixed: a test catches this
	}
	return s
}
