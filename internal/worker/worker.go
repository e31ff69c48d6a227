// Package worker assembles mneme's worker from its parts: the store, the
// live-event broker, the capture pipeline, the context builder, the handlers
// and the Fiber app. `mneme serve` and the tests build it the same way.
package worker

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/handlers"
	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/internal/retention"
	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web"
	"github.com/mneme-dev/mneme/web/sse"
)

// Options configure a worker.
type Options struct {
	DataDir string
	Port    int    // for the Host check; 0 disables it (tests on random ports set it)
	Token   string // MNEME_TOKEN
	Dev     bool
	Version string
	Log     *slog.Logger
	// Status reports a problem with the data directory; may be nil.
	Status func() string
}

// Worker is an assembled worker. Close it to stop its background parts.
type Worker struct {
	Store   *models.Store
	Broker  *sse.Broker
	Capture *capture.Service
	Handler *handlers.Handler
	App     *fiber.App
	Spool   hooks.Spool
	// Summaries is the persisted background summary queue.
	Summaries *summarize.Queue
	// Retention deletes observations past the retention setting.
	Retention *retention.Job
}

// New opens the database in opts.DataDir and assembles the worker.
func New(ctx context.Context, opts Options) (*Worker, error) {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	store, err := models.Open(filepath.Join(opts.DataDir, "mneme.db"))
	if err != nil {
		return nil, err
	}
	broker := sse.NewBroker()
	store.Writer.OnCommit(broker.Publish)
	svc, err := capture.New(ctx, store)
	if err != nil {
		broker.Close()
		store.Close()
		return nil, err
	}
	svc.Context = &recall.Builder{Store: store, Policy: svc.Policy}
	w := &Worker{Store: store, Broker: broker, Capture: svc, Spool: hooks.Spool{Dir: filepath.Join(opts.DataDir, "spool")}}
	// Summary queue: jobs persist in the database and resume after a restart.
	w.Summaries = summarize.NewQueue(store, func() models.Settings { return svc.Policy().Settings }, opts.Log)
	if err := w.Summaries.Start(); err != nil {
		broker.Close()
		store.Close()
		return nil, err
	}
	svc.Summaries = w.Summaries
	w.Retention = retention.Start(store, func() models.Settings { return svc.Policy().Settings }, opts.Log)
	w.Handler = &handlers.Handler{
		Store: store, Capture: svc, Broker: broker, Log: opts.Log,
		Version: opts.Version, Started: time.Now(), Status: opts.Status,
		AfterSettings: func(models.Settings) { w.Retention.Kick() },
	}
	w.App = web.New(web.Config{Port: opts.Port, Token: opts.Token, Dev: opts.Dev, Log: opts.Log}, w.Handler)
	return w, nil
}

// ReplaySpool feeds spooled events through the capture pipeline in-process
// and returns how many were sent.
func (w *Worker) ReplaySpool(ctx context.Context) (int, error) {
	if !w.Spool.Pending() {
		return 0, nil
	}
	res, err := w.Spool.Replay(func(slug string, body []byte) error {
		event, ok := hooks.EventName(slug)
		if !ok {
			return &hooks.PermanentError{Msg: "unknown event " + slug}
		}
		p, err := hooks.Decode(event, body)
		if err != nil {
			return &hooks.PermanentError{Msg: err.Error()}
		}
		_, err = w.Capture.Handle(ctx, event, p)
		return err
	})
	return res.Sent, err
}

// Shutdown ends open streams, stops the HTTP server (waiting up to timeout
// for requests in flight), and closes the store after its writer drained.
func (w *Worker) Shutdown(timeout time.Duration) error {
	w.Broker.Close()
	err := w.App.ShutdownWithTimeout(timeout)
	w.Summaries.Stop() // a job in progress stays queued for the next start
	w.Retention.Stop()
	if cerr := w.Store.Close(); err == nil {
		err = cerr
	}
	return err
}
