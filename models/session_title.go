package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Session titles (Session.Title). An automatic title is made from what
// the session holds, best first: the request of its latest session
// summary (final or intermediate), the request of its first prompt's
// turn summary, its first prompt. A title the user typed (TitleEdited)
// is never replaced by an automatic one; clearing it brings the
// automatic one back.

// TitleMax is the most characters a session title may have: a longer
// edited title is refused, an automatic one is cut well before.
const TitleMax = 120

// autoTitleLen is about where an automatic title is cut.
const autoTitleLen = 80

// titleFrom makes a session title from a text: its first line that is
// not blank, with runs of white space made one space and Markdown
// heading or list marks dropped; past autoTitleLen characters it is cut at
// its first sentence's end (without its full stop) when that is not too
// short, else at a word boundary with "…".
func titleFrom(text string) string {
	line := ""
	for l := range strings.Lines(text) {
		l = strings.TrimLeft(strings.TrimSpace(l), "#>*-• \t")
		if l != "" {
			line = strings.Join(strings.Fields(l), " ")
			break
		}
	}
	if utf8.RuneCountInString(line) <= autoTitleLen {
		return line
	}
	r := []rune(line)
	head := string(r[:autoTitleLen])
	for _, end := range []string{". ", "? ", "! ", "; ", ": "} {
		if i := strings.Index(head, end); i >= 24 {
			return strings.TrimRight(head[:i+1], ".;:") // a title ends without a full stop
		}
	}
	cut := strings.LastIndexFunc(head, unicode.IsSpace)
	if cut < autoTitleLen/2 {
		cut = len(head)
	}
	return strings.TrimRight(head[:cut], " ,;:-") + "…"
}

// titleSourcesSQL reads, for each session whose title is automatic, what
// its title is made from (see autoTitle).
const titleSourcesSQL = `SELECT s.id,
	COALESCE((SELECT m.request FROM summaries m WHERE m.session_id = s.id AND m.kind <> 'turn' AND m.request <> ''
		ORDER BY m.id DESC LIMIT 1), ''),
	COALESCE((SELECT m.request FROM summaries m WHERE m.session_id = s.id AND m.kind = 'turn' AND m.request <> ''
		AND m.prompt_number = (SELECT MIN(p.number) FROM prompts p WHERE p.session_id = s.id) ORDER BY m.id DESC LIMIT 1), ''),
	COALESCE((SELECT p.text FROM prompts p WHERE p.session_id = s.id ORDER BY p.number LIMIT 1), '')
	FROM sessions s WHERE NOT s.title_edited`

// autoTitle is the first of the title sources that makes a title.
func autoTitle(sources ...string) string {
	for _, s := range sources {
		if t := titleFrom(s); t != "" {
			return t
		}
	}
	return ""
}

// refreshTitle makes session id's automatic title anew from what it holds
// now; an edited title stays.
func (tx *Tx) refreshTitle(id int64) error {
	var sid int64
	var session, turn, prompt string
	err := tx.db.Raw(titleSourcesSQL+` AND s.id = ?`, id).Row().Scan(&sid, &session, &turn, &prompt)
	if err == sql.ErrNoRows {
		return nil // gone, or titled by the user
	}
	if err != nil {
		return err
	}
	return tx.db.Exec(`UPDATE sessions SET title = ? WHERE id = ? AND NOT title_edited`, autoTitle(session, turn, prompt), id).Error
}

