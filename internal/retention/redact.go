package retention

import (
	"context"

	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

// Stored text columns that are not plain text: JSON documents, rewritten
// value by value so they stay valid, and identifiers, rewritten the way
// ingest cleans them (the same raw id always gives the same stored one).
var (
	jsonColumns = map[string]bool{"observations.files": true, "events.data": true}
	idColumns   = map[string]bool{
		"sessions.claude_session_id": true, "prompts.prompt_id": true,
		"private_prompts.prompt_id": true, "observations.tool_use_id": true,
	}
)

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
// changed. Rows are rewritten with SQLite's secure_delete on, and when
// any was, the files are scrubbed afterwards as after a forget
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
			var ups []models.TextUpdate
			for i, id := range ids {
				set := map[string]any{}
				for k, col := range t.Cols {
					old := vals[i][k]
					var nw string
					switch key := t.Name + "." + col; {
					case jsonColumns[key]:
						nw = r.CleanJSONText(old)
					case idColumns[key]:
						nw = r.CleanID(old)
					default:
						nw = r.Clean(old)
					}
					if nw != old {
						set[col] = nw
					}
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
				res.Changed[t.Name] += int64(len(ups))
			}
		}
	}
	if res.Total() == 0 {
		return res, nil
	}
	scrub, err := store.Scrub(context.WithoutCancel(ctx), true)
	res.Scrub = &scrub
	return res, err
}
