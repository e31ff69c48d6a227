package report

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// The full export (`mneme export --all`, GET /api/export/all): every
// session with its prompts, observations, summaries and memories, as one JSON
// document written while it is read, a session at a time and the
// observations in batches, so memory stays flat whatever the database
// holds. `mneme import` reads it back. The format (README, "Full
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

// AllFormat and AllVersion identify the full export's format.
const (
	AllFormat  = "mneme-export"
	AllVersion = 1
)

// allBatch is how many sessions, or observations, are read per query.
const allBatch = 200

// ExportAll writes the full export to w and returns what it counted.
func ExportAll(ctx context.Context, store *models.Store, w io.Writer, now time.Time) (models.Counts, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var n models.Counts
	// value writes v without the newline Encode adds.
	value := func(v any) error {
		b, err := json.Marshal(v)
		if err == nil {
			_, err = bw.Write(b)
		}
		return err
	}
	bw.WriteString(`{"format":"` + AllFormat + `","version":`)
	value(AllVersion)
	bw.WriteString(`,"schemaVersion":`)
	value(models.SchemaVersion())
	bw.WriteString(`,"exportedAt":`)
	value(now.UTC())
	bw.WriteString(`,"sessions":[`)
	var after int64
	for {
		sessions, err := store.SessionsAfter(ctx, after, allBatch)
		if err != nil {
			return n, err
		}
		for i := range sessions {
			s := &sessions[i]
			after = s.ID
			if n.Sessions > 0 {
				bw.WriteString(",")
			}
			n.Sessions++
			if err := exportSession(ctx, store, bw, value, s, &n); err != nil {
				return n, err
			}
		}
		if len(sessions) < allBatch {
			break
		}
	}
	// Memories stated outside any session (MCP's remember without one,
	// the user's own) come after the sessions.
	loose, err := store.MemoriesForExport(ctx, 0)
	if err != nil {
		return n, err
	}
	n.Memories += int64(len(loose))
	bw.WriteString(`],"memories":`)
	value(nonNil(loose))
	bw.WriteString(`,"counts":`)
	value(n)
	bw.WriteString("}\n")
	return n, bw.Flush()
}

// exportSession writes one session's object of the full export.
func exportSession(ctx context.Context, store *models.Store, bw *bufio.Writer, value func(any) error, s *models.Session, n *models.Counts) error {
	prompts, err := store.PromptsOfSession(ctx, s.ID)
	if err != nil {
		return err
	}
	summaries, err := store.SummariesOfSession(ctx, s.ID)
	if err != nil {
		return err
	}
	memories, err := store.MemoriesForExport(ctx, s.ID)
	if err != nil {
		return err
	}
	n.Prompts += int64(len(prompts))
	n.Summaries += int64(len(summaries))
	n.Memories += int64(len(memories))
	bw.WriteString(`{"session":`)
	value(s)
	bw.WriteString(`,"prompts":`)
	value(nonNil(prompts))
	bw.WriteString(`,"summaries":`)
	value(nonNil(summaries))
	bw.WriteString(`,"memories":`)
	value(nonNil(memories))
	bw.WriteString(`,"observations":[`)
	first := true
	err = store.EachObservationOf(ctx, s.ID, true, allBatch, func(obs []models.Observation) error {
		for i := range obs {
			if !first {
				bw.WriteString(",")
			}
			first = false
			n.Observations++
			if err := value(&obs[i]); err != nil {
				return err
			}
		}
		return nil
	})
	bw.WriteString("]}")
	return err
}
