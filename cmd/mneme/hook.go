package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/internal/summarize"
)

func hookCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:       "hook <event>",
		Short:     "Handle one Claude Code hook event (reads JSON on stdin, prints the answer)",
		Long:      "Claude Code runs this for each lifecycle event. It always exits 0 and prints valid JSON; diagnostics go to stderr only when MNEME_DEBUG is set.\nEvents: " + strings.Join(hooks.Slugs(), ", "),
		Args:      cobra.ExactArgs(1),
		ValidArgs: hooks.Slugs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if os.Getenv(summarize.EnvSummarizer) != "" {
				// mneme's own summarizer is running claude -p: record nothing.
				io.Copy(io.Discard, io.LimitReader(cmd.InOrStdin(), 4<<20))
				io.WriteString(cmd.OutOrStdout(), hooks.ContinueJSON+"\n")
				return nil
			}
			newHookClient(g, cmd.ErrOrStderr()).Run(args[0], cmd.InOrStdin(), cmd.OutOrStdout())
			return nil
		},
	}
}

func newHookClient(g *globals, stderr io.Writer) *hooks.Client {
	c := &hooks.Client{
		BaseURL:     g.baseURL(),
		Token:       os.Getenv("MNEME_TOKEN"),
		Spool:       hooks.Spool{Dir: filepath.Join(g.dataDir, "spool")},
		Fallback:    hooks.Spool{Dir: hooks.FallbackSpoolDir(g.dataDir)},
		StartWorker: func() error { return startWorker(g) },
	}
	if os.Getenv("MNEME_DEBUG") != "" {
		c.Debug = stderr
	}
	if os.Getenv("MNEME_NO_AUTOSTART") != "" {
		c.StartWorker = nil
	}
	return c
}

// startWorker launches `mneme serve` in the background, detached from the
// hook's session and terminal, logging to the data directory.
func startWorker(g *globals) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "--port", strconv.Itoa(g.port), "--data-dir", g.dataDir, "serve")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Env = os.Environ()
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
