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

	"github.com/mneme-dev/mneme/internal/fullexport"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/pgmigrate"
)

// `mneme migrate --to postgres://…` copies a SQLite memory into a
// PostgreSQL one (team mode). The copy itself is models/pgmigrate's; this
// file is the command: its flags, the stores' opening, the progress bar
// and the printed summary.

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
		return usagef("--to %s is not a PostgreSQL URL: it must begin postgres:// or postgresql://", models.RedactURL(to))
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
	fmt.Fprintf(stdout, "Copying %s (%s) into %s\n", from, fullexport.CountsText(total), models.RedactURL(to))
	start := time.Now()
	var progress func(pgmigrate.Result)
	var bar *progressbar.ProgressBar
	if isTTY(stderr) {
		bar = progressbar.NewOptions64(total.Sessions,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("migrating sessions"),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		progress = func(r pgmigrate.Result) {
			c := r.Rows.New
			bar.Describe(fmt.Sprintf("migrating: %s, %s new", plural(c.Prompts, "prompt"), plural(c.Observations, "observation")))
			bar.Add(1)
		}
	}
	r, err := pgmigrate.Copy(ctx, src, dst, progress)
	if bar != nil {
		bar.Finish()
	}
	printMigrate(stdout, r, time.Since(start))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("migrate interrupted after %s; run it again to complete it (nothing is copied twice)", plural(r.Sessions, "session"))
		}
		return fmt.Errorf("migrate stopped after %s: %w (run it again once fixed: nothing is copied twice)", plural(r.Sessions, "session"), err)
	}
	return nil
}

// printMigrate writes the migration's summary.
func printMigrate(w io.Writer, r pgmigrate.Result, took time.Duration) {
	n := r.Counts
	newRows := n.Rows.New.Sessions + n.Rows.New.Prompts + n.Rows.New.Observations + n.Rows.New.Summaries + n.Rows.New.Memories
	allRows := newRows + n.Rows.Existing.Sessions + n.Rows.Existing.Prompts + n.Rows.Existing.Observations + n.Rows.Existing.Summaries + n.Rows.Existing.Memories
	rate := float64(allRows) / max(took.Seconds(), 1e-3)
	fmt.Fprintf(w, "migrated %s in %s (%.0f rows/s)\n", plural(r.Sessions, "session"), took.Round(time.Millisecond), rate)
	fmt.Fprintf(w, "  new: %s, %s, %s, %s\n",
		fullexport.CountsText(n.Rows.New), plural(n.FileStates[0], "file state"), plural(n.Private[0], "private prompt"), plural(n.Ledger[0], "ledger entry"))
	fmt.Fprintf(w, "  already there: %s, %s, %s, %s\n",
		fullexport.CountsText(n.Rows.Existing), plural(n.FileStates[1], "file state"), plural(n.Private[1], "private prompt"), plural(n.Ledger[1], "ledger entry"))
	settings := fmt.Sprintf("  settings: %d copied, %d already the same", r.SettingsNew, r.SettingsSame)
	if len(r.KeptSettings) > 0 {
		settings += fmt.Sprintf("; skipped %s: the target has its own (edit them on its settings page)", strings.Join(r.KeptSettings, ", "))
	}
	fmt.Fprintln(w, settings)
	if newRows == 0 && n.FileStates[0]+n.Private[0]+n.Ledger[0] == 0 && r.SettingsNew == 0 {
		fmt.Fprintln(w, "  nothing new: the target held all of it already")
	}
	fmt.Fprintln(w, "  not copied: events (the live stream's log: the target keeps its own), pending summary jobs, the API key")
}
