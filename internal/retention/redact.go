package retention

import (
	"context"
	"slices"

	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

// role is how Reapply rewrites a stored text column.
type role int

const (
	// plain is text, cleaned as ingest cleans it: the role of every
	// column not listed in roles.
	plain role = iota
	// jsonDoc is a JSON document, cleaned value by value so it stays
	// valid.
	jsonDoc
	// ident is an identifier, cleaned the way ingest cleans one (the
	// same raw id always gives the same stored one).
	ident
	// derivedText is text made from the row's other columns (a tool
	// call's title): cleaned, then every word the rules took out of the
	// row is taken out of it too (see lost).
	derivedText
	// derivedValue is one value made from the row's other columns (a
	// memory's subject, which memories are compared by): cleaned, then
	// emptied when it holds a word the rules took out of the row (a
	// marker in its place would make every memory so emptied one
	// subject).
	derivedValue
	// derivedJSON is a JSON document made from the row's other columns
	// (a memory's key words, identifiers, files and file states; an
	// event's payload, made from the row it announces): cleaned value by
	// value, then every array element holding a word the rules took out
	// of the row is dropped, and, in an event's payload, what its row's
	// derived columns lost goes the same way (see rowChange).
	derivedJSON
)

// memoryColumns is the role of every text column of memories. A column
// added to the table is one line here (TestReapplyKnowsEveryMemoryColumn
// fails until it is): plain for what was written or extracted, derived…
// for what is computed from the text or cut from the turn with it (in
// lower case, stemmed, split, cut: a rule written for the text no longer
// matches it there), ident for an identifier.
var memoryColumns = map[string]role{
	"project":       plain,
	"source":        plain,
	"kind":          plain,
	"state":         plain,
	"speaker":       plain,
	"speaker_ref":   plain, // a document, a person, a transcript: read as written
	"ended_by":      plain,
	"text":          plain,
	"original_text": plain,
	"evidence":      derivedText, // the span of the turn it was read from
	"subject":       derivedValue,
	"files":         derivedJSON,
	"idents":        derivedJSON,
	"terms":         derivedJSON,
	"file_states":   derivedJSON,
}

// roles are the columns of the other tables that are not plain text, by
// table.column.
var roles = map[string]role{
	"sessions.claude_session_id": ident,
	"prompts.prompt_id":          ident,
	"private_prompts.prompt_id":  ident,
	"observations.tool_use_id":   ident,
	"file_states.tool_use_id":    ident, // the observation's, which it is found by
	"observations.title":         derivedText,
	"observations.signature":     derivedText, // masked from the row's input and output
	"observations.files":         derivedJSON,
	"events.data":                derivedJSON, // made from the row it announces (eventRows)
}

func roleOf(table, col string) role {
	if table == "memories" {
		return memoryColumns[col]
	}
	return roles[table+"."+col]
}

// eventRows names the table of the row each kind of event announces (by
// its ref_id): an event's payload copies that row's derived columns, and
// loses what they lost.
var eventRows = map[string]string{
	models.EventSessionStarted:   "sessions",
	models.EventSessionCompleted: "sessions",
	models.EventPrompt:           "prompts",
	models.EventObservation:      "observations",
	models.EventSummary:          "summaries",
	models.EventMemory:           "memories",
}

// RedactResult counts what a re-redaction rewrote.
type RedactResult struct {
	Scanned int64            `json:"scanned"`
	Changed map[string]int64 `json:"changed"` // table → rows rewritten
	// Scrub is how the scrub after the rewrite went (none when nothing
	// was rewritten).
	Scrub *models.ScrubResult `json:"scrub,omitempty"`
}

// Total is the number of rows rewritten.
func (r RedactResult) Total() int64 {
	var n int64
	for _, v := range r.Changed {
		n += v
	}
	return n
}

// Reapply runs the privacy pipeline (tags and the current redaction rules)
// over every stored text column of every table, identifiers and JSON
// included, and rewrites the rows it changes, Batch rows per read and one
// writer transaction per batch. The FTS5 update triggers re-index what
// changed.
//
// What is derived from a row's text loses what the rules took out of it,
// as if the rules had been in force when it was made: the derived
// columns of the row (see roles), the events announcing the row (the
// events table is rewritten last), and the automatic title of a session
// whose prompts or summaries changed (made anew from them).
//
// Rows are rewritten with SQLite's secure_delete on, and when any was,
// the files are scrubbed afterwards as after a forget
// (models.Store.Scrub: the full-text indexes merged, the database
// rebuilt, the -wal checkpointed and truncated), so that the old text
// stays behind in no freed space, old index segment or -wal frame. The
// scrub runs to its end even when ctx is cancelled once rows were
// rewritten.
func Reapply(ctx context.Context, store *models.Store, r *privacy.Redactor) (RedactResult, error) {
	res := RedactResult{Changed: map[string]int64{}}
	tables, err := store.TextTables(ctx)
	if err != nil {
		return res, err
	}
	// The events go last, to lose what their rows lost.
	slices.SortStableFunc(tables, func(a, b models.TextTable) int {
		return boolInt(a.Name == "events") - boolInt(b.Name == "events")
	})
	gone := map[string]map[int64]*rowChange{} // table → row id → what its rewrite took out
	changed := map[string][]int64{}           // table → rows rewritten
	for _, t := range tables {
		var last int64
		for {
			ids, vals, err := store.ReadTexts(ctx, t, last, Batch)
			if err != nil {
				return res, err
			}
			if len(ids) == 0 {
				break
			}
			last = ids[len(ids)-1]
			res.Scanned += int64(len(ids))
			var refs map[int64]int64
			if t.Name == "events" {
				if refs, err = store.EventRefs(ctx, ids); err != nil {
					return res, err
				}
			}
			var ups []models.TextUpdate
			for i, id := range ids {
				var row *rowChange
				if refs != nil {
					if k := slices.Index(t.Cols, "kind"); k >= 0 {
						row = gone[eventRows[vals[i][k]]][refs[id]]
					}
				}
				set, took := rewriteRow(r, t, vals[i], row)
				if !took.empty() && t.Name != "events" {
					if gone[t.Name] == nil {
						gone[t.Name] = map[int64]*rowChange{}
					}
					gone[t.Name][id] = took
				}
				if len(set) > 0 {
					ups = append(ups, models.TextUpdate{RowID: id, Set: set})
				}
			}
			if len(ups) > 0 {
				err := store.Writer.Do(ctx, func(tx *models.Tx) error { return tx.RewriteTexts(t.Name, ups) })
				if err != nil {
					return res, err
				}
				for _, u := range ups {
					changed[t.Name] = append(changed[t.Name], u.RowID)
				}
			}
		}
	}
	// A session's automatic title is made from its prompts and summaries:
	// made anew from what they now say.
	var sessions []int64
	for _, table := range []string{"prompts", "summaries"} {
		sids, err := store.SessionsOfRows(ctx, table, changed[table])
		if err != nil {
			return res, err
		}
		sessions = append(sessions, sids...)
	}
	for len(sessions) > 0 {
		chunk := sessions[:min(len(sessions), Batch)]
		sessions = sessions[len(chunk):]
		var retitled []int64
		err := store.Writer.Do(ctx, func(tx *models.Tx) (err error) {
			retitled, err = tx.RefreshTitles(chunk)
			return err
		})
		if err != nil {
			return res, err
		}
		changed["sessions"] = append(changed["sessions"], retitled...)
	}
	for table, ids := range changed {
		slices.Sort(ids)
		res.Changed[table] = int64(len(slices.Compact(ids)))
	}
	if res.Total() == 0 {
		return res, nil
	}
	scrub, err := store.Scrub(context.WithoutCancel(ctx), true)
	res.Scrub = &scrub
	return res, err
}

// rowChange is what rewriting a row took out of its derived columns, for
// the events announcing the row, whose payloads copy them: the array
// elements dropped (as canonical JSON), and each derived text as cleaned
// and as it became.
type rowChange struct {
	dropped map[string]bool
	copies  map[string]string
}

func (c *rowChange) empty() bool { return c == nil || len(c.dropped) == 0 && len(c.copies) == 0 }

// rewriteRow cleans the text columns of one row of t (vals, in t.Cols'
// order) and returns the new values of those it changes, and what it
// took out of the row's derived columns. Those lose the words the
// cleaning took out of the row (see lost), and, for an event, what its
// row lost (of).
func rewriteRow(r *privacy.Redactor, t models.TextTable, vals []string, of *rowChange) (set map[string]any, took *rowChange) {
	var words lost
	nw := make([]string, len(vals))
	for k, col := range t.Cols {
		old := vals[k]
		switch roleOf(t.Name, col) {
		case jsonDoc, derivedJSON:
			nw[k] = r.CleanJSONText(old)
		case ident:
			nw[k] = r.CleanID(old)
		default:
			nw[k] = r.Clean(old)
		}
		if nw[k] != old {
			words = words.add(old, nw[k])
		}
	}
	took = &rowChange{}
	for k, col := range t.Cols {
		switch roleOf(t.Name, col) {
		case derivedText, derivedValue:
			s := words.scrubText(nw[k])
			if roleOf(t.Name, col) == derivedValue && s != nw[k] {
				s = ""
			}
			if s != nw[k] {
				if took.copies == nil {
					took.copies = map[string]string{}
				}
				took.copies[nw[k]] = s
				nw[k] = s
			}
		case derivedJSON:
			nw[k] = scrubJSON(nw[k], words, of, took)
		}
	}
	for k, col := range t.Cols {
		if nw[k] != vals[k] {
			if set == nil {
				set = map[string]any{}
			}
			set[col] = nw[k]
		}
	}
	return set, took
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
