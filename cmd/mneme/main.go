// Command mneme is a persistent memory for Claude Code: a worker that stores
// every session, prompt and tool call, a hook command Claude Code runs for
// each lifecycle event, and the tools around them.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/spf13/cobra"
)

// DefaultPort is the worker's port unless MNEME_PORT or --port says otherwise.
const DefaultPort = hookwire.DefaultPort

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// globals are the flags every subcommand shares, and what a command that
// runs until interrupted runs under.
type globals struct {
	port    int
	dataDir string
	// signals is the context `mneme tail` follows the stream under:
	// cancelled by Ctrl-C or SIGTERM (interrupted); tests pass their own.
	signals func() (context.Context, context.CancelFunc)
}

// interrupted is a context cancelled by Ctrl-C or SIGTERM.
func interrupted() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// run executes the command line and returns the exit code, so tests can run
// subcommands in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(&globals{signals: interrupted}, args, stdin, stdout, stderr)
}

// runWith is run with g's signals; the flags fill in the rest of g.
func runWith(g *globals, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := 0
	root := newRoot(g, &code)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	usageErrors(root)
	if err := root.Execute(); err != nil {
		io.WriteString(stderr, "mneme: "+err.Error()+"\n")
		if code == exitOK {
			code = exitCode(err)
		}
	}
	return code
}

// newRoot is the mneme command with its global flags and every
// subcommand; a subcommand sets *code to its exit code.
func newRoot(g *globals, code *int) *cobra.Command {
	root := &cobra.Command{
		Use:           "mneme",
		Short:         "A persistent memory for Claude Code",
		Version:       thisBuild.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(thisBuild.Text("mneme"))
	root.PersistentFlags().IntVar(&g.port, "port", hookwire.EnvInt(hookwire.EnvPort, DefaultPort), "worker port (MNEME_PORT)")
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", hookwire.EnvOr(hookwire.EnvDataDir, defaultDataDir()), "data directory (MNEME_DATA_DIR)")
	root.AddCommand(
		serveCmd(g, code),
		hookCmd(g),
		installCmd(g, false),
		installCmd(g, true),
		statusCmd(g, code),
		doctorCmd(g, code),
		openCmd(g, code),
		tailCmd(g, code),
		searchCmd(g, code),
		memoriesCmd(g, code),
		sessionsCmd(g, code),
		showCmd(g, code),
		exportCmd(g, code),
		importCmd(g, code),
		backupCmd(g, code),
		restoreCmd(g, code),
		forgetCmd(g, code),
		tokenCmd(g, code),
		mcpCmd(g, code),
		migrateCmd(g, code),
		versionCmd(),
	)
	return root
}

func defaultDataDir() string { return hookwire.DefaultDataDir() }
