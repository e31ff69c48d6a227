// Command mneme is a persistent memory for Claude Code: a worker that stores
// every session, prompt and tool call, a hook command Claude Code runs for
// each lifecycle event, and the tools around them.
package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/hooks"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// DefaultPort is the worker's port unless MNEME_PORT or --port says otherwise.
const DefaultPort = hooks.DefaultPort

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// globals are the flags every subcommand shares.
type globals struct {
	port    int
	dataDir string
}

// run executes the command line and returns the exit code, so tests can run
// subcommands in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{}
	code := 0
	root := &cobra.Command{
		Use:           "mneme",
		Short:         "A persistent memory for Claude Code",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().IntVar(&g.port, "port", hooks.EnvInt(hooks.EnvPort, DefaultPort), "worker port (MNEME_PORT)")
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", hooks.EnvOr(hooks.EnvDataDir, defaultDataDir()), "data directory (MNEME_DATA_DIR)")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.AddCommand(
		serveCmd(g, &code),
		hookCmd(g),
		installCmd(g, false),
		installCmd(g, true),
		statusCmd(g, &code),
	)
	for _, extra := range extraCommands {
		root.AddCommand(extra(g, &code))
	}
	if err := root.Execute(); err != nil {
		io.WriteString(stderr, "mneme: "+err.Error()+"\n")
		if code == 0 {
			code = 1
		}
	}
	return code
}

// extraCommands lets files add subcommands without touching run.
var extraCommands []func(g *globals, code *int) *cobra.Command

func defaultDataDir() string { return hooks.DefaultDataDir() }
