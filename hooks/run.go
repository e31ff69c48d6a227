package hooks

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// Options are where one hook invocation finds the worker and the data.
type Options struct {
	Port    int
	DataDir string
	// ServeBinary names the mneme binary that auto-start runs as
	// `mneme serve`. It is called only when the worker must be started; nil
	// disables auto-start.
	ServeBinary func() (string, error)
	// Remote builds the sender for a team's worker (MNEME_URL) with a
	// person's token: hookhttp.Sender in mneme. Nil (mneme-hook) leaves
	// such events spooled for a hook that has one.
	Remote func(url, token string) Sender
}

// Handle is one `mneme hook <event>` invocation: the event's payload on
// stdin, one line of JSON on stdout, diagnostics on stderr only when
// MNEME_DEBUG is set. It never fails in a way that blocks Claude Code.
// Inside mneme's own summarizer run (MNEME_SUMMARIZER set) it records
// nothing.
func Handle(opts Options, slug string, stdin io.Reader, stdout, stderr io.Writer) {
	if os.Getenv(hookwire.EnvSummarizer) != "" {
		io.Copy(io.Discard, io.LimitReader(stdin, 4<<20))
		io.WriteString(stdout, hookwire.ContinueJSON+"\n")
		return
	}
	NewClient(opts, stderr).Run(slug, stdin, stdout)
}

// NewClient builds the client for opts from the environment: MNEME_DEBUG
// (diagnostics to stderr), MNEME_NO_AUTOSTART, and MNEME_URL with
// MNEME_TOKEN (a remote worker, see Client.URL).
func NewClient(opts Options, stderr io.Writer) *Client {
	c := &Client{
		DataDir:  opts.DataDir,
		Spool:    hookwire.Spool{Dir: filepath.Join(opts.DataDir, "spool")},
		Fallback: hookwire.Spool{Dir: hookwire.FallbackSpoolDir(opts.DataDir)},
	}
	if u := os.Getenv(hookwire.EnvURL); u != "" {
		// A team's worker: nothing to start here, and a spool of its own,
		// which a local worker (it replays "spool" at start) never takes.
		c.URL, c.Token = u, os.Getenv(hookwire.EnvToken)
		if opts.Remote != nil {
			c.Send = opts.Remote(c.URL, c.Token)
		}
		c.Spool.Dir = filepath.Join(opts.DataDir, hookwire.RemoteSpoolDir)
		c.Fallback.Dir += "-remote"
		opts.ServeBinary = nil
	}
	if opts.ServeBinary != nil && os.Getenv(hookwire.EnvNoStart) == "" {
		c.StartWorker = func() error {
			bin, err := opts.ServeBinary()
			if err != nil {
				return err
			}
			return StartWorker(bin, opts.Port, opts.DataDir)
		}
	}
	if os.Getenv(hookwire.EnvDebug) != "" {
		c.Debug = stderr
	}
	c.Redactor = LoadRedactor(opts.DataDir, c.debugf)
	return c
}

// StartWorker launches `bin --port P --data-dir D serve` in the background,
// detached from the hook's session and terminal (see detached); the worker
// logs to the data directory.
func StartWorker(bin string, port int, dataDir string) error {
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--data-dir", dataDir, "serve")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	cmd.SysProcAttr = detached()
	cmd.Env = os.Environ()
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// Self is a ServeBinary for the mneme binary itself (`mneme hook`).
func Self() (string, error) { return os.Executable() }

// Sibling returns a ServeBinary that finds the executable name next to the
// running one (mneme-hook starts the mneme installed beside it), and else
// on PATH.
func Sibling(name string) func() (string, error) {
	return func() (string, error) {
		if self, err := os.Executable(); err == nil {
			if real, err := filepath.EvalSymlinks(self); err == nil {
				self = real
			}
			path := filepath.Join(filepath.Dir(self), ExecutableName(name))
			if IsExecutable(path) {
				return path, nil
			}
		}
		path, err := exec.LookPath(name)
		if err != nil {
			return "", errors.New(name + " is neither beside this binary nor on PATH")
		}
		return path, nil
	}
}
