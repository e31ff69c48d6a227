package main

import (
	"context"
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
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/handlers"
	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web"
	"github.com/mneme-dev/mneme/web/sse"
)

func serveCmd(g *globals, code *int) *cobra.Command {
	var host string
	var dev bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the worker: ingest, viewer and APIs on 127.0.0.1",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c, err := serve(ctx, serveOptions{
				Host: host, Port: g.port, DataDir: g.dataDir, Dev: dev,
				Token: os.Getenv("MNEME_TOKEN"), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
			})
			*code = c
			return err
		},
	}
	cmd.Flags().StringVar(&host, "host", envOr("MNEME_HOST", "127.0.0.1"), "address to bind (MNEME_HOST); anything but loopback requires MNEME_TOKEN")
	cmd.Flags().BoolVar(&dev, "dev", false, "serve static files from ./static on disk")
	return cmd
}

type serveOptions struct {
	Host, DataDir, Token string
	Port                 int
	Dev                  bool
	Stdout, Stderr       io.Writer
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
	if err := os.MkdirAll(filepath.Join(o.DataDir, "logs"), 0o700); err != nil {
		return 1, fmt.Errorf("data directory %s: %w", o.DataDir, err)
	}
	log, closeLog := newLogger(o.Stderr, filepath.Join(o.DataDir, "logs", "mneme.log"))
	defer closeLog()
	slog.SetDefault(log)

	addr := net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if !errors.Is(err, syscall.EADDRINUSE) {
			return 1, fmt.Errorf("listen on %s: %w", addr, err)
		}
		if pid, ok := probeMneme(o.Port); ok {
			fmt.Fprintf(o.Stdout, "mneme is already running on port %d (pid %d)\n", o.Port, pid)
			return 0, nil
		}
		return 1, fmt.Errorf("port %d is in use by another program; choose another with --port or MNEME_PORT", o.Port)
	}

	store, err := models.Open(filepath.Join(o.DataDir, "mneme.db"))
	if err != nil {
		ln.Close()
		return 1, err
	}
	defer store.Close()
	broker := sse.NewBroker()
	svc, err := capture.New(ctx, store, broker)
	if err != nil {
		ln.Close()
		return 1, err
	}
	svc.Context = &recall.Builder{Store: store, Settings: func() models.Settings { return svc.Policy().Settings }}

	health := newHealthWatch(o.DataDir)
	spool := hooks.Spool{Dir: filepath.Join(o.DataDir, "spool")}
	replay := func(ctx context.Context) (int, error) { return replaySpool(ctx, svc, spool) }
	h := &handlers.Handler{
		Store: store, Capture: svc, Broker: broker, Log: log,
		Version: version, Started: time.Now(), Status: health.Problem, Replay: replay,
	}
	app := web.New(web.Config{Port: o.Port, Token: o.Token, Dev: o.Dev, Log: log}, h)

	if n, err := replay(ctx); err != nil {
		log.Warn("spool replay stopped", "err", err)
	} else if n > 0 {
		log.Info("spool replayed", "events", n)
	}
	go health.Run(ctx, spool, replay)

	errc := make(chan error, 1)
	go func() { errc <- app.Listener(ln) }()
	log.Info("mneme worker listening", "addr", "http://"+addr, "data", o.DataDir, "version", version)
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil {
			return 1, err
		}
	}
	log.Info("shutting down")
	broker.Close() // ends open streams so the server can drain
	if err := app.ShutdownWithTimeout(5 * time.Second); err != nil {
		log.Warn("shutdown", "err", err)
	}
	return 0, nil
}

// replaySpool feeds spooled events through the capture pipeline in-process.
func replaySpool(ctx context.Context, svc *capture.Service, spool hooks.Spool) (int, error) {
	if !spool.Pending() {
		return 0, nil
	}
	res, err := spool.Replay(func(slug string, body []byte) error {
		event, ok := hooks.EventName(slug)
		if !ok {
			return &hooks.PermanentError{Msg: "unknown event " + slug}
		}
		p, err := hooks.Decode(event, body)
		if err != nil {
			return &hooks.PermanentError{Msg: err.Error()}
		}
		_, err = svc.Handle(ctx, event, p)
		return err
	})
	return res.Sent, err
}

// probeMneme asks whatever listens on port whether it is mneme.
func probeMneme(port int) (pid int, ok bool) {
	client := &http.Client{Timeout: time.Second}
	resp, err := client.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/api/health")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var h handlers.Health
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
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return log, func() {
		if f != nil {
			f.Close()
		}
	}
}