// backfillTitles gives every session stored before titles existed its
// automatic title (a migration follow-up).
func backfillTitles(ctx context.Context, tx *sql.Tx, postgres bool) error {
	rows, err := tx.QueryContext(ctx, titleSourcesSQL)
	if err != nil {
		return err
	}
	type titled struct {
		id    int64
		title string
	}
	var all []titled
	for rows.Next() {
		var t titled
		var session, turn, prompt string
		if err := rows.Scan(&t.id, &session, &turn, &prompt); err != nil {
			rows.Close()
			return err
		}
		if t.title = autoTitle(session, turn, prompt); t.title != "" {
			all = append(all, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	update := `UPDATE sessions SET title = ? WHERE id = ?`
	if postgres {
		update = `UPDATE sessions SET title = $1 WHERE id = $2`
	}
	for _, t := range all {
		if _, err := tx.ExecContext(ctx, update, t.title, t.id); err != nil {
			return err
		}
	}
	return nil
}

// SetSessionTitle gives session id the title a user typed, already
// cleaned by the privacy rules: one line of at most TitleMax characters
// (white space runs become one space). An empty title gives the session
// its automatic title back. It is ErrNotFound when there is no such
// session and ErrInvalid when the title is too long.
func (tx *Tx) SetSessionTitle(id int64, title string) error {
	title = strings.Join(strings.Fields(title), " ")
	if n := utf8.RuneCountInString(title); n > TitleMax {
		return fmt.Errorf("%w: a title has at most %d characters (this one has %d)", ErrInvalid, TitleMax, n)
	}
	res := tx.db.Exec(`UPDATE sessions SET title = ?, title_edited = ? WHERE id = ?`, title, title != "", id)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	if title == "" {
		return tx.refreshTitle(id)
	}
	return nil
}

// SessionTitles maps each of these sessions that has a title to it.
func (s *Store) SessionTitles(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		var rows []struct {
			ID    int64
			Title string
		}
		if err := s.db.WithContext(ctx).Raw(`SELECT id, title FROM sessions WHERE id IN ? AND title <> ''`, chunk).Scan(&rows).Error; err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.ID] = r.Title
		}
	}
	return out, nil
}

// SessionDigest is what the session list says of a session besides its
// counts: the first line of what its latest summary says got done, and
// the files it changed (edits and writes), most edited first.
type SessionDigest struct {
	Outcome string
	Files   []string
	// MoreFiles counts the changed files past Files.
	MoreFiles int
}

// SessionDigests reads the digest of each of these sessions, with at
// most maxFiles files each.
func (s *Store) SessionDigests(ctx context.Context, ids []int64, maxFiles int) (map[int64]*SessionDigest, error) {
	out := make(map[int64]*SessionDigest, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	digest := func(id int64) *SessionDigest {
		if out[id] == nil {
			out[id] = &SessionDigest{}
		}
		return out[id]
	}
	db := s.db.WithContext(ctx)
	// The latest summary of each session, a session summary before a turn's.
	var sums []struct {
		SessionID int64
		Completed string
		Learned   string
	}
	if err := db.Raw(`SELECT m.session_id, m.completed, m.learned FROM summaries m WHERE m.id = (
			SELECT m2.id FROM summaries m2 WHERE m2.session_id = m.session_id AND (m2.completed <> '' OR m2.learned <> '')
			ORDER BY CASE WHEN m2.kind = 'turn' THEN 0 ELSE 1 END DESC, m2.id DESC LIMIT 1)
		AND m.session_id IN ?`, ids).Scan(&sums).Error; err != nil {
		return nil, err
	}
	for _, sm := range sums {
		text := sm.Completed
		if text == "" {
			text = sm.Learned
		}
		digest(sm.SessionID).Outcome = firstLine(text)
	}
	from, isText := s.filesOf("o.files", "j")
	var files []struct {
		SessionID int64
		Path      string
		N         int
	}
	if err := db.Raw(`SELECT o.session_id, j.value AS path, COUNT(*) AS n FROM observations o, `+from+`
		WHERE o.session_id IN ? AND o.kind = ? AND o.excluded_by = '' AND `+isText+`
		GROUP BY o.session_id, j.value ORDER BY o.session_id, n DESC, j.value`, ids, KindFileChange).Scan(&files).Error; err != nil {
		return nil, err
	}
	for _, f := range files {
		d := digest(f.SessionID)
		if len(d.Files) < maxFiles {
			d.Files = append(d.Files, f.Path)
		} else {
			d.MoreFiles++
		}
	}
	return out, nil
}

// firstLine is the first line of text that is not blank, trimmed.
func firstLine(text string) string {
	for l := range strings.Lines(text) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
