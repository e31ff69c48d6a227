package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// The right to forget: deleting an observation, a prompt with its turn, a
// session or a project, from every table, the event log behind the live
// stream and the full-text indexes; Scrub then clears the freed bytes
// from the database file and its -wal.

// EventForgotten announces on the live stream that rows were deleted, so
// open viewers drop them. Its data is a Forgotten: ids only, never text,
// and its project is empty (every subscriber gets it, whatever its filter),
// so the event log keeps nothing of what was forgotten.
const EventForgotten = "forgotten"

// Forget targets.
const (
	ForgetObservation = "observation"
	ForgetPrompt      = "prompt"
	ForgetSession     = "session"
	ForgetProject     = "project"
	ForgetMemory      = "memory"
)

// ForgetCounts counts the rows a forget deleted, per table.
type ForgetCounts struct {
	Sessions     int64 `json:"sessions"`
	Prompts      int64 `json:"prompts"`
	Observations int64 `json:"observations"`
	Summaries    int64 `json:"summaries"`
	Memories     int64 `json:"memories"`
	SummaryJobs  int64 `json:"summaryJobs"`
	Events       int64 `json:"events"`
	// LedgerRows are token-ledger rows detached from the forgotten
	// session (see Tx.forgetRows).
	LedgerRows int64 `json:"ledgerRows"`
}

// Forgotten is the data of an EventForgotten: what the viewer must drop.
// Observations, Prompts and Summaries list the rows deleted one by one;
// Sessions lists whole sessions (every row of each is gone).
type Forgotten struct {
	Target       string  `json:"target"`
	Sessions     []int64 `json:"sessions,omitempty"`
	Prompts      []int64 `json:"prompts,omitempty"`
	Observations []int64 `json:"observations,omitempty"`
	Summaries    []int64 `json:"summaries,omitempty"`
	// Rebuilt lists the summaries written anew because they were made
	// from what was forgotten: their old version goes, and each new one
	// follows as a summary event.
	Rebuilt  []int64 `json:"rebuilt,omitempty"`
	Memories []int64 `json:"memories,omitempty"`
}

// ForgetResult is what a forget deleted.
type ForgetResult struct {
	Target  string       `json:"target"`
	Deleted ForgetCounts `json:"deleted"`
	// Rebuilt lists the summaries that were made from what was forgotten
	// and were written anew without it (see SummaryRebuilder).
	Rebuilt []int64 `json:"rebuilt,omitempty"`
	// EventID is the id of the forgotten event on the live stream.
	EventID int64 `json:"eventId"`
}

// forgetSet is the rows one forget deletes, by id.
type forgetSet struct {
	sessions, prompts, observations, summaries, memories []int64
	// turn is set when forgetting one prompt: its session and number
	// (the turn's summary jobs are keyed by them).
	turnSession int64
	turnNumber  int
	// titleSession is a session kept by the forget whose automatic title
	// is made anew after it (its first prompt or a summary may be gone).
	titleSession int64
	// quoting are the summaries kept by the forget that were made from
	// what it deletes: rebuilt with rb (or deleted when rb is nil).
	quoting []int64
	rb      *SummaryRebuilder
}

// SummaryRebuilder writes anew a summary that was made from a forgotten
// observation or prompt, from what its scope still holds: a summary
// quotes the commands, files, errors and prompts it was made from, so a
// forget that left it as it is would leave the forgotten text in it, in
// its event on the live stream and in the search index.
type SummaryRebuilder struct {
	// OutputBytes and Limit bound what is read of the scope, as
	// LoadSummaryWork's arguments.
	OutputBytes, Limit int
	// Build returns the summary written from work (the scope's remaining
	// prompts and observations) and answer (Claude's answer in the scope,
	// "" when it was the forgotten turn's), with old's id, session, kind
	// and prompt number; and the data of its event on the live stream.
	Build func(sess Session, old Summary, work *SummaryWork, answer string) (Summary, any)
}

// forgetChunk bounds the ids of one IN (…) list.
const forgetChunk = 500

