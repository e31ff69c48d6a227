package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/internal/heaptune"
	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/models"
)

func serveCmd(g *globals, code *int) *cobra.Command {
	var host, databaseURL string
	var allowedHosts []string
	var dev bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the worker: ingest, viewer and APIs on 127.0.0.1",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// The whole process is the worker's: its heap's growth
			// follows what it holds live (internal/heaptune).
			defer heaptune.Start().Stop()
			c, err := serve(ctx, serveOptions{
				Host: host, Port: g.port, DataDir: g.dataDir, DatabaseURL: databaseURL, AllowedHosts: allowedHosts, Dev: dev,
				Token: os.Getenv("MNEME_TOKEN"), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
			})
			if errors.Is(err, errRestart) {
				err = restartSelf()
				c = 1
			}
			*code = c
			return err
		},
	}
	cmd.Flags().StringVar(&host, "host", hookwire.EnvOr("MNEME_HOST", "127.0.0.1"), "address to bind (MNEME_HOST); anything but loopback requires MNEME_TOKEN")
	cmd.Flags().StringSliceVar(&allowedHosts, "allowed-host", splitList(os.Getenv("MNEME_ALLOWED_HOSTS")),
		"a name (host or host:port) this worker also answers to in Host and Origin, such as a team worker's public name; repeat or separate with commas (MNEME_ALLOWED_HOSTS)")
	cmd.Flags().BoolVar(&dev, "dev", false, "serve static files from ./static on disk")
	cmd.Flags().StringVar(&databaseURL, "database-url", os.Getenv("MNEME_DATABASE_URL"),
		"store in this PostgreSQL database (postgres://…) instead of <data-dir>/mneme.db: team mode (MNEME_DATABASE_URL)")
	return cmd
}

type serveOptions struct {
	Host, DataDir, Token string
	// DatabaseURL is a PostgreSQL URL (team mode), or "" for the data
	// directory's SQLite file. It may hold a password: log it only
	// through models.RedactURL.
	DatabaseURL    string
	AllowedHosts   []string
	Port           int
	Dev            bool
	Stdout, Stderr io.Writer
	// Ready, if set, is called once the worker accepts connections.
	Ready func(addr string)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serve runs the worker until ctx ends. It returns the exit code.
func serve(ctx context.Context, o serveOptions) (int, error) {
	if !isLoopback(o.Host) && o.Token == "" {
		return 2, fmt.Errorf("refusing to listen on %s without MNEME_TOKEN: anything but loopback exposes your coding history; set MNEME_TOKEN to a long random string", o.Host)
	}
	// A data directory that cannot be written does not stop the worker:
	// it then logs to stderr only, and serves the database read-only
	// (app.New) to say what is wrong.
	logsErr := hookwire.PrepareDataDir(o.DataDir)
	if logsErr == nil {
		logsErr = os.MkdirAll(filepath.Join(o.DataDir, "logs"), 0o700)
	}
	// Until the worker is built, and its redacting logger with it, what
	// is logged holds no event and no setting.
	log, closeLog := newLogger(o.Stderr, filepath.Join(o.DataDir, "logs", "mneme.log"))
	defer closeLog()
	if logsErr != nil {
		log.Warn("no log file in the data directory", "err", logsErr)
	}

	secret, err := workerSecret(o, log)
	if err != nil {
		return 1, err
	}

	// The socket first: it is what the hook and the CLI talk to, and a
	// worker that already answers on it is this data directory's.
	sockLn, sockPath, err := app.ListenSocket(o.DataDir)
	if err != nil {
		if errors.Is(err, app.ErrSocketInUse) {
			if pid, ok := probeMneme(socketClient(sockPath), "http://mneme"); ok {
				fmt.Fprintf(o.Stdout, "mneme is already running on port %d (pid %d)\n", o.Port, pid)
				return 0, nil
			}
			return 1, fmt.Errorf("something answers on %s, but not as mneme", sockPath)
		}
		// Neither the data directory nor the private fallback could
		// hold the socket: the worker still runs (on TCP) to say what is
		// wrong, and hooks spool.
		log.Warn("no socket: hooks and the CLI cannot reach this worker", "err", err)
		sockLn = nil
	}
	addr := net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if sockLn != nil {
			sockLn.Close()
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return 1, fmt.Errorf("listen on %s: %w", addr, err)
		}
		// Whatever holds the port is not this data directory's worker (that
		// one would have answered on the socket), and may be another
		// user's program: it is sent nothing, not even a probe.
		return 1, fmt.Errorf("port %d is in use by another program (or by a mneme worker of another data directory or another user); choose another with --port or MNEME_PORT", o.Port)
	}

	w, err := app.New(ctx, app.Options{
		DataDir: o.DataDir, DatabaseURL: o.DatabaseURL, AllowedHosts: o.AllowedHosts, Port: o.Port, Secret: secret, Dev: o.Dev,
		Build: thisBuild, Log: log, ViewerURL: "http://" + addr,
	})
	if err != nil {
		ln.Close()
		if sockLn != nil {
			sockLn.Close()
		}
		return 1, err
	}
	// From here on, everything logs through the worker's logger, which
	// redacts: this function, the worker's parts, and whatever a library
	// writes to slog's or the log package's default (never mneme's own
	// code: see TestNoGlobalLogger).
	log = w.Log()
	slog.SetDefault(log)
	app := w.App
	// The spool directory exists from the start, so hooks can still spool
	// into it if the data directory later becomes read-only.
	_ = os.MkdirAll(w.Spool.Dir, 0o700)
	if n, err := w.ReplaySpool(ctx); err != nil {
		log.Warn("spool replay stopped", "err", err)
	} else if n > 0 {
		log.Info("spool replayed", "events", n)
	}
	// Every five seconds: re-check the data directory (/api/health and the
	// viewer's banner) and replay what hooks spooled meanwhile.
	go w.Watch(ctx, 5*time.Second)

	errc := make(chan error, 2)
	go func() { errc <- app.Listener(ln) }()
	if sockLn != nil {
		go func() { errc <- app.Listener(sockLn) }()
	}
	database := filepath.Join(o.DataDir, "mneme.db")
	if o.DatabaseURL != "" {
		database = models.RedactURL(o.DatabaseURL)
	}
	log.Info("mneme worker listening", "addr", "http://"+addr, "socket", sockPath, "data", o.DataDir, "database", database, "version", thisBuild.Version, "commit", thisBuild.Commit)
	// The viewer's address with a one-time login link (two minutes, once;
	// `mneme open` makes new ones). Not logged: it is a credential.
	if tok, _ := w.Handler.Auth.NewLink(); o.Stdout != nil {
		fmt.Fprintf(o.Stdout, "mneme viewer: http://%s/login?token=%s\n", addr, tok)
	}
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	var restart error
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil {
			return 1, err
		}
	case <-w.RestartNeeded():
		log.Info("the data directory is writable again: restarting, to open the database for writing")
		restart = errRestart
	}
	log.Info("shutting down")
	if err := w.Shutdown(5 * time.Second); err != nil {
		log.Warn("shutdown", "err", err)
	}
	return 0, restart
}

