package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/models"
)

// `mneme migrate --to postgres://…` copies a SQLite memory into a
// PostgreSQL one (team mode). It reuses the full export's restore
// (models.Tx.Restore): rows are written as they were stored (redacted
// and compressed at capture, so nothing is cleaned or un-redacted on the
// way), with the target's own ids, merged with what it holds. That makes
// the copy idempotent and an interrupted copy resumable: run it again.
//
// The source is opened read-only and read a session at a time, never in
// one long transaction, so a worker writing to it meanwhile is neither
// blocked nor blocking; a session it writes to during the copy is copied
// as far as it was read, and a later run adds the rest.

// migratePart bounds the observations, and their bytes, written in one
// transaction: a session is written whole up to these, and in parts past
// them, so memory stays bounded whatever a session holds.
const (
	migratePartRows  = 2000
	migratePartBytes = 32 << 20
)

func migrateCmd(g *globals, code *int) *cobra.Command {
	var to, from string
	cmd := &cobra.Command{
		Use:   "migrate --to postgres://…",
		Short: "Copy this machine's memory (SQLite) into a PostgreSQL database (team mode)",
		Long: `Copies the SQLite memory (mneme.db in the data directory, or --from) into the PostgreSQL
database --to names, creating its schema if needed: every session with its prompts, tool calls
(observations), summaries, file states and private prompt numbers, the token ledger, and the
settings the target does not have yet (the target's own settings win; the API key is not
copied: it stays in its file). Events, the live stream's log, are not copied: the target keeps
its own. Summary jobs still pending are not copied either.

Rows are copied as they are stored, already redacted: nothing is cleaned again or un-redacted.
The source is only read, a session at a time, so the worker may go on running. Each session is
written in one transaction (a very large one in parts) and merged with what the target holds
(sessions by their Claude Code id): running migrate again copies nothing twice, and completes an
interrupted run.`,
		Example: `  mneme migrate --to postgres://mneme:secret@db.example.com/mneme
  mneme migrate --from ~/old/mneme.db --to postgresql://localhost/team`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				from = filepath.Join(g.dataDir, "mneme.db")
			}
			return runMigrate(cmd.Context(), from, to, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the target PostgreSQL database: postgres://user:password@host/db (required)")
	cmd.Flags().StringVar(&from, "from", "", "the SQLite database to copy (default: mneme.db in the data directory)")
	return cmd
}

// migrateCounts is what a migration stored ([0] and New) and found
// there already ([1] and Existing).
type migrateCounts struct {
	rows                        models.RestoreCounts
	fileStates, private, ledger [2]int64
}

func (c *migrateCounts) add(o migrateCounts) {
	c.rows.Add(o.rows)
	for i := range 2 {
		c.fileStates[i] += o.fileStates[i]
		c.private[i] += o.private[i]
		c.ledger[i] += o.ledger[i]
	}
}

func runMigrate(ctx context.Context, from, to string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if to == "" {
		return errors.New("--to is required: the PostgreSQL database to copy into (postgres://user:password@host/db)")
	}
	if !models.IsPostgresURL(to) {
		return fmt.Errorf("--to %s is not a PostgreSQL URL: it must begin postgres:// or postgresql://", models.RedactURL(to))
	}
	if fi, err := os.Stat(from); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("no mneme database at %s (give its path with --from, or the data directory with --data-dir)", from)
	}
	src, err := models.OpenReadOnly(from)
	if err != nil {
		return fmt.Errorf("%w (if this mneme is newer than the database, start `mneme serve` once to upgrade it)", err)
	}
	defer src.Close()
	dst, err := models.OpenPostgres(to, filepath.Dir(from))
	if err != nil {
		return fmt.Errorf("cannot open the target database: %w", err)
	}
	defer dst.Close()

	total, err := src.Counts(ctx)
	if err != nil {
		return fmt.Errorf("read %s: %w", from, err)
	}
	fmt.Fprintf(stdout, "Copying %s (%s) into %s\n", from, countsText(total), models.RedactURL(to))
	start := time.Now()
	m := &migrator{src: src, dst: dst}
	if err := m.settings(ctx); err != nil {
		return fmt.Errorf("copy the settings: %w", err)
	}
	if err := m.loadLedger(ctx); err != nil {
		return fmt.Errorf("read the token ledger: %w", err)
	}
	var bar *progressbar.ProgressBar
	if isTTY(stderr) {
		bar = progressbar.NewOptions64(total.Sessions,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("migrating sessions"),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		m.progress = func() {
			c := m.n.rows.New
			bar.Describe(fmt.Sprintf("migrating: %s, %s new", plural(c.Prompts, "prompt"), plural(c.Observations, "observation")))
			bar.Add(1)
		}
	}
	err = m.sessions(ctx)
	if err == nil {
		err = m.looseMemories(ctx)
	}
	if err == nil {
		err = m.orphanLedger(ctx)
	}
	if err == nil && m.n.rows.New.Observations > 0 {
		// Fresh statistics for the rows just loaded: searches are slow
		// until the planner and the visibility map know them.
		err = m.dst.Analyze(ctx)
	}
	if bar != nil {
		bar.Finish()
	}
	m.print(stdout, time.Since(start))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("migrate interrupted after %s; run it again to complete it (nothing is copied twice)", plural(m.done, "session"))
		}
		return fmt.Errorf("migrate stopped after %s: %w (run it again once fixed: nothing is copied twice)", plural(m.done, "session"), err)
	}
	return nil
}