// ForgetObservation deletes observation id and its event. The summaries
// made from it (its turn's, and the session's intermediate and final
// ones) are rebuilt with rb, or deleted when rb is nil. It is ErrNotFound
// when there is no such observation.
func (tx *Tx) ForgetObservation(id int64, rb *SummaryRebuilder) (ForgetResult, error) {
	var o Observation
	if err := tx.db.Select("id, session_id, prompt_number").First(&o, id).Error; err != nil {
		return ForgetResult{}, notFound(err)
	}
	set := forgetSet{observations: []int64{id}, rb: rb, titleSession: o.SessionID}
	err := tx.db.Raw(`SELECT id FROM summaries WHERE session_id = ? AND ((kind = ? AND prompt_number = ?) OR (kind <> ? AND (prompt_number = 0 OR prompt_number >= ?))) ORDER BY id`,
		o.SessionID, SummaryTurn, o.PromptNumber, SummaryTurn, o.PromptNumber).Scan(&set.quoting).Error
	if err != nil {
		return ForgetResult{}, err
	}
	return tx.forget(ForgetObservation, set)
}

// forgetOne forgets set when table has a row id, else it is ErrNotFound.
func (tx *Tx) forgetOne(target, table string, id int64, set forgetSet) (ForgetResult, error) {
	var n int64
	if err := tx.db.Raw(`SELECT COUNT(*) FROM `+table+` WHERE id = ?`, id).Row().Scan(&n); err != nil {
		return ForgetResult{}, err
	}
	if n == 0 {
		return ForgetResult{}, ErrNotFound
	}
	return tx.forget(target, set)
}

// ForgetPrompt deletes prompt id with its turn: the observations of that
// prompt number, the turn's summary and summary job, and their events.
// When it was the session's last prompt, the session's copy of Claude's
// last answer (that turn's) is cleared too, and so is the copy a final or
// intermediate summary job of that prompt number keeps. Intermediate and
// final summaries already written, which cover the whole session, are
// rebuilt with rb (they quote the prompt and its tool calls), or deleted
// when rb is nil; forgetting the session removes them.
func (tx *Tx) ForgetPrompt(id int64, rb *SummaryRebuilder) (ForgetResult, error) {
	var p Prompt
	if err := tx.db.First(&p, id).Error; err != nil {
		return ForgetResult{}, notFound(err)
	}
	set := forgetSet{prompts: []int64{id}, turnSession: p.SessionID, turnNumber: p.Number, rb: rb, titleSession: p.SessionID}
	if err := tx.db.Raw(`SELECT id FROM summaries WHERE session_id = ? AND kind <> ? AND (prompt_number = 0 OR prompt_number >= ?) ORDER BY id`, p.SessionID, SummaryTurn, p.Number).Scan(&set.quoting).Error; err != nil {
		return ForgetResult{}, err
	}
	if err := tx.db.Raw(`SELECT id FROM observations WHERE session_id = ? AND prompt_number = ? ORDER BY id`, p.SessionID, p.Number).Scan(&set.observations).Error; err != nil {
		return ForgetResult{}, err
	}
	if err := tx.db.Raw(`SELECT id FROM summaries WHERE session_id = ? AND kind = ? AND prompt_number = ? ORDER BY id`, p.SessionID, SummaryTurn, p.Number).Scan(&set.summaries).Error; err != nil {
		return ForgetResult{}, err
	}
	// The memories of the turn: from the prompt and from the answer to it.
	if err := tx.db.Raw(`SELECT id FROM memories WHERE session_id = ? AND prompt_number = ? ORDER BY id`, p.SessionID, p.Number).Scan(&set.memories).Error; err != nil {
		return ForgetResult{}, err
	}
	return tx.forget(ForgetPrompt, set)
}

// ForgetSession deletes session id and everything of it.
func (tx *Tx) ForgetSession(id int64) (ForgetResult, error) {
	return tx.forgetOne(ForgetSession, "sessions", id, forgetSet{sessions: []int64{id}})
}

