// Package app assembles mneme's worker from its parts: the store, the
// live-event broker, the capture pipeline, the context builder, the handlers
// and the Fiber app. `mneme serve` and the tests build it the same way.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/settings"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/handlers"
	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/internal/retention"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/internal/transcript"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web"
	"github.com/mneme-dev/mneme/web/auth"
	"github.com/mneme-dev/mneme/web/sse"
)

// Options configure a worker.
type Options struct {
	DataDir string
	// DatabaseURL, when set, is the PostgreSQL database the worker stores
	// in (team mode: several workers share it) instead of the SQLite file
	// <DataDir>/mneme.db. DataDir still holds the secret, socket, spool
	// and logs.
	DatabaseURL string
	Port        int // for the Host check; 0 disables it (tests on random ports set it)
	// AllowedHosts are names besides loopback the Host and Origin checks
	// accept (web.Options.AllowedHosts): a team worker's public name.
	AllowedHosts []string
	// Secret is required on every TCP request (bearer, header or the login
	// cookie derived from it): MNEME_TOKEN or <data>/secret.
	Secret string
	Dev    bool
	// Build is the worker's version, commit and commit date, shown on
	// /api/health and in the viewer's footer.
	Build hookwire.Build
	// ViewerURL is the viewer's address as `mneme serve` prints it
	// (http://127.0.0.1:37777): login links made over the socket carry it.
	ViewerURL string
	Log       *slog.Logger
	// Status reports a problem with the data directory; nil means the
	// worker's own Problem (see CheckHealth and Watch).
	Status func() string
	// Stream tunes /stream; zero fields take the defaults.
	Stream handlers.StreamOptions
	// ImportDir is what the viewer's import reads: Claude Code's
	// transcripts (transcript.DefaultDir) when empty.
	ImportDir string
	// Embed tunes the embeddings (timeouts, the query's budget, the
	// indexer's batches and backoff); zero fields take the defaults.
	Embed embed.Options
	// FailureHintBudget bounds the lookup behind a failure's "seen
	// before" hint (recall.DefaultFailureBudget when zero).
	FailureHintBudget time.Duration
}

// Worker is an assembled worker. Close it to stop its background parts.
type Worker struct {
	Store   *models.Store
	Broker  *sse.Broker
	Capture *capture.Service
	// Settings owns the settings in force: read, save and apply them
	// through it.
	Settings *settings.Service
	Handler  *handlers.Handler
	App      *fiber.App
	// Spool is <data>/spool, where `mneme hook` puts events the worker
	// could not take; Fallback is the per-user directory the hook uses
	// when the data directory cannot be written (hookwire.FallbackSpoolDir).
	// ReplaySpool replays both, in that order.
	Spool    hookwire.Spool
	Fallback hookwire.Spool
	// Summaries is the persisted background summary queue.
	Summaries *summarize.Queue
	// Retention deletes observations past the retention setting.
	Retention *retention.Job
	// Import runs the viewer's imports of Claude Code's transcripts.
	Import *transcript.Job
	// Embed is the background indexer of the embeddings settings, and
	// search in any mode.
	Embed *embed.Service

	dataDir  string
	log      *slog.Logger // opts.Log behind the privacy pipeline: see Log
	problem  atomic.Value // string: the last CheckHealth's finding
	readOnly *atomic.Bool // the database could not be written at start
	// readOnlyErr is why, as SQLite said; readOnlyCause what diagnose
	// found then ("" if nothing: a cause it does not know).
	readOnlyErr   error
	readOnlyCause string
	restart       chan struct{}
	restartOnce   sync.Once
	// stops are what New started, in order; stop runs them in reverse.
	stops           []func() error
	shutdownTimeout time.Duration
}

