// Command mneme-hook is what Claude Code runs for each hook event once
// `mneme install` has wired mneme in: `mneme hook <event>` in a binary of its
// own. It is built on package hooks and the standard library only, without the
// database, web server and templates of mneme, so that the process Claude
// Code waits on for every tool call starts within a millisecond of a no-op
// Go binary (the full mneme takes about 5 ms more).
//
// Usage: mneme-hook [--port N] [--data-dir DIR] [hook] <event>, or
// mneme-hook --version
//
// The optional word "hook" makes it a drop-in for `mneme … hook <event>`.
// When the worker is not running it starts the mneme binary installed beside
// it (else the one on PATH) as `mneme serve`. It links neither net/http nor
// crypto/tls (hooks.SocketSender speaks to the worker's socket itself):
// events for a team's worker (MNEME_URL) are handed to `mneme hook`.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/hooks"
)

// version, commit and date are stamped at link time, as mneme's are (make
// build, .goreleaser.yaml); hookwire.Stamped completes them.
var version, commit, date string

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run handles one command line and returns the exit code, so tests run it
// in-process. Like `mneme hook`, it exits 0 with one line of JSON for every
// event, known or not; only a malformed command line exits 2.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mneme-hook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", hookwire.EnvInt(hookwire.EnvPort, hookwire.DefaultPort), "worker port (MNEME_PORT)")
	dataDir := fs.String("data-dir", hookwire.EnvOr(hookwire.EnvDataDir, hookwire.DefaultDataDir()), "data directory (MNEME_DATA_DIR)")
	showVersion := fs.Bool("version", false, "print the version, the commit built from and its date, and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mneme-hook [--port N] [--data-dir DIR] <event>\n       mneme-hook --version\nevents: %s\n", strings.Join(hookwire.Slugs(), ", "))
		fs.PrintDefaults()
	}
	// Flags may come before or after the event, as with mneme's own flags.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if *showVersion {
		io.WriteString(stdout, hookwire.Stamped(version, commit, date, debug.ReadBuildInfo).Text("mneme-hook"))
		return 0
	}
	if len(pos) == 2 && pos[0] == "hook" {
		pos = pos[1:]
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	if os.Getenv(hookwire.EnvURL) != "" && handOver(*port, *dataDir, pos[0], stdin, stdout, stderr) {
		return 0
	}
	opts := hooks.Options{Port: *port, DataDir: *dataDir, ServeBinary: hooks.Sibling("mneme")}
	hooks.Handle(opts, pos[0], stdin, stdout, stderr)
	return 0
}

// handOver runs the event through `mneme hook` when the worker is a team's
// (MNEME_URL): reaching it takes net/http and TLS, which mneme-hook leaves
// out to start fast for the local worker. It reports false, with stdin
// untouched, when no mneme could be started; the event is then spooled for
// a later `mneme hook` (hooks.Client.Send).
func handOver(port int, dataDir, event string, stdin io.Reader, stdout, stderr io.Writer) bool {
	bin, err := hooks.Sibling("mneme")()
	if err != nil {
		return false
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--data-dir", dataDir, "hook", event)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Start(); err != nil {
		return false
	}
	cmd.Wait() // mneme hook always answers one line of JSON and exits 0
	return true
}