// ForgetProject deletes every session of project and everything of them,
// and any other row or event recorded under that project name. It is
// ErrNotFound when nothing is.
func (tx *Tx) ForgetProject(project string) (ForgetResult, error) {
	var set forgetSet
	for _, q := range []struct {
		sql string
		dst *[]int64
	}{
		{`SELECT id FROM sessions WHERE project = ? ORDER BY id`, &set.sessions},
		{`SELECT id FROM prompts WHERE project = ? ORDER BY id`, &set.prompts},
		{`SELECT id FROM observations WHERE project = ? ORDER BY id`, &set.observations},
		{`SELECT id FROM summaries WHERE project = ? ORDER BY id`, &set.summaries},
		{`SELECT id FROM memories WHERE project = ? ORDER BY id`, &set.memories},
	} {
		if err := tx.db.Raw(q.sql, project).Scan(q.dst).Error; err != nil {
			return ForgetResult{}, err
		}
	}
	var events int64
	if err := tx.db.Raw(`SELECT COUNT(*) FROM events WHERE project = ?`, project).Row().Scan(&events); err != nil {
		return ForgetResult{}, err
	}
	if len(set.sessions)+len(set.prompts)+len(set.observations)+len(set.summaries)+len(set.memories) == 0 && events == 0 {
		return ForgetResult{}, ErrNotFound
	}
	res, err := tx.forget(ForgetProject, set)
	if err != nil {
		return res, err
	}
	r := tx.db.Exec(`DELETE FROM events WHERE project = ?`, project)
	res.Deleted.Events += r.RowsAffected
	return res, r.Error
}

