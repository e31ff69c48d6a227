package fullexport

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// allBatch is how many sessions, or observations, are read per query.
const allBatch = 200

// Write writes the full export of store to w, dated now, a session at a
// time, and returns what it counted.
func Write(ctx context.Context, store *models.Store, w io.Writer, now time.Time) (models.Counts, error) {
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
	bw.WriteString(`{"format":"` + Format + `","version":`)
	value(Version)
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

// nonNil is s, or an empty slice for nil: the format writes [] for none.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