// workerSecret is MNEME_TOKEN (o.Token) or the data directory's secret
// file, made on first start. A secret file that is there but refused (not
// ours, open to others) stops the worker; one that cannot be made (a
// read-only data directory) gives a secret for this run only, so the worker
// still runs to say what is wrong.
func workerSecret(o serveOptions, log *slog.Logger) (string, error) {
	if o.Token != "" {
		return o.Token, nil
	}
	s, err := hookwire.EnsureSecretFile(o.DataDir)
	if err == nil {
		return s, nil
	}
	if _, lerr := os.Lstat(filepath.Join(o.DataDir, hookwire.SecretFile)); lerr == nil {
		return "", err
	}
	log.Warn("no secret file in the data directory: using a secret for this run only", "err", err)
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// errRestart asks serveCmd to run this mneme serve again in its place.
var errRestart = errors.New("restart")

// probeMneme asks whatever answers at base (through client) whether it is
// mneme, and its pid when it says (over the socket; over TCP without the
// secret, health says no more than service and status).
func probeMneme(client *http.Client, base string) (pid int, ok bool) {
	resp, err := client.Get(base + "/api/health")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var h api.Health
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&h) != nil || h.Service != "mneme" {
		return 0, false
	}
	return h.PID, true
}

// newLogger logs to stderr and to a file in the data directory.
func newLogger(stderr io.Writer, path string) (*slog.Logger, func()) {
	var w io.Writer = stderr
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err == nil {
		if info, err := f.Stat(); err == nil && info.Size() > 20<<20 {
			f.Truncate(0)
		}
		w = io.MultiWriter(stderr, f)
		// A fatal error goes to the log too: an auto-started worker's
		// stderr is /dev/null, and SQLite's shared memory (mneme.db-shm)
		// made immutable or truncated under a running worker is a SIGBUS
		// that Go cannot recover from.
		debug.SetCrashOutput(f, debug.CrashOptions{})
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return log, func() {
		if f != nil {
			f.Close()
		}
	}
}

// splitList is the comma-separated list s, blanks trimmed, empty items left out.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
