package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/models"
)

// backupCmd is `mneme backup FILE`: the running worker takes a consistent
// snapshot while it goes on ingesting (GET /api/backup, VACUUM INTO);
// the copy is written to FILE.part (0600), synced, checked with PRAGMA
// integrity_check here too, then renamed to FILE.
func backupCmd(g *globals, code *int) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Save a consistent copy of the database while the worker runs (checked, mode 0600)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dst := args[0]
			if _, err := os.Stat(dst); err == nil {
				return usagef("%s exists: choose a new file name", dst)
			}
			start := time.Now()
			part := dst + ".part"
			os.Remove(part)
			if _, _, err := fetchTo(g, "/api/backup", part, io.Discard, cmd.ErrOrStderr()); err != nil {
				os.Remove(part)
				return err
			}
			fc, err := models.CheckFile(part)
			if err != nil {
				os.Remove(part)
				return fmt.Errorf("the copy fails its check, nothing kept: %w", err)
			}
			if err := os.Rename(part, dst); err != nil {
				return err
			}
			printCheck(cmd.OutOrStdout(), "Backed up to "+dst, fc, time.Since(start))
			return nil
		},
	}
}

// restoreCmd is `mneme restore FILE`. The worker must not run: restore
// refuses while one answers on the socket, and holds the socket itself
// while it works, so a worker the hooks start meanwhile exits at once
// (hooks spool their events until the next start).
func restoreCmd(g *globals, code *int) *cobra.Command {
	return &cobra.Command{
		Use:   "restore FILE",
		Short: "Replace the database with a backup (the worker must be stopped; the old one is kept as mneme.db.bak)",
		Long: `Replace mneme's database with FILE, a backup from ` + "`mneme backup`" + ` (or a copy of mneme.db).
FILE is copied beside the database and checked first (integrity, and a schema version this
mneme can open: older ones are upgraded at the next start). The current database is kept as
mneme.db.bak, then the copy is renamed over it in one step. Stop the worker first
(` + "`mneme status`" + ` shows its pid; it shuts down cleanly on SIGTERM): restore refuses while
it runs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			ln, _, err := app.ListenSocket(g.dataDir)
			if errors.Is(err, app.ErrSocketInUse) {
				return fmt.Errorf("the mneme worker is running (on %s): stop it first, then restore", hookwire.SocketPath(g.dataDir))
			}
			if err != nil {
				return fmt.Errorf("cannot make sure no worker starts meanwhile: %w", err)
			}
			defer ln.Close()
			res, err := models.Restore(args[0], filepath.Join(g.dataDir, "mneme.db"))
			if err != nil {
				return err
			}
			printCheck(cmd.OutOrStdout(), "Restored "+args[0], res.FileCheck, time.Since(start))
			if res.Previous != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "The previous database is kept as %s.\n", res.Previous)
			}
			return nil
		},
	}
}

func printCheck(w io.Writer, what string, fc models.FileCheck, took time.Duration) {
	fmt.Fprintf(w, "%s: %d bytes, schema version %d, integrity %s; %s, %s, %s, %s (%s).\n",
		what, fc.Bytes, fc.SchemaVersion, fc.Integrity, plural(fc.Counts.Sessions, "session"), plural(fc.Counts.Prompts, "prompt"), plural(fc.Counts.Observations, "observation"), plural(fc.Counts.Summaries, "summary"),
		took.Round(time.Millisecond))
}
