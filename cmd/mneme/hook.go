package main

import (
	"strings"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/hooks/hookhttp"
)

// hookCmd is `mneme hook <event>`. The work is hooks.Handle, the same code
// the small mneme-hook binary runs; this binary starts itself as the worker.
func hookCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:       "hook <event>",
		Short:     "Handle one Claude Code hook event (reads JSON on stdin, prints the answer)",
		Long:      "Claude Code runs this for each lifecycle event. It always exits 0 and prints valid JSON; diagnostics go to stderr only when MNEME_DEBUG is set.\nmneme install makes Claude Code run mneme-hook, the same command in a small binary that starts faster, when it sits beside mneme.\nEvents: " + strings.Join(hookwire.Slugs(), ", "),
		Args:      cobra.ExactArgs(1),
		ValidArgs: hookwire.Slugs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := hooks.Options{Port: g.port, DataDir: g.dataDir, ServeBinary: hooks.Self, Remote: hookhttp.Sender}
			hooks.Handle(opts, args[0], cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			return nil
		},
	}
}
