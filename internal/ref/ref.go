// Package ref is how mneme names a row to people and to Claude, the same
// in the context block, MCP, the viewer, the CLI and exports:
//
//	#12  an observation (a tool call)
//	m6   a memory
//	s7   a session
//	prompt:3, summary:4  a prompt or a turn summary (search results)
//
// Parse reads each as printed and as people retype it: "12", "#12",
// "m6", "#m6", "M6", "s7", "observation:12", "memory 6", "session #7".
// Printed forms carry no leading "#" where a shell would read a comment:
// Shell gives the form to paste after `mneme show`.
package ref

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is what a ref names.
type Kind string

const (
	Observation Kind = "observation"
	Memory      Kind = "memory"
	Session     Kind = "session"
	Prompt      Kind = "prompt"
	Summary     Kind = "summary"
)

// Ref names one row.
type Ref struct {
	Kind Kind
	ID   int64
}

// Obs is observation id as printed: "#12".
func Obs(id int64) string { return "#" + strconv.FormatInt(id, 10) }

// Mem is memory id as printed: "m6".
func Mem(id int64) string { return "m" + strconv.FormatInt(id, 10) }

// Sess is session id as printed: "s7".
func Sess(id int64) string { return "s" + strconv.FormatInt(id, 10) }

// String is r as printed in text.
func (r Ref) String() string {
	switch r.Kind {
	case Observation:
		return Obs(r.ID)
	case Memory:
		return Mem(r.ID)
	case Session:
		return Sess(r.ID)
	}
	return string(r.Kind) + ":" + strconv.FormatInt(r.ID, 10)
}

// Shell is r as an argument a shell passes as typed: "12" for an
// observation ("#12" would start a comment in bash and zsh), else as
// printed.
func (r Ref) Shell() string {
	if r.Kind == Observation {
		return strconv.FormatInt(r.ID, 10)
	}
	return r.String()
}

// Parse reads a ref as printed or retyped. A bare number is an
// observation.
func Parse(s string) (Ref, error) {
	// Quotes a shell would have taken off ('#12', `m6`) are taken off too.
	t := strings.ToLower(strings.Trim(strings.TrimSpace(s), "'\"`"))
	kind := Observation
	for _, k := range []struct {
		word string
		kind Kind
	}{{"observation", Observation}, {"memory", Memory}, {"session", Session}, {"prompt", Prompt}, {"summary", Summary}} {
		if rest, ok := strings.CutPrefix(t, k.word); ok {
			kind, t = k.kind, strings.TrimLeft(rest, ": #")
			goto number
		}
	}
	t = strings.TrimPrefix(t, "#")
	switch {
	case strings.HasPrefix(t, "m"):
		kind, t = Memory, t[1:]
	case strings.HasPrefix(t, "s"):
		kind, t = Session, t[1:]
	}
number:
	id, err := strconv.ParseInt(t, 10, 64)
	if err != nil || id <= 0 || strings.HasPrefix(t, "+") {
		return Ref{}, fmt.Errorf("%q is not an id: give 12 or #12 for a tool call, m6 for a memory, s7 for a session, prompt:3 or summary:4", strings.TrimSpace(s))
	}
	return Ref{Kind: kind, ID: id}, nil
}
