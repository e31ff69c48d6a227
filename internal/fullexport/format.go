// Package fullexport owns the full export's format (`mneme export
// --all`, GET /api/export/all, read back by `mneme import FILE.json`):
// its types, its writing (Write), its reading (Read), its validation
// (Check, CheckMemories: what capture would never store is refused) and
// its restore into a store (Restore, RestoreMemories). internal/report
// (the per-session exports), cmd/mneme (export and import) and handlers
// (the import endpoints) call it; nothing else knows the format.
//
// The full export: every session with its prompts, observations,
// summaries and memories, as one JSON document written while it is read,
// a session at a time and the observations in batches, so memory stays
// flat whatever the database holds. `mneme import` reads it back. The format (README, "Full
// export"):
//
//	{"format":"mneme-export","version":1,"schemaVersion":9,
//	 "exportedAt":"2026-11-25T08:00:00Z",
//	 "sessions":[
//	  {"session":{…models.Session…},
//	   "prompts":[{…models.Prompt…},…],
//	   "summaries":[{…models.Summary…},…],
//	   "memories":[{…models.ExportMemory: the memory, supersededByRef, supersedes…},…],
//	   "observations":[{…models.Observation, input and output whole…},…]},
//	  …],
//	 "memories":[{…models.ExportMemory: a memory stated outside any session…},…],
//	 "counts":{"sessions":…,"prompts":…,"observations":…,"summaries":…,"memories":…}}
//
// Rows are as the API gives them (the models' JSON), so ids, timestamps
// (RFC 3339, UTC) and every stored field are kept. counts comes last: a
// reader can tell a complete file (it has counts, and they match) from a
// truncated one.
package fullexport

import (
	"bufio"
	"bytes"
	"regexp"

	"github.com/mneme-dev/mneme/models"
)

// Format and Version identify the full export's format.
const (
	Format  = "mneme-export"
	Version = 1
)

// Session is one session of the full export, and one line of POST
// /api/import/export-rows, what `mneme import FILE.json` sends. A session
// too large for one request is sent in parts: each carries the session,
// and Continued marks the parts after the first (they do not count the
// session again).
type Session struct {
	Session      models.Session        `json:"session"`
	Prompts      []models.Prompt       `json:"prompts"`
	Summaries    []models.Summary      `json:"summaries"`
	Observations []models.Observation  `json:"observations"`
	Memories     []models.ExportMemory `json:"memories,omitempty"`
	Continued    bool                  `json:"continued,omitempty"`
}

// Rows are s's rows as the store restores them.
func (s *Session) Rows() models.RestoreRows {
	return models.RestoreRows{Session: s.Session, Prompts: s.Prompts, Summaries: s.Summaries, Observations: s.Observations, Memories: s.Memories}
}

// head is how a full export begins (Write writes it so).
var head = regexp.MustCompile(`^\s*\{\s*"format"\s*:\s*"` + Format + `"`)

// Peek tells whether r begins as a full export, without consuming what
// it reads.
func Peek(r *bufio.Reader) bool {
	b, _ := r.Peek(256)
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	return head.Match(b)
}
