package retention

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/hooks/edge"
	"github.com/mneme-dev/mneme/models"
)

// redactable lists the stored text columns the redaction rules apply to,
// per table. JSON columns are rewritten value by value so they stay valid.
var redactable = []struct {
	table string
	text  []string
	json  []string
}{
	{table: "prompts", text: []string{"text"}},
	{table: "observations", text: []string{"title", "input", "output"}, json: []string{"files"}},
	{table: "summaries", text: []string{"request", "investigated", "learned", "completed", "next_steps", "last_user_message", "last_assistant_message"}},
	{table: "sessions", text: []string{"last_assistant_message", "end_reason"}},
	{table: "events", json: []string{"data"}},
}

// RedactResult counts what a re-redaction rewrote.
type RedactResult struct {
	Scanned int64            `json:"scanned"`
	Changed map[string]int64 `json:"changed"` // table → rows rewritten
}

// Total is the number of rows rewritten.
func (r RedactResult) Total() int64 {
	var n int64
	for _, v := range r.Changed {
		n += v
	}
	return n
}

// Reapply runs the redactor over every stored text column and rewrites the
// rows it changes, Batch rows per read and one writer transaction per
// batch. The FTS5 update triggers re-index what changed.
func Reapply(ctx context.Context, store *models.Store, r *hooks.Redactor) (RedactResult, error) {
	res := RedactResult{Changed: map[string]int64{}}
	for _, t := range redactable {
		cols := append(append([]string{}, t.text...), t.json...)
		var last int64
		for {
			ids, vals, err := readBatch(ctx, store, t.table, cols, last)
			if err != nil {
				return res, err
			}
			if len(ids) == 0 {
				break
			}
			last = ids[len(ids)-1]
			res.Scanned += int64(len(ids))
			type update struct {
				id  int64
				set map[string]any
			}
			var ups []update
			for i, id := range ids {
				set := map[string]any{}
				for k, col := range cols {
					old := vals[i][k]
					var nw string
					if k < len(t.text) {
						nw = r.Redact(old)
					} else {
						nw = redactJSON(old, r)
					}
					if nw != old {
						set[col] = nw
					}
				}
				if len(set) > 0 {
					ups = append(ups, update{id, set})
				}
			}
			if len(ups) > 0 {
				err := store.Writer.Do(ctx, func(tx *gorm.DB) error {
					for _, u := range ups {
						if err := tx.Table(t.table).Where("id = ?", u.id).Updates(u.set).Error; err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return res, err
				}
				res.Changed[t.table] += int64(len(ups))
			}
		}
	}
	return res, nil
}

func readBatch(ctx context.Context, store *models.Store, table string, cols []string, after int64) ([]int64, [][]string, error) {
	rows, err := store.DB.WithContext(ctx).Raw(fmt.Sprintf(`SELECT id, %s FROM %s WHERE id > ? ORDER BY id LIMIT ?`,
		strings.Join(cols, ", "), table), after, Batch).Rows()
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var ids []int64
	var vals [][]string
	for rows.Next() {
		var id int64
		ns := make([]sql.NullString, len(cols))
		dest := []any{&id}
		for i := range ns {
			dest = append(dest, &ns[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		v := make([]string, len(cols))
		for i, n := range ns {
			v[i] = n.String
		}
		ids = append(ids, id)
		vals = append(vals, v)
	}
	return ids, vals, rows.Err()
}

// redactJSON redacts every string value of a JSON document, keeping it
// valid JSON; text that is not JSON is redacted as text.
func redactJSON(raw string, r *hooks.Redactor) string {
	if raw == "" {
		return raw
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return r.Redact(raw)
	}
	changed := false
	v = edge.WalkStrings(v, func(s string) string {
		n := r.Redact(s)
		changed = changed || n != s
		return n
	})
	if !changed {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return raw
	}
	return strings.TrimRight(buf.String(), "\n")
}
