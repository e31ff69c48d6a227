// Package pgmigrate copies one mneme store into another: it is the
// SQLite → PostgreSQL migrator behind `mneme migrate --to postgres://…`
// (team mode), kept beside the store it speaks to. cmd/mneme keeps only
// the command: its flags, the stores' opening, the progress bar and the
// printed summary.
//
// It reuses the full export's restore (models.Tx.Restore): rows are
// written as they were stored (redacted and compressed at capture, so
// nothing is cleaned or un-redacted on the way), with the target's own
// ids, merged with what it holds. That makes the copy idempotent and an
// interrupted copy resumable: run it again.
//
// The source is read a session at a time, never in one long transaction,
// so a worker writing to it meanwhile is neither blocked nor blocking; a
// session it writes to during the copy is copied as far as it was read,
// and a later run adds the rest.
package pgmigrate

import (
	"context"
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// PartRows and PartBytes bound the observations, and their bytes,
// written in one transaction: a session is written whole up to these, and
// in parts past them, so memory stays bounded whatever a session holds.
const (
	PartRows  = 2000
	PartBytes = 32 << 20
)

// Counts is what a migration stored ([0] and New) and found there
// already ([1] and Existing).
type Counts struct {
	Rows                        models.RestoreCounts
	FileStates, Private, Ledger [2]int64
}

func (c *Counts) add(o Counts) {
	c.Rows.Add(o.Rows)
	for i := range 2 {
		c.FileStates[i] += o.FileStates[i]
		c.Private[i] += o.Private[i]
		c.Ledger[i] += o.Ledger[i]
	}
}

// Result is what a migration did, as far as it went.
type Result struct {
	Counts
	// Sessions is the number of sessions copied.
	Sessions int64
	// SettingsNew and SettingsSame count the settings copied and those
	// equal to the target's; KeptSettings are the keys the target has
	// its own value for (not copied).
	SettingsNew, SettingsSame int
	KeptSettings              []string
}

// Copy copies src into dst: the settings dst has no value for, every
// session with its rows, private prompt numbers, file states and ledger
// entries, the memories outside sessions, the ledger entries of no
// session, then fresh planner statistics on dst. progress, if not nil,
// is called after each session with the result so far. The result is
// what was done even when an error stopped the copy.
func Copy(ctx context.Context, src, dst *models.Store, progress func(Result)) (Result, error) {
	m := &migrator{src: src, dst: dst, progress: progress}
	err := m.settings(ctx)
	if err != nil {
		return m.r, fmt.Errorf("copy the settings: %w", err)
	}
	if err := m.loadLedger(ctx); err != nil {
		return m.r, fmt.Errorf("read the token ledger: %w", err)
	}
	err = m.sessions(ctx)
	if err == nil {
		err = m.looseMemories(ctx)
	}
	if err == nil {
		err = m.orphanLedger(ctx)
	}
	if err == nil && m.r.Rows.New.Observations > 0 {
		// Fresh statistics for the rows just loaded: searches are slow
		// until the planner and the visibility map know them.
		err = m.dst.Analyze(ctx)
	}
	return m.r, err
}

// migrator copies src into dst. Each write counts into a fresh Counts,
// added to r once committed: the Writer may run an operation twice.
type migrator struct {
	src, dst *models.Store
	r        Result
	progress func(Result)
	// ledger holds the source's ledger by its session id; the entries of
	// each session copied are taken out, those left (a session since
	// forgotten, or none) are copied at the end.
	ledger map[int64][]models.LedgerEntry
}

// settings copies each setting the target has no value for.
func (m *migrator) settings(ctx context.Context) error {
	rows, err := m.src.SettingRows(ctx)
	if err != nil {
		return err
	}
	return m.dst.Writer.Do(ctx, func(tx *models.Tx) error {
		m.r.SettingsNew, m.r.SettingsSame, m.r.KeptSettings = 0, 0, nil
		for _, st := range rows {
			stored, same, err := tx.AddSettingIfAbsent(st)
			switch {
			case err != nil:
				return err
			case stored:
				m.r.SettingsNew++
			case same:
				m.r.SettingsSame++
			default:
				m.r.KeptSettings = append(m.r.KeptSettings, st.Key)
			}
		}
		return nil
	})
}

func (m *migrator) loadLedger(ctx context.Context) error {
	m.ledger = map[int64][]models.LedgerEntry{}
	var after int64
	for {
		rows, err := m.src.LedgerAfter(ctx, after, 1000)
		if err != nil {
			return err
		}
		for _, e := range rows {
			m.ledger[e.SessionID] = append(m.ledger[e.SessionID], e)
			after = e.ID
		}
		if len(rows) < 1000 {
			return nil
		}
	}
}

// sessions copies every session of the source, in id order.
func (m *migrator) sessions(ctx context.Context) error {
	var after int64
	for {
		batch, err := m.src.SessionsAfter(ctx, after, 200)
		if err != nil {
			return err
		}
		for i := range batch {
			if err := m.session(ctx, &batch[i]); err != nil {
				return fmt.Errorf("session %s: %w", batch[i].ClaudeSessionID, err)
			}
			after = batch[i].ID
			m.r.Sessions++
			if m.progress != nil {
				m.progress(m.r)
			}
		}
		if len(batch) < 200 {
			return nil
		}
	}
}

// looseMemories copies the memories stated outside any session, after
// the sessions: their supersession links may name a session's memory.
func (m *migrator) looseMemories(ctx context.Context) error {
	ms, err := m.src.MemoriesForExport(ctx, 0)
	if err != nil || len(ms) == 0 {
		return err
	}
	return m.dst.Writer.Do(ctx, func(tx *models.Tx) error {
		got, err := tx.RestoreMemories(ms)
		if err == nil {
			m.r.Rows.Add(got)
		}
		return err
	})
}

// summaryKey is what Restore merges a summary by; it maps a ledger
// entry's summary to the target's.
type summaryKey struct {
	kind   string
	prompt int
	at     time.Time
}

// sessionExtras are a session's rows Restore does not carry.
type sessionExtras struct {
	private []models.PrivatePrompt
	states  []models.FileState
	ledger  []models.LedgerEntry
	sums    map[int64]summaryKey // the source's summary ids
}

// session copies one session: its rows through Restore, with its private
// prompt numbers, file states and ledger entries in the same transaction
// (the first, when a large session is written in parts).
func (m *migrator) session(ctx context.Context, s *models.Session) error {
	prompts, err := m.src.PromptsOfSession(ctx, s.ID)
	if err != nil {
		return err
	}
	summaries, err := m.src.SummariesOfSession(ctx, s.ID)
	if err != nil {
		return err
	}
	memories, err := m.src.MemoriesForExport(ctx, s.ID)
	if err != nil {
		return err
	}
	x := sessionExtras{ledger: m.ledger[s.ID], sums: map[int64]summaryKey{}}
	if x.private, err = m.src.PrivatePromptsOfSession(ctx, s.ID); err != nil {
		return err
	}
	if x.states, err = m.src.FileStatesOfSession(ctx, s.ID); err != nil {
		return err
	}
	for _, sum := range summaries {
		x.sums[sum.ID] = summaryKey{sum.Kind, sum.PromptNumber, sum.CreatedAt}
	}

	first, size := true, 0
	part := &models.RestoreRows{Session: *s, Prompts: prompts, Summaries: summaries, Memories: memories}
	write := func() error {
		var got Counts
		err := m.dst.Writer.Do(ctx, func(tx *models.Tx) error {
			got = Counts{}
			rows := *part // Restore changes the session it is given
			var err error
			if got.Rows, err = tx.Restore(&rows); err != nil {
				return err
			}
			if !first {
				got.Rows.New.Sessions, got.Rows.Existing.Sessions = 0, 0
				return nil
			}
			sid, err := tx.SessionIDOf(s.ClaudeSessionID)
			if err != nil {
				return err
			}
			return copyExtras(tx, sid, &x, &got)
		})
		if err != nil {
			return err
		}
		m.r.add(got)
		first, size = false, 0
		part = &models.RestoreRows{Session: *s}
		return nil
	}
	err = m.src.EachObservationOf(ctx, s.ID, true, 500, func(obs []models.Observation) error {
		for _, o := range obs { // obs is reused by the next batch: o is a copy
			o.Files = append([]string(nil), o.Files...)
			part.Observations = append(part.Observations, o)
			size += len(o.Input) + len(o.Output)
			if len(part.Observations) >= PartRows || size >= PartBytes {
				if err := write(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if first || len(part.Observations) > 0 {
		if err := write(); err != nil {
			return err
		}
	}
	delete(m.ledger, s.ID)
	return nil
}

// copyExtras writes x for the target's session sid and counts it in got.
func copyExtras(tx *models.Tx, sid int64, x *sessionExtras, got *Counts) error {
	n, err := tx.AddPrivatePrompts(sid, x.private)
	if err != nil {
		return fmt.Errorf("private prompts: %w", err)
	}
	got.Private = [2]int64{n, int64(len(x.private)) - n}
	if n, err = tx.AddFileStates(sid, x.states); err != nil {
		return err
	}
	got.FileStates = [2]int64{n, int64(len(x.states)) - n}
	for _, e := range x.ledger {
		e.SessionID = sid
		if k, ok := x.sums[e.SummaryID]; ok {
			if e.SummaryID, err = tx.SummaryIDOf(sid, k.kind, k.prompt, k.at); err != nil {
				return err
			}
		} else {
			e.SummaryID = 0
		}
		if err := addLedger(tx, e, got); err != nil {
			return err
		}
	}
	return nil
}

func addLedger(tx *models.Tx, e models.LedgerEntry, got *Counts) error {
	ok, err := tx.AddLedgerEntryOnce(e)
	if err != nil {
		return fmt.Errorf("token ledger: %w", err)
	}
	if ok {
		got.Ledger[0]++
	} else {
		got.Ledger[1]++
	}
	return nil
}

// orphanLedger copies the ledger entries of no session copied (a session
// forgotten since, or none): the daily budget counts them. They belong to
// no session in the target.
func (m *migrator) orphanLedger(ctx context.Context) error {
	var rest []models.LedgerEntry
	for _, es := range m.ledger {
		rest = append(rest, es...)
	}
	if len(rest) == 0 {
		return nil
	}
	var got Counts
	err := m.dst.Writer.Do(ctx, func(tx *models.Tx) error {
		got = Counts{}
		for _, e := range rest {
			e.SessionID, e.SummaryID = 0, 0
			if err := addLedger(tx, e, &got); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		m.r.add(got)
	}
	return err
}