// New opens the database in opts.DataDir and assembles the worker. Each
// part is built after what it uses, and each part that runs is added to
// the worker's stop list as it starts: a failure stops what started, in
// reverse, and so does Shutdown.
func New(ctx context.Context, opts Options) (_ *Worker, err error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	keeper, err := auth.New(opts.Secret)
	if err != nil {
		return nil, err
	}
	w := &Worker{dataDir: opts.DataDir, readOnly: new(atomic.Bool), restart: make(chan struct{})}
	defer func() {
		if err != nil {
			w.stop()
		}
	}()
	store, openErr, err := openStore(opts)
	if err != nil {
		return nil, err
	}
	w.Store = store
	w.stops = append(w.stops, w.closeStore)
	// The privacy pipeline of every stored string is also the logs' and
	// the hook's: the settings in force are loaded first, every part of
	// the worker logs through them, they share the key of cleaned
	// identifiers with the hook, and hand the hook its rules.
	idKey, idErr := privacy.LoadIDKey(opts.DataDir)
	conf, err := settings.Load(ctx, store, idKey)
	if err != nil {
		return nil, err
	}
	clean := func(s string) string { return conf.Policy().Clean(s) }
	log := newCleanLogger(opts.Log, clean)
	w.log, w.Settings = log, conf
	if idErr != nil {
		log.Warn("no key for cleaned identifiers: they are hashed without one", "err", idErr)
	}
	broker := sse.NewBroker()
	w.Broker = broker
	w.stops = append(w.stops, func() error { broker.Close(); return nil })
	// The context builder, the summary queue and the capture service read
	// the settings in force through conf.
	embedder := &embed.Service{Store: store, Log: log, Options: opts.Embed, ReadOnly: w.readOnly.Load}
	rb := &recall.Builder{Store: store, Policy: conf.Policy, Embed: embedder, EmbedBudget: opts.Embed.HintBudget,
		FailureBudget: opts.FailureHintBudget, Log: log}
	queue := summarize.NewQueue(store, conf.Current, clean, log)
	svc, err := capture.New(store, capture.Deps{Context: rb, Files: rb, Failures: rb, Summaries: queue, Policy: conf.Policy, Log: log})
	if err != nil {
		return nil, err
	}
	w.Capture, w.Summaries, w.Embed = svc, queue, embedder
	// Retention's first run is a minute away: starting it here, before
	// anything is published, lets the settings follow-up below kick it.
	retain := retention.Start(store, conf.Current, log)
	w.Retention = retain
	w.stops = append(w.stops, func() error { retain.Stop(); return nil })
	// What follows a settings change, here or (on PostgreSQL) another
	// replica's: the hook's rules file, a retention run, and the
	// embeddings following their endpoint.
	conf.OnChange(func(st models.Settings) { writeRules(opts.DataDir, log, st) })
	conf.OnChange(func(models.Settings) { retain.Kick() })
	conf.OnChange(func(st models.Settings) { embedder.Apply(st.Embeddings) })
	// Capture hears of forgotten sessions (every replica's, on PostgreSQL)
	// before the stream does. On PostgreSQL another replica's settings
	// change is applied here too.
	store.Writer.OnCommit(func(ev models.Event) {
		svc.Committed(ev)
		if ev.Kind == models.EventSettingsChanged && store.Postgres() {
			go func() {
				if err := conf.Changed(ctx); err != nil {
					log.Warn("applying another replica's settings", "err", err)
				}
			}()
		}
		broker.Publish(ev)
	})
	// The spools: the data directory's, and the per-user fallback the
	// hook uses when the data directory cannot be written. An event
	// replay refuses for good is set aside in their rejected/ and logged.
	w.Spool = hookwire.Spool{Dir: filepath.Join(opts.DataDir, "spool"), OnReject: func(reason string) {
		log.Warn("spooled event set aside in spool/rejected/", "reason", reason)
	}}
	fallback := hookwire.FallbackSpoolDir(opts.DataDir)
	w.Fallback = hookwire.Spool{Dir: fallback, OnReject: func(reason string) {
		log.Warn("spooled event set aside in the fallback spool's rejected/", "dir", fallback, "reason", reason)
	}}
	// Summary queue: jobs persist in the database and resume after a restart.
	// Its start is the worker's first write: a database that cannot be
	// written (a read-only data directory, immutable files) fails it. The
	// worker then runs read-only, so that /api/health and the viewer say
	// what is wrong while hooks spool; see RestartNeeded.
	if store.ReadOnly() {
		if info, err := os.Stat(filepath.Join(opts.DataDir, "mneme.db-wal")); err == nil && info.Size() > 0 {
			// Only when SQLite's -shm file is gone too (see
			// models.OpenReadOnly): what the -wal holds shows again
			// once the database can be opened for writing.
			log.Warn("serving the database without the commits in its -wal file", "bytes", info.Size())
		}
		w.readOnly.Store(true)
		w.readOnlyErr, w.readOnlyCause = openErr, w.diagnose()
		log.Warn("the database cannot be opened for writing: serving it read-only", "err", openErr, "cause", w.readOnlyCause)
	}
	writeRules(opts.DataDir, log, conf.Current())
	if err := queue.Start(); err != nil && !w.ReadOnly() {
		if !models.IsReadOnly(err) {
			queue.Stop()
			return nil, err
		}
		w.readOnly.Store(true)
		w.readOnlyErr, w.readOnlyCause = err, w.diagnose()
		log.Warn("the database cannot be written: serving it read-only", "err", err, "cause", w.readOnlyCause)
	}
	w.stops = append(w.stops, func() error { queue.Stop(); return nil }) // a job in progress stays queued for the next start
	if !w.ReadOnly() {
		if err := classifyStored(ctx, store, log); err != nil {
			log.Warn("classifying the commands of older observations", "err", err)
		}
	}
	w.CheckHealth()
	if opts.Status == nil {
		opts.Status = w.Problem
	}
	w.Import = &transcript.Job{
		DataDir: opts.DataDir, Dir: opts.ImportDir, Sink: captureSink{svc},
		Known: store.KnownSessions,
		Stored: func(ctx context.Context) (transcript.Counts, error) {
			c, err := store.Counts(ctx)
			return transcript.Counts{Sessions: int(c.Sessions), Prompts: int(c.Prompts), Observations: int(c.Observations)}, err
		},
		Publish: func(st transcript.State) { publishImport(broker, st) },
	}
	w.stops = append(w.stops, func() error { w.Import.Stop(); return nil }) // an import in progress stops; run again, it goes on
	embedder.Start(context.WithoutCancel(ctx), conf.Current().Embeddings)
	w.stops = append(w.stops, func() error { embedder.Stop(); return nil }) // what is not embedded yet is embedded after the next start
	w.Handler = &handlers.Handler{
		Store: store, Capture: svc, Settings: conf, Broker: broker, Log: log, Auth: keeper,
		Build: opts.Build, Started: time.Now(), Status: opts.Status, ViewerURL: opts.ViewerURL,
		Quarantined:   w.Quarantined,
		StreamOptions: opts.Stream, Import: w.Import, Embed: embedder,
	}
	if err := w.Handler.Ready(); err != nil {
		return nil, err
	}
	w.App, err = web.New(web.Options{Port: opts.Port, AllowedHosts: opts.AllowedHosts, Dev: opts.Dev, Log: log}, w.Handler)
	if err != nil {
		return nil, err
	}
	// Serving stops first: the live streams end (they never would on
	// their own), then the server waits for requests in flight.
	w.stops = append(w.stops, func() error {
		broker.Close()
		return w.App.ShutdownWithTimeout(w.shutdownTimeout)
	})
	return w, nil
}

