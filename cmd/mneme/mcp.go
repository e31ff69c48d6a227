package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/mcp"
)

// mcpCmd is `mneme mcp`: the MCP server Claude Code starts over stdio.
func mcpCmd(g *globals, _ *int) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve mneme's memory to Claude Code as MCP tools (stdio)",
		Long: `Run mneme's MCP server on stdin and stdout, as Claude Code starts it
(mneme install registers it). Its tools read the worker's API over the data
directory's socket (or MNEME_URL with MNEME_TOKEN), starting the worker when
none runs (unless MNEME_NO_AUTOSTART is set). MNEME_DEBUG logs the protocol's
events on stderr.

  search            an index of matching rows (#id, date, kind, title) within a token budget
  timeline          the tool calls around one #id, or one session, with its prompts and summaries
  get_observations  full records by #id
  recent_sessions   the latest sessions of a project with their summaries`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cwd, _ := os.Getwd()
			opts := mcp.Options{Version: thisBuild.Version, Project: hookwire.ResolveProject(cwd).Name}
			if os.Getenv(hookwire.EnvDebug) != "" {
				opts.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			}
			srv := mcp.New(g.workerAPI(), opts)
			t := &sdk.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopCloser{cmd.OutOrStdout()}}
			err := srv.Run(ctx, t)
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil // the client went away, or we were told to stop
			}
			return err
		},
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// workerAPI is the worker's JSON API for the MCP tools: over the socket,
// starting the worker the first time none answers; or the MNEME_URL worker.
func (g *globals) workerAPI() mcp.API {
	r := g.remote()
	a := &startingAPI{HTTPAPI: mcp.HTTPAPI{Base: r.base, Client: r.client(30 * time.Second), Token: r.token, Where: r.where}}
	if r.token == "" && os.Getenv(hookwire.EnvNoStart) == "" {
		a.start = func(try func() error) error { return g.withWorker(r, 10*time.Second, try) }
	}
	return a
}

// startingAPI retries a request that found no worker once the worker has
// been started.
type startingAPI struct {
	mcp.HTTPAPI
	mu    sync.Mutex
	start func(try func() error) error
}

func (a *startingAPI) Do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	out, err := a.HTTPAPI.Do(ctx, method, path, body)
	if err == nil || a.start == nil || !noWorker(err) {
		return out, err
	}
	a.mu.Lock() // one start at a time; the others then find it running
	defer a.mu.Unlock()
	err = a.start(func() error {
		out, err = a.HTTPAPI.Do(ctx, method, path, body)
		return err
	})
	return out, err
}