// forget deletes set with SQLite's secure_delete on (freed bytes are
// zeroed), and announces it with an EventForgotten. Rows of the sessions
// in set go with them (the tables' foreign keys cascade, and their events
// are deleted by session). Token-ledger rows of the sessions are kept but
// detached (session and summary set to 0): they hold only token counts,
// which the daily budget must go on counting.
func (tx *Tx) forget(target string, set forgetSet) (ForgetResult, error) {
	res := ForgetResult{Target: target}
	off, err := tx.secureDelete()
	if err != nil {
		return res, err
	}
	defer off()
	if set.rb == nil {
		set.summaries = append(set.summaries, set.quoting...)
		set.quoting = nil
	}
	d := &res.Deleted
	// The memories of the sessions go with them, and are named one by one
	// so that those they superseded come back in force.
	for ids := set.sessions; len(ids) > 0; {
		chunk := ids[:min(len(ids), forgetChunk)]
		ids = ids[len(chunk):]
		var mems []int64
		if err := tx.db.Raw(`SELECT id FROM memories WHERE session_id IN ? ORDER BY id`, chunk).Scan(&mems).Error; err != nil {
			return res, err
		}
		set.memories = append(set.memories, mems...)
	}
	steps := []struct {
		sql string
		ids []int64
		dst *int64
	}{
		// Events first, found through events_ref by the ids of the rows
		// they announce (every event of a session names one of its rows,
		// or the session itself), while those rows are still there.
		{sql: `DELETE FROM events WHERE kind = 'observation' AND ref_id IN @ids`, ids: set.observations, dst: &d.Events},
		{sql: `DELETE FROM events WHERE kind = 'prompt' AND ref_id IN @ids`, ids: set.prompts, dst: &d.Events},
		{sql: `DELETE FROM events WHERE kind = 'summary' AND ref_id IN @ids`, ids: set.summaries, dst: &d.Events},
		{sql: `DELETE FROM events WHERE kind = 'memory' AND ref_id IN @ids`, ids: set.memories, dst: &d.Events},
		{sql: `DELETE FROM events WHERE kind = 'observation' AND ref_id IN (SELECT id FROM observations WHERE session_id IN @ids)`, ids: set.sessions, dst: &d.Events},
		{sql: `DELETE FROM events WHERE kind = 'prompt' AND ref_id IN (SELECT id FROM prompts WHERE session_id IN @ids)`, ids: set.sessions, dst: &d.Events},
		{sql: `DELETE FROM events WHERE kind = 'summary' AND ref_id IN (SELECT id FROM summaries WHERE session_id IN @ids)`, ids: set.sessions, dst: &d.Events},
		{sql: `DELETE FROM events WHERE kind IN ('session_started', 'session_completed') AND ref_id IN @ids`, ids: set.sessions, dst: &d.Events},
		{sql: `UPDATE token_ledger SET session_id = 0, summary_id = 0 WHERE summary_id IN @ids`, ids: set.summaries, dst: &d.LedgerRows},
		{sql: `UPDATE token_ledger SET session_id = 0, summary_id = 0 WHERE session_id IN @ids`, ids: set.sessions, dst: &d.LedgerRows},
		{sql: `DELETE FROM observations WHERE id IN @ids`, ids: set.observations, dst: &d.Observations},
		{sql: `DELETE FROM observations WHERE session_id IN @ids`, ids: set.sessions, dst: &d.Observations},
		{sql: `DELETE FROM summaries WHERE id IN @ids`, ids: set.summaries, dst: &d.Summaries},
		{sql: `DELETE FROM memories WHERE id IN @ids`, ids: set.memories, dst: &d.Memories},
		{sql: `UPDATE memories SET state = 'current', superseded_by = 0 WHERE superseded_by IN @ids AND state = 'superseded'`, ids: set.memories, dst: new(int64)},
		{sql: `DELETE FROM summaries WHERE session_id IN @ids`, ids: set.sessions, dst: &d.Summaries},
		{sql: `DELETE FROM prompts WHERE id IN @ids`, ids: set.prompts, dst: &d.Prompts},
		{sql: `DELETE FROM prompts WHERE session_id IN @ids`, ids: set.sessions, dst: &d.Prompts},
		{sql: `DELETE FROM summary_jobs WHERE session_id IN @ids`, ids: set.sessions, dst: &d.SummaryJobs},
		{sql: `DELETE FROM private_prompts WHERE session_id IN @ids`, ids: set.sessions, dst: new(int64)},
		{sql: `DELETE FROM sessions WHERE id IN @ids`, ids: set.sessions, dst: &d.Sessions},
	}
	if err := tx.entomb(set.sessions); err != nil {
		return res, err
	}
	for _, st := range steps {
		for ids := st.ids; len(ids) > 0; {
			chunk := ids[:min(len(ids), forgetChunk)]
			ids = ids[len(chunk):]
			r := tx.db.Exec(st.sql, sql.Named("ids", chunk))
			if r.Error != nil {
				return res, r.Error
			}
			*st.dst += r.RowsAffected
		}
	}
	if set.turnSession != 0 {
		r := tx.db.Exec(`DELETE FROM summary_jobs WHERE session_id = ? AND kind = ? AND prompt_number = ?`, set.turnSession, SummaryTurn, set.turnNumber)
		if r.Error != nil {
			return res, r.Error
		}
		d.SummaryJobs += r.RowsAffected
		// The session keeps a copy of its last answer, that turn's when it
		// was the last, and so do the session's other jobs queued then.
		if err := tx.db.Exec(`UPDATE sessions SET last_assistant_message = '' WHERE id = ? AND prompt_counter = ?`, set.turnSession, set.turnNumber).Error; err != nil {
			return res, err
		}
		if err := tx.db.Exec(`UPDATE summary_jobs SET assistant_message = '' WHERE session_id = ? AND prompt_number = ?`, set.turnSession, set.turnNumber).Error; err != nil {
			return res, err
		}
	}
	rebuilt, err := tx.rebuildSummaries(set)
	if err != nil {
		return res, err
	}
	if set.titleSession != 0 {
		if err := tx.refreshTitle(set.titleSession); err != nil {
			return res, err
		}
	}
	data := Forgotten{Target: target, Sessions: set.sessions}
	if target != ForgetProject && target != ForgetSession {
		data.Prompts, data.Observations, data.Summaries = set.prompts, set.observations, set.summaries
	}
	for _, r := range rebuilt {
		data.Rebuilt = append(data.Rebuilt, r.sum.ID)
	}
	res.Rebuilt = data.Rebuilt
	data.Memories = set.memories
	ev, err := tx.AppendEvent(EventForgotten, "", 0, 0, data)
	if err != nil {
		return res, err
	}
	res.EventID = ev.ID
	// The new versions after the forgotten event, which drops the old
	// ones from open viewers.
	for _, r := range rebuilt {
		if _, err := tx.AppendEventAt(r.sum.CreatedAt, EventSummary, r.sum.Project, r.sum.SessionID, r.sum.ID, r.event); err != nil {
			return res, err
		}
	}
	return res, nil
}

