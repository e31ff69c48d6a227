package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Rewriting stored text in place: what "Re-apply redaction" and retention
// need from the storage.

// notData are the tables that hold no captured data: the settings (the
// rules themselves), the schema version and the API tokens (hashes and
// names an admin gave, which a rule must not rewrite); and embeddings, an
// index of the other tables like the full-text ones: vectors with their
// row's kind, model and filter columns, deleted by triggers when that
// row's text is rewritten (it has no id column to page by on PostgreSQL);
// and mneme_common (PostgreSQL), hashes of the planner's statistics;
// and session_tombstones, hashes of forgotten session ids and who
// captured them.
var notData = map[string]bool{"settings": true, "schema_version": true, "api_tokens": true, "embeddings": true, "mneme_common": true,
	"session_tombstones": true}

// TextTable is a table holding captured data, with its TEXT columns.
type TextTable struct {
	Name string
	Cols []string
}

// TextTables lists every table holding captured data with its TEXT
// columns, read from the schema, so that a column added later is covered
// too. Full-text tables (and their shadow tables) are left out: they are
// indexes of the others, kept in step by triggers.
func (s *Store) TextTables(ctx context.Context) ([]TextTable, error) {
	db := s.db.WithContext(ctx)
	if s.Postgres() {
		return s.pgTextTables(ctx)
	}
	var all []struct{ Name, SQL string }
	if err := db.Raw(`SELECT name, COALESCE(sql, '') AS sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).Scan(&all).Error; err != nil {
		return nil, err
	}
	var virtual []string
	for _, t := range all {
		if strings.HasPrefix(strings.ToUpper(t.SQL), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, t.Name)
		}
	}
	var out []TextTable
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
		if err := db.Raw(`SELECT name, type FROM pragma_table_info(?)`, t.Name).Scan(&cols).Error; err != nil {
			return nil, err
		}
		tt := TextTable{Name: t.Name}
		for _, c := range cols {
			if strings.EqualFold(c.Type, "TEXT") {
				tt.Cols = append(tt.Cols, c.Name)
			}
		}
		if len(tt.Cols) > 0 {
			out = append(out, tt)
		}
	}
	return out, nil
}

// pgTextTables is TextTables on PostgreSQL, from information_schema: the
// tables of the current schema with their text columns (the generated
// tsvector columns are not text).
func (s *Store) pgTextTables(ctx context.Context) ([]TextTable, error) {
	var cols []struct{ Table, Column string }
	if err := s.db.WithContext(ctx).Raw(`SELECT c.table_name AS "table", c.column_name AS "column"
		FROM information_schema.columns c JOIN information_schema.tables t
			ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
		WHERE c.table_schema = current_schema() AND c.data_type = 'text' AND c.is_generated = 'NEVER'
		ORDER BY c.table_name, c.ordinal_position`).Scan(&cols).Error; err != nil {
		return nil, err
	}
	var out []TextTable
	for _, c := range cols {
		if notData[c.Table] {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Name != c.Table {
			out = append(out, TextTable{Name: c.Table})
		}
		out[len(out)-1].Cols = append(out[len(out)-1].Cols, c.Column)
	}
	return out, nil
}

// ReadTexts reads up to limit rows of t after rowid after, in rowid order:
// their rowids and the values of t.Cols (NULL as "").
func (s *Store) ReadTexts(ctx context.Context, t TextTable, after int64, limit int) ([]int64, [][]string, error) {
	rows, err := s.db.WithContext(ctx).Raw(readTextsSQL(t, rowID(s.Postgres())), after, limit).Rows()
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var ids []int64
	var vals [][]string
	for rows.Next() {
		var id int64
		ns := make([]sql.NullString, len(t.Cols))
		dest := []any{&id}
		for i := range ns {
			dest = append(dest, &ns[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		v := make([]string, len(t.Cols))
		for i, n := range ns {
			v[i] = n.String
		}
		ids = append(ids, id)
		vals = append(vals, v)
	}
	return ids, vals, rows.Err()
}

// readTextsSQL selects the next rows of t after an id (an argument) in
// the order of the row id column id, with t.Cols, up to a limit (an
// argument). t's names are the schema's (TextTables), never a value.
func readTextsSQL(t TextTable, id string) string {
	return "SELECT " + id + ", " + strings.Join(t.Cols, ", ") + " FROM " + t.Name + " WHERE " + id + " > ? ORDER BY " + id + " LIMIT ?"
}

// TextUpdate is new values for some columns of one row.
type TextUpdate struct {
	RowID int64
	Set   map[string]any
}

// RewriteTexts applies ups to table with SQLite's secure_delete on, so the
// old text does not stay behind in freed space. The FTS5 update triggers
// re-index what changed.
func (tx *Tx) RewriteTexts(table string, ups []TextUpdate) error {
	off, err := tx.secureDelete()
	if err != nil {
		return err
	}
	defer off()
	for _, u := range ups {
		if err := tx.db.Table(table).Where(rowID(tx.postgres())+" = ?", u.RowID).Updates(u.Set).Error; err != nil {
			return err
		}
	}
	return nil
}

// EventRefs maps each of the events ids to the id of the row it
// announces (its ref_id; 0 for an event of no row).
func (s *Store) EventRefs(ctx context.Context, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		var rows []struct{ ID, RefID int64 }
		if err := s.db.WithContext(ctx).Raw(`SELECT id, ref_id FROM events WHERE id IN ?`, chunk).Scan(&rows).Error; err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.ID] = r.RefID
		}
	}
	return out, nil
}

// SessionsOfRows returns the sessions the rows ids of table (prompts or
// summaries) belong to, each once.
func (s *Store) SessionsOfRows(ctx context.Context, table string, ids []int64) ([]int64, error) {
	switch table {
	case "prompts", "summaries":
	default:
		return nil, fmt.Errorf("no session column known for %q", table)
	}
	seen := map[int64]bool{}
	var out []int64
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		var sids []int64
		if err := s.db.WithContext(ctx).Raw(`SELECT DISTINCT session_id FROM `+table+` WHERE id IN ?`, chunk).Scan(&sids).Error; err != nil {
			return nil, err
		}
		for _, id := range sids {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out, nil
}

// RefreshTitles makes the automatic title of each of these sessions anew
// from what it holds now (an edited title stays), with SQLite's
// secure_delete on, and returns the sessions whose title changed.
func (tx *Tx) RefreshTitles(ids []int64) ([]int64, error) {
	off, err := tx.secureDelete()
	if err != nil {
		return nil, err
	}
	defer off()
	var changed []int64
	for _, id := range ids {
		var sid int64
		var session, turn, prompt string
		err := tx.db.Raw(titleSourcesSQL+` AND s.id = ?`, id).Row().Scan(&sid, &session, &turn, &prompt)
		if err == sql.ErrNoRows {
			continue // gone, or titled by the user
		}
		if err != nil {
			return nil, err
		}
		title := autoTitle(session, turn, prompt)
		res := tx.db.Exec(`UPDATE sessions SET title = ? WHERE id = ? AND NOT title_edited AND title <> ?`, title, id, title)
		if res.Error != nil {
			return nil, res.Error
		}
		if res.RowsAffected > 0 {
			changed = append(changed, id)
		}
	}
	return changed, nil
}

// optimizeFTS merges the full-text index of table (prompts, observations
// or summaries) into one segment, with secure_delete on: text rewritten
// since does not linger in old segments. On PostgreSQL there is nothing
// to merge: the fts column is rewritten with its row, and the old row
// version is PostgreSQL's to vacuum.
func (tx *Tx) optimizeFTS(table string) error {
	optimize, ok := ftsOptimize[table]
	if !ok {
		return fmt.Errorf("no full-text index for %q", table)
	}
	if tx.postgres() {
		// A tsvector column is rewritten with its row: no segments to
		// merge. VACUUM (Scrub) reclaims the old row versions.
		return nil
	}
	off, err := tx.secureDelete()
	if err != nil {
		return err
	}
	defer off()
	return tx.db.Exec(optimize).Error
}

// ftsOptimize is, per table with a full-text index on SQLite, the
// statement that merges the index into one segment.
var ftsOptimize = map[string]string{
	"prompts":      `INSERT INTO prompts_fts(prompts_fts) VALUES ('optimize')`,
	"observations": `INSERT INTO observations_fts(observations_fts) VALUES ('optimize')`,
	"summaries":    `INSERT INTO summaries_fts(summaries_fts) VALUES ('optimize')`,
	"memories":     `INSERT INTO memories_fts(memories_fts) VALUES ('optimize')`,
}

// CountObservationsBefore counts the observations created before cut.
func (s *Store) CountObservationsBefore(ctx context.Context, cut time.Time) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM observations WHERE created_at < ?`, cut).Row().Scan(&n)
	return n, err
}

// DeleteObservationsBefore deletes up to limit observations created before
// cut, with their events on the live stream's log, with secure_delete on
// (freed bytes are zeroed; Store.Scrub clears the rest). It returns how
// many observations it deleted.
func (tx *Tx) DeleteObservationsBefore(cut time.Time, limit int) (int64, error) {
	var ids []int64
	if err := tx.db.Raw(`SELECT id FROM observations WHERE created_at < ? ORDER BY id LIMIT ?`, cut, limit).Scan(&ids).Error; err != nil || len(ids) == 0 {
		return 0, err
	}
	res, err := tx.forget("retention", forgetSet{observations: ids})
	return res.Deleted.Observations, err
}