// openStore opens the worker's database: PostgreSQL at opts.DatabaseURL,
// else the SQLite file in the data directory. A SQLite database that
// cannot be opened for writing (after a clean shutdown, in a read-only
// data directory, SQLite cannot create the -wal and -shm files it needs)
// is opened read-only, so that a worker runs to say what is wrong while
// hooks spool; openErr is why. A PostgreSQL server that refuses writes is
// not a data directory's problem: the worker does not start.
func openStore(opts Options) (store *models.Store, openErr, err error) {
	path := filepath.Join(opts.DataDir, "mneme.db")
	if opts.DatabaseURL != "" {
		store, err = models.OpenURL(opts.DatabaseURL, opts.DataDir)
		return store, nil, err
	}
	store, err = models.Open(path)
	if err != nil && models.CannotWrite(err) {
		openErr = err
		store, err = models.OpenReadOnly(path)
		if err != nil {
			err = fmt.Errorf("%w; nor could it be opened read-only: %w", openErr, err)
		}
	}
	return store, openErr, err
}

// stop stops what New started, in reverse, and returns the first error.
func (w *Worker) stop() error {
	var first error
	for i := len(w.stops) - 1; i >= 0; i-- {
		if err := w.stops[i](); err != nil && first == nil {
			first = err
		}
	}
	w.stops = nil
	return first
}

// closeStore closes the store once its writer drained. Once the writer has
// committed what it holds, every commit moves from the -wal file into the
// database file and the -wal is emptied: closing the connections usually
// does that too, but not always (in about one stop in four under the race
// detector the -wal kept its commits), and a database file that holds
// everything can be served read-only (models.OpenReadOnly) if the data
// directory is read-only at the next start.
func (w *Worker) closeStore() error {
	w.Store.Writer.Close()
	if !w.Store.ReadOnly() && !w.Store.Postgres() {
		if err := w.Store.CheckpointTruncate(); err != nil && w.log != nil {
			w.log.Warn("checkpoint at shutdown", "err", err)
		}
	}
	return w.Store.Close()
}