// rebuiltSummary is a summary written anew and the data of its event.
type rebuiltSummary struct {
	sum   Summary
	event any
}

// rebuildSummaries writes anew the summaries of set.quoting with set.rb,
// once the forgotten rows are gone, and deletes their old events: the
// caller appends the new ones. The row keeps its id; the full-text index
// follows it (SQLite's update trigger, PostgreSQL's generated column).
func (tx *Tx) rebuildSummaries(set forgetSet) ([]rebuiltSummary, error) {
	var out []rebuiltSummary
	for _, id := range set.quoting {
		var old Summary
		if err := tx.db.First(&old, id).Error; err != nil {
			return nil, err
		}
		var sess Session
		if err := tx.db.First(&sess, old.SessionID).Error; err != nil {
			return nil, err
		}
		turn, upTo := 0, 0
		if old.Kind == SummaryTurn {
			turn = old.PromptNumber
		} else {
			upTo = old.PromptNumber
		}
		work, err := loadSummaryWork(tx.db, old.SessionID, turn, upTo, set.rb.OutputBytes, set.rb.Limit)
		if err != nil {
			return nil, err
		}
		// Claude's answer in the scope is its last turn's: gone with it
		// when that turn is the forgotten prompt's.
		answer := old.LastAssistantMessage
		if set.turnSession != 0 && (len(work.Prompts) == 0 || work.Prompts[len(work.Prompts)-1].Number < set.turnNumber) {
			answer = ""
		}
		sum, event := set.rb.Build(sess, old, work, answer)
		sum.ID, sum.SessionID, sum.Kind, sum.PromptNumber, sum.CreatedAt = old.ID, old.SessionID, old.Kind, old.PromptNumber, old.CreatedAt
		err = tx.db.Model(&Summary{}).Where("id = ?", id).Updates(map[string]any{
			"request": sum.Request, "investigated": sum.Investigated, "learned": sum.Learned, "completed": sum.Completed,
			"next_steps": sum.NextSteps, "last_user_message": sum.LastUserMessage, "last_assistant_message": sum.LastAssistantMessage,
			"generator": sum.Generator, "note": sum.Note, "input_tokens": sum.InputTokens, "output_tokens": sum.OutputTokens, "cost_usd": sum.CostUSD,
		}).Error
		if err != nil {
			return nil, err
		}
		if err := tx.db.Exec(`DELETE FROM events WHERE kind = 'summary' AND ref_id = ?`, id).Error; err != nil {
			return nil, err
		}
		out = append(out, rebuiltSummary{sum: sum, event: event})
	}
	return out, nil
}

// ScrubResult says what Scrub did.
type ScrubResult struct {
	// TookMS is how long the scrub took, in milliseconds.
	TookMS int64 `json:"tookMs"`
	// Vacuumed tells that the database was rebuilt (see Scrub).
	Vacuumed bool `json:"vacuumed"`
}

// Scrub removes the traces deleted rows leave in the files, after a
// forget or a retention run:
//
//   - the full-text indexes are merged into one segment each (FTS5
//     'optimize'), so the tokens of deleted rows do not stay in old
//     segments (a delete only adds a tombstone);
//   - with rebuild, the database is rebuilt (VACUUM): secure_delete
//     zeroes what a delete frees, but an earlier update of a row (a
//     session's prompt counter, its last answer, a summary job's status)
//     left the old copy in the page's free space, which only a rebuild
//     clears. Observations are written once, so retention, which deletes
//     only those, scrubs without it;
//   - the -wal file, which holds the old pages until it is reused, is
//     checkpointed into the database and truncated to zero bytes;
//   - a loaded vector index is loaded again from the table, and the file
//     that held its vectors zeroed before it is closed (reloadVectors).
//
// The optimize goes through the writer, so ingest queues behind it. VACUUM
// cannot run in a transaction: it runs beside the writer, whose commits
// wait for it up to the busy timeout (5 s), then fail with 503, and the
// hooks spool their events until it is done. Both cost time in proportion
// to the database (README: about 9 s for 250 MB), and VACUUM needs free
// disk space for a second copy (in the -wal) while it runs.
func (s *Store) Scrub(ctx context.Context, rebuild bool) (ScrubResult, error) {
	start := time.Now()
	var res ScrubResult
	if err := s.reloadVectors(ctx); err != nil {
		return res, fmt.Errorf("vector index: %w", err)
	}
	for _, table := range []string{"prompts", "observations", "summaries", "memories"} {
		if err := s.Writer.Do(ctx, func(tx *Tx) error { return tx.optimizeFTS(table) }); err != nil {
			return res, err
		}
	}
	if s.Postgres() {
		err := s.vacuumPostgres(ctx, rebuild)
		res.Vacuumed = rebuild && err == nil
		res.TookMS = time.Since(start).Milliseconds()
		return res, err
	}
	if rebuild {
		if err := s.db.WithContext(ctx).Exec(`VACUUM`).Error; err != nil {
			return res, fmt.Errorf("vacuum: %w", err)
		}
		res.Vacuumed = true
	}
	err := s.truncateWAL(ctx)
	res.TookMS = time.Since(start).Milliseconds()
	return res, err
}

