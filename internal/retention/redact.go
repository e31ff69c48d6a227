package retention

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/hooks"
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
	// notData are the tables that hold no captured data: the settings (the
	// rules themselves, the summarizer's key) and the schema version.
	notData = map[string]bool{"settings": true, "schema_version": true}
)

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

// textTable is a table and its TEXT columns.
type textTable struct {
	name string
	cols []string
}

// textTables lists every table holding captured data with its TEXT
// columns, read from the schema, so that a column added later is covered
// too. Full-text tables (and their shadow tables) are left out: they are
// indexes of the others, kept in step by triggers.
func textTables(ctx context.Context, store *models.Store) ([]textTable, error) {
	var all []struct{ Name, SQL string }
	if err := store.DB.WithContext(ctx).Raw(`SELECT name, COALESCE(sql, '') AS sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).Scan(&all).Error; err != nil {
		return nil, err
	}
	var virtual []string
	for _, t := range all {
		if strings.HasPrefix(strings.ToUpper(t.SQL), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, t.Name)
		}
	}
	var out []textTable
next:
	for _, t := range all {
		if notData[t.Name] {
			continue
		}
		for _, v := range virtual {
			if t.Name == v || strings.HasPrefix(t.Name, v+"_") {
				continue next
			}
		}
		var cols []struct {
			Name string
			Type string
		}
		if err := store.DB.WithContext(ctx).Raw(`SELECT name, type FROM pragma_table_info(?)`, t.Name).Scan(&cols).Error; err != nil {
			return nil, err
		}
		tt := textTable{name: t.Name}
		for _, c := range cols {
			if strings.EqualFold(c.Type, "TEXT") {
				tt.cols = append(tt.cols, c.Name)
			}
		}
		if len(tt.cols) > 0 {
			out = append(out, tt)
		}
	}
	return out, nil
}

// Reapply runs the privacy pipeline (tags and the current redaction rules)
// over every stored text column of every table, identifiers and JSON
// included, and rewrites the rows it changes, Batch rows per read and one
// writer transaction per batch. The FTS5 update triggers re-index what
// changed. Rows are rewritten with SQLite's secure_delete on, and the
// full-text indexes of the tables that changed are merged afterwards
// ('optimize'), so that the old text does not stay behind in freed space
// or old index segments; the -wal file keeps old pages until SQLite
// reuses it.
func Reapply(ctx context.Context, store *models.Store, r *hooks.Redactor) (RedactResult, error) {
	res := RedactResult{Changed: map[string]int64{}}
	tables, err := textTables(ctx, store)
	if err != nil {
		return res, err
	}
	for _, t := range tables {
		var last int64
		for {
			ids, vals, err := readBatch(ctx, store, t.name, t.cols, last)
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
				for k, col := range t.cols {
					old := vals[i][k]
					var nw string
					switch key := t.name + "." + col; {
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
					ups = append(ups, update{id, set})
				}
			}
			if len(ups) > 0 {
				err := store.Writer.Do(ctx, func(tx *gorm.DB) error {
					if err := tx.Exec(`PRAGMA secure_delete = ON`).Error; err != nil {
						return err
					}
					defer tx.Exec(`PRAGMA secure_delete = OFF`)
					for _, u := range ups {
						if err := tx.Table(t.name).Where("rowid = ?", u.id).Updates(u.set).Error; err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return res, err
				}
				res.Changed[t.name] += int64(len(ups))
			}
		}
	}
	for _, fts := range []string{"prompts", "observations", "summaries"} {
		if res.Changed[fts] == 0 {
			continue
		}
		err := store.Writer.Do(ctx, func(tx *gorm.DB) error {
			if err := tx.Exec(`PRAGMA secure_delete = ON`).Error; err != nil {
				return err
			}
			defer tx.Exec(`PRAGMA secure_delete = OFF`)
			return tx.Exec(fmt.Sprintf(`INSERT INTO %[1]s_fts(%[1]s_fts) VALUES ('optimize')`, fts)).Error
		})
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

func readBatch(ctx context.Context, store *models.Store, table string, cols []string, after int64) ([]int64, [][]string, error) {
	rows, err := store.DB.WithContext(ctx).Raw(fmt.Sprintf(`SELECT rowid, %s FROM %s WHERE rowid > ? ORDER BY rowid LIMIT ?`,
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