// migrator copies src into dst. Each write counts into a fresh
// migrateCounts, added to n once committed: the Writer may run an
// operation twice.
type migrator struct {
	src, dst *models.Store
	n        migrateCounts
	done     int64 // sessions copied
	progress func()
	// ledger holds the source's ledger by its session id; the entries of
	// each session copied are taken out, those left (a session since
	// forgotten, or none) are copied at the end.
	ledger map[int64][]models.LedgerEntry
	// The settings: copied, equal to the target's, and the keys of those
	// the target has its own value for.
	settingsNew, settingsSame int
	keptSettings              []string
}

// settings copies each setting the target has no value for.
func (m *migrator) settings(ctx context.Context) error {
	rows, err := m.src.SettingRows(ctx)
	if err != nil {
		return err
	}
	return m.dst.Writer.Do(ctx, func(tx *models.Tx) error {
		m.settingsNew, m.settingsSame, m.keptSettings = 0, 0, nil
		for _, st := range rows {
			stored, same, err := tx.AddSettingIfAbsent(st)
			switch {
			case err != nil:
				return err
			case stored:
				m.settingsNew++
			case same:
				m.settingsSame++
			default:
				m.keptSettings = append(m.keptSettings, st.Key)
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
			m.done++
			if m.progress != nil {
				m.progress()
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
			m.n.rows.Add(got)
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
		var got migrateCounts
		err := m.dst.Writer.Do(ctx, func(tx *models.Tx) error {
			got = migrateCounts{}
			rows := *part // Restore changes the session it is given
			var err error
			if got.rows, err = tx.Restore(&rows); err != nil {
				return err
			}
			if !first {
				got.rows.New.Sessions, got.rows.Existing.Sessions = 0, 0
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
		m.n.add(got)
		first, size = false, 0
		part = &models.RestoreRows{Session: *s}
		return nil
	}
	err = m.src.EachObservationOf(ctx, s.ID, true, 500, func(obs []models.Observation) error {
		for _, o := range obs { // obs is reused by the next batch: o is a copy
			o.Files = append([]string(nil), o.Files...)
			part.Observations = append(part.Observations, o)
			size += len(o.Input) + len(o.Output)
			if len(part.Observations) >= migratePartRows || size >= migratePartBytes {
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
func copyExtras(tx *models.Tx, sid int64, x *sessionExtras, got *migrateCounts) error {
	n, err := tx.AddPrivatePrompts(sid, x.private)
	if err != nil {
		return fmt.Errorf("private prompts: %w", err)
	}
	got.private = [2]int64{n, int64(len(x.private)) - n}
	if n, err = tx.AddFileStates(sid, x.states); err != nil {
		return err
	}
	got.fileStates = [2]int64{n, int64(len(x.states)) - n}
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

func addLedger(tx *models.Tx, e models.LedgerEntry, got *migrateCounts) error {
	ok, err := tx.AddLedgerEntryOnce(e)
	if err != nil {
		return fmt.Errorf("token ledger: %w", err)
	}
	if ok {
		got.ledger[0]++
	} else {
		got.ledger[1]++
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
	var got migrateCounts
	err := m.dst.Writer.Do(ctx, func(tx *models.Tx) error {
		got = migrateCounts{}
		for _, e := range rest {
			e.SessionID, e.SummaryID = 0, 0
			if err := addLedger(tx, e, &got); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		m.n.add(got)
	}
	return err
}

// print writes the migration's summary.
func (m *migrator) print(w io.Writer, took time.Duration) {
	n := m.n
	newRows := n.rows.New.Sessions + n.rows.New.Prompts + n.rows.New.Observations + n.rows.New.Summaries + n.rows.New.Memories
	allRows := newRows + n.rows.Existing.Sessions + n.rows.Existing.Prompts + n.rows.Existing.Observations + n.rows.Existing.Summaries + n.rows.Existing.Memories
	rate := float64(allRows) / max(took.Seconds(), 1e-3)
	fmt.Fprintf(w, "migrated %s in %s (%.0f rows/s)\n", plural(m.done, "session"), took.Round(time.Millisecond), rate)
	fmt.Fprintf(w, "  new: %s, %s, %s, %s\n",
		countsText(n.rows.New), plural(n.fileStates[0], "file state"), plural(n.private[0], "private prompt"), plural(n.ledger[0], "ledger entry"))
	fmt.Fprintf(w, "  already there: %s, %s, %s, %s\n",
		countsText(n.rows.Existing), plural(n.fileStates[1], "file state"), plural(n.private[1], "private prompt"), plural(n.ledger[1], "ledger entry"))
	settings := fmt.Sprintf("  settings: %d copied, %d already the same", m.settingsNew, m.settingsSame)
	if len(m.keptSettings) > 0 {
		settings += fmt.Sprintf("; skipped %s: the target has its own (edit them on its settings page)", strings.Join(m.keptSettings, ", "))
	}
	fmt.Fprintln(w, settings)
	if newRows == 0 && n.fileStates[0]+n.private[0]+n.ledger[0] == 0 && m.settingsNew == 0 {
		fmt.Fprintln(w, "  nothing new: the target held all of it already")
	}
	fmt.Fprintln(w, "  not copied: events (the live stream's log: the target keeps its own), pending summary jobs, the API key")
}