// vacuumPostgres is Scrub on PostgreSQL: a plain VACUUM of the data
// tables makes the space of deleted rows reusable; with rebuild, VACUUM
// FULL writes each table and its indexes anew, so the old row versions
// leave the table files. PostgreSQL's own WAL, its archive and any
// backup still hold them until they are recycled: that is the database
// operator's to manage, and the README says so.
//
// Both ANALYZE too: the planner's statistics keep a table's most common
// words, and mneme_common their hashes, which a forgotten project's
// words would otherwise stay among until autovacuum's next ANALYZE. Then
// mneme_common is copied again from the new statistics.
func (s *Store) vacuumPostgres(ctx context.Context, rebuild bool) error {
	cmd := "VACUUM ANALYZE"
	if rebuild {
		cmd = "VACUUM (FULL, ANALYZE)"
	}
	if err := s.vacuum(ctx, cmd); err != nil {
		return err
	}
	return s.db.WithContext(ctx).Exec(`SELECT mneme_refresh_common()`).Error
}

// Analyze refreshes the planner's statistics and the visibility map after a
// bulk load (mneme migrate, a large import): VACUUM ANALYZE of the data
// tables on PostgreSQL, whose searches otherwise read the heap for every
// matching row until autovacuum comes by (3 to 5 times slower, measured).
// SQLite needs nothing: a no-op.
func (s *Store) Analyze(ctx context.Context) error {
	if !s.Postgres() {
		return nil
	}
	return s.vacuum(ctx, "VACUUM ANALYZE")
}

// vacuum runs cmd (a VACUUM variant, PostgreSQL) on each data table: one
// at a time, so each holds its lock only for its own table.
func (s *Store) vacuum(ctx context.Context, cmd string) error {
	for _, t := range []string{"sessions", "prompts", "observations", "summaries", "events", "summary_jobs", "file_states", "private_prompts", "memories"} {
		if err := s.db.WithContext(ctx).Exec(cmd + " " + t).Error; err != nil {
			return fmt.Errorf("%s %s: %w", strings.ToLower(cmd), t, err)
		}
	}
	return nil
}