// Log is the worker's logger: what it was given, behind the privacy
// pipeline (every message, string and error redacted by the rules in
// force). Whatever logs for the worker logs through it.
func (w *Worker) Log() *slog.Logger { return w.log }

// writeRules hands the redaction rules in force to the hook, which has no
// database, in <data>/redaction.json: the hook redacts with them before it
// sends or spools an event. Without the file (a read-only data directory)
// the hook still applies the built-in rules.
func writeRules(dataDir string, log *slog.Logger, st models.Settings) {
	path := filepath.Join(dataDir, privacy.RulesFile)
	if err := privacy.WriteRules(path, st.Privacy.RedactionRules); err != nil {
		log.Warn("the hook cannot be given the redaction rules: it applies the built-in ones only", "path", path, "err", err)
	}
}

// ReplaySpool feeds spooled events through the capture pipeline in-process
// and returns how many were sent: first the data directory's spool, then
// the fallback spool, each oldest first. Each spool is replayed under its
// own lock, the one `mneme hook` takes too, so no event is sent twice; when
// a hook holds the first, the fallback is left to that hook, which replays
// it next, so the order holds. A fallback directory that is not this
// user's own private directory is not read (in a shared temp directory
// someone else could have made it).
func (w *Worker) ReplaySpool(ctx context.Context) (int, error) {
	send := func(slug string, body []byte) error {
		event, ok := hookwire.EventName(slug)
		if !ok {
			return hookwire.Permanent(errors.New("unknown event " + slug))
		}
		p, err := shape.Decode(event, body)
		if err != nil {
			return hookwire.Permanent(err)
		}
		// Capture marks what it refuses for good (hookwire.ErrPermanent),
		// and Replay quarantines that.
		_, err = w.Capture.Handle(ctx, event, p)
		return err
	}
	sent := 0
	for i, sp := range []hookwire.Spool{w.Spool, w.Fallback} {
		if sp.Dir == "" || !sp.Pending() {
			continue
		}
		if i == 1 {
			// The same check as the hook's, before it writes or replays.
			if err := hookwire.CheckPrivateDir(sp.Dir); err != nil {
				return sent, fmt.Errorf("fallback spool not replayed: %w", err)
			}
		}
		res, err := sp.Replay(send)
		sent += res.Sent
		if err != nil {
			return sent, fmt.Errorf("spool %s: %w", sp.Dir, err)
		}
		if res.Busy {
			return sent, nil
		}
	}
	return sent, nil
}

// Quarantined counts what the spools set aside (hookwire.Spool.Rejected):
// events the worker refused for good, and unreadable lines.
func (w *Worker) Quarantined() api.Quarantine {
	var q api.Quarantine
	for _, sp := range []hookwire.Spool{w.Spool, w.Fallback} {
		if sp.Dir != "" {
			q.Add(sp.Rejected())
		}
	}
	return q
}

// ReadOnly reports that the database could not be written when the worker
// started: it serves what is stored, and every write fails.
func (w *Worker) ReadOnly() bool { return w.readOnly.Load() }

// RestartNeeded is closed once a worker that started read-only finds its
// data directory writable again: SQLite keeps a database it opened
// read-only that way, so only a new process stores events again. `mneme
// serve` then restarts itself.
func (w *Worker) RestartNeeded() <-chan struct{} { return w.restart }

// Shutdown ends open streams, stops the HTTP server (waiting up to timeout
// for requests in flight), stops the background parts, and closes the
// store after its writer drained: what New started, in reverse.
func (w *Worker) Shutdown(timeout time.Duration) error {
	w.shutdownTimeout = timeout
	return w.stop()
}

// classifyStored gives the Bash observations an older mneme stored their
// command kind and test outcome (shape.ClassifyStored), once, at the
// first start on such a database: reports and summaries read those fields
// and never parse titles.
func classifyStored(ctx context.Context, store *models.Store, log *slog.Logger) error {
	start, n := time.Now(), 0
	for {
		rows, err := store.UnclassifiedCommands(ctx, 1000)
		if err != nil || len(rows) == 0 {
			if n > 0 {
				log.Info("classified the commands of older observations", "observations", n, "took", time.Since(start).Round(time.Millisecond))
			}
			return err
		}
		err = store.Writer.Do(ctx, func(tx *models.Tx) error {
			for _, o := range rows {
				kind, outcome := shape.ClassifyStored(o)
				if err := tx.SetCommandFields(o.ID, kind, outcome); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		n += len(rows)
	}
}