// truncateWAL checkpoints the -wal file into the database and truncates
// it to zero bytes, retrying while readers keep an old snapshot (the
// checkpoint then reports busy and leaves frames in the file).
func (s *Store) truncateWAL(ctx context.Context) error {
	for {
		var busy, logFrames, done int
		if err := s.db.WithContext(ctx).Raw(`PRAGMA wal_checkpoint(TRUNCATE)`).Row().Scan(&busy, &logFrames, &done); err != nil {
			return err
		}
		if busy == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ForgetPreview is what a forget would delete, for the confirmation page.
type ForgetPreview struct {
	Target  string `json:"target"`
	ID      int64  `json:"id,omitempty"` // the observation, prompt or session
	Project string `json:"project"`      // the project (of the row, or the one forgotten)
	// SessionID is the session the row belongs to (0 for a project).
	SessionID int64 `json:"sessionId,omitempty"`
	// Label is a short description of the row: an observation's title,
	// a prompt's text, a session's start.
	Label string `json:"label"`
	// Title and StartedAt name a session as people know it (its title and
	// when it started), for a session's forget.
	Title     string       `json:"title,omitempty"`
	StartedAt *time.Time   `json:"startedAt,omitempty"`
	Counts    ForgetCounts `json:"counts"`
}

// PreviewForget counts what forgetting target would delete. An unknown id
// or project is ErrNotFound.
func (s *Store) PreviewForget(ctx context.Context, target string, id int64, project string) (*ForgetPreview, error) {
	db := s.db.WithContext(ctx)
	p := &ForgetPreview{Target: target, ID: id, Project: project}
	c := &p.Counts
	count := func(dst *int64, q string, args ...any) error { return db.Raw(q, args...).Row().Scan(dst) }
	var err error
	switch target {
	case ForgetObservation:
		var o Observation
		if err := db.Select("id, session_id, project, title").First(&o, id).Error; err != nil {
			return nil, notFound(err)
		}
		p.SessionID, p.Project, p.Label, c.Observations = o.SessionID, o.Project, o.Title, 1
	case ForgetPrompt:
		var pr Prompt
		if err := db.First(&pr, id).Error; err != nil {
			return nil, notFound(err)
		}
		p.SessionID, p.Project, p.Label, c.Prompts = pr.SessionID, pr.Project, pr.Text, 1
		if err = count(&c.Observations, `SELECT COUNT(*) FROM observations WHERE session_id = ? AND prompt_number = ?`, pr.SessionID, pr.Number); err == nil {
			err = count(&c.Summaries, `SELECT COUNT(*) FROM summaries WHERE session_id = ? AND kind = ? AND prompt_number = ?`, pr.SessionID, SummaryTurn, pr.Number)
		}
		if err == nil {
			err = count(&c.Memories, `SELECT COUNT(*) FROM memories WHERE session_id = ? AND prompt_number = ?`, pr.SessionID, pr.Number)
		}
	case ForgetSession:
		sess, err := s.SessionByID(ctx, id)
		if err != nil {
			return nil, err
		}
		p.SessionID, p.Project, p.Label, c.Sessions = sess.ID, sess.Project, "started "+sess.StartedAt.Format(time.DateTime)+" UTC", 1
		p.Title, p.StartedAt = sess.Title, &sess.StartedAt
		if sess.Title != "" {
			p.Label = "“" + sess.Title + "”, " + p.Label
		}
		err = s.countForget(ctx, c, "session_id = ?", id)
		if err != nil {
			return nil, err
		}
	case ForgetMemory:
		m, err := s.MemoryByID(ctx, id)
		if err != nil {
			return nil, err
		}
		p.SessionID, p.Project, p.Label, c.Memories = m.SessionID, m.Project, m.Text, 1
	case ForgetProject:
		if err = count(&c.Sessions, `SELECT COUNT(*) FROM sessions WHERE project = ?`, project); err == nil {
			err = s.countForget(ctx, c, "project = ?", project)
		}
		if err == nil && c.Sessions+c.Prompts+c.Observations+c.Summaries+c.Memories == 0 {
			return nil, ErrNotFound
		}
		p.Label = project
	default:
		return nil, fmt.Errorf("%w: nothing to forget of kind %q", ErrInvalid, target)
	}
	return p, err
}

// countForget counts the prompts, observations, summaries and memories
// where cond.
func (s *Store) countForget(ctx context.Context, c *ForgetCounts, cond string, arg any) error {
	return s.db.WithContext(ctx).Raw(`SELECT
		(SELECT COUNT(*) FROM prompts WHERE `+cond+`),
		(SELECT COUNT(*) FROM observations WHERE `+cond+`),
		(SELECT COUNT(*) FROM summaries WHERE `+cond+`),
		(SELECT COUNT(*) FROM memories WHERE `+cond+`)`, arg, arg, arg, arg).Row().Scan(&c.Prompts, &c.Observations, &c.Summaries, &c.Memories)
}

// JobExists reports whether summary job id is still queued: a forget
// deletes the jobs of what it forgets, and a summary written for such a
// job afterwards would bring the forgotten text back.
func (tx *Tx) JobExists(id int64) (bool, error) {
	var n int64
	err := tx.db.Raw(`SELECT COUNT(*) FROM summary_jobs WHERE id = ?`, id).Row().Scan(&n)
	return n > 0, err
}
