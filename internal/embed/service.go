package embed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// ErrOff is the error of a search by meaning alone while the embeddings
// are off, said as a person would (it is an invalid request: 400). A
// hybrid search runs on words instead (Mode).
var ErrOff error = offError{}

type offError struct{}

func (offError) Error() string {
	return "search by meaning is off: it needs an embeddings endpoint (Ollama, LM Studio, OpenAI, …), which you can set on the Settings page; searching by words works without one"
}

func (offError) Is(target error) bool { return target == models.ErrInvalid }

// Service is search by meaning in the worker: it follows the embeddings
// settings (Apply), runs one Indexer off the write path while they are
// set, and answers searches in any mode. The zero value with Store set is
// off until Apply is given settings with a URL and a model.
type Service struct {
	Store *models.Store
	Log   *slog.Logger
	// ReadOnly tells that the worker serves its database read-only (nil:
	// the store's own ReadOnly): Status then says so.
	ReadOnly func() bool
	Options

	mu     sync.Mutex
	ctx    context.Context // the worker's, set by Start
	cfg    models.EmbeddingsSettings
	client *Client
	ix     *Indexer
	cancel context.CancelFunc
	done   chan struct{}
	// warmCancel and warmDone are the vector index's warm-up under way
	// (see warm): Stop cancels it and waits, so it never reads a store
	// closed after Stop.
	warmCancel context.CancelFunc
	warmDone   chan struct{}
	stopped    bool // Stop ran: nothing starts again
}

// Options tune the Service; zero fields take the defaults.
type Options struct {
	// Timeout bounds one request of the indexer (default 30 s).
	Timeout time.Duration
	// Budget bounds embedding a search's query (see Searcher.Budget).
	Budget time.Duration
	// HintBudget bounds the related-memory hint's semantic lookup
	// (recall.Builder.EmbedBudget).
	HintBudget time.Duration
	// Batch, Idle, MinBackoff, MaxBackoff tune the indexer (see Indexer).
	Batch                        int
	Idle, MinBackoff, MaxBackoff time.Duration
}

// Start remembers the worker's context (the indexer stops with it) and
// applies cfg.
func (s *Service) Start(ctx context.Context, cfg models.EmbeddingsSettings) {
	s.mu.Lock()
	s.ctx = ctx
	// Settings applied before Start (another replica's change, heard
	// while the worker was being built) started nothing: forget them, so
	// that Apply starts the indexer even for the same settings.
	s.cfg, s.client = models.EmbeddingsSettings{}, nil
	s.mu.Unlock()
	s.Apply(cfg)
}

// Apply follows new settings: when the URL, model, dimensions or key
// changed, the running indexer stops and, if embeddings are on, a new
// one starts (a new model backfills every row). Unchanged settings leave
// it running.
func (s *Service) Apply(cfg models.EmbeddingsSettings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cfg == s.cfg && (s.client != nil) == cfg.Enabled() {
		return
	}
	s.stopLocked()
	s.cfg = cfg
	if !cfg.Enabled() {
		s.client = nil
		return
	}
	s.client = &Client{BaseURL: cfg.URL, Model: cfg.Model, Dims: cfg.Dimensions, Key: cfg.APIKey}
	if s.Timeout > 0 {
		s.client.HTTP = &http.Client{Timeout: s.Timeout}
	}
	s.ix = &Indexer{Store: s.Store, Client: s.client, Log: s.log(), Batch: s.Batch, Idle: s.Idle, MinBackoff: s.MinBackoff, MaxBackoff: s.MaxBackoff}
	if s.ctx == nil || s.stopped {
		return
	}
	wctx, wcancel := context.WithCancel(s.ctx)
	wdone := make(chan struct{})
	s.warmCancel, s.warmDone = wcancel, wdone
	go func() {
		defer close(wdone)
		s.warm(wctx, cfg)
	}()
	if s.Store.ReadOnly() {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan struct{})
	s.cancel, s.done = cancel, done
	go func(ix *Indexer) {
		defer close(done)
		ix.Run(ctx)
	}(s.ix)
	s.log().Info("semantic search on: embedding stored rows in the background", "model", cfg.Model)
}

// warm loads the vector index of cfg's model in the background, so the
// first search or hint does not pay the load (1.7 s at 100k rows).
func (s *Service) warm(ctx context.Context, cfg models.EmbeddingsSettings) {
	start := time.Now()
	n, err := s.Store.WarmVectors(ctx, cfg.Model, cfg.Dimensions)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log().Warn("semantic search: loading the vector index failed; the first search loads it", "model", cfg.Model, "err", err)
	case n > 0:
		s.log().Info("semantic search: vector index loaded", "model", cfg.Model, "vectors", n, "took", time.Since(start).Round(time.Millisecond))
	}
}

// Stop stops the indexer and the vector index's warm-up, and waits for
// both: the store can be closed once it returns. It is final: settings
// applied after it (another replica's, during shutdown) start nothing.
func (s *Service) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
	s.stopped = true
}

func (s *Service) stopLocked() {
	if s.warmCancel != nil {
		// A warm-up cut short leaves the index unloaded: the first
		// search loads it.
		s.warmCancel()
		<-s.warmDone
		s.warmCancel, s.warmDone = nil, nil
	}
	if s.cancel != nil {
		s.cancel()
		<-s.done
		s.cancel, s.done = nil, nil
	}
	s.ix = nil
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// Enabled reports whether embeddings are on.
func (s *Service) Enabled() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client != nil
}

// Mode is the mode a search asked for in mode runs in: "" is hybrid when
// embeddings are on and text when they are off; semantic or hybrid
// while they are off is ErrOff; anything else is invalid.
func (s *Service) Mode(mode string) (string, error) {
	on := s.Enabled()
	switch mode {
	case "":
		if on {
			return ModeHybrid, nil
		}
		return ModeText, nil
	case ModeText:
		return ModeText, nil
	case ModeHybrid:
		if !on {
			return ModeText, nil // words alone: the page and the API say so
		}
		return mode, nil
	case ModeSemantic:
		if !on {
			return "", ErrOff
		}
		return mode, nil
	}
	return "", fmt.Errorf("%w: mode must be hybrid, text or semantic", models.ErrInvalid)
}

// Search runs q in mode (see Mode) and returns the page as
// models.Store.Search does, and how it ran: in mode "text" for a hybrid
// search that fell back because the endpoint did not answer in Budget,
// with Words set when a hybrid search's words could not be read.
func (s *Service) Search(ctx context.Context, q models.SearchQuery, mode string) ([]models.SearchHit, Ran, error) {
	if s == nil {
		return nil, Ran{}, errors.New("no search service")
	}
	m, err := s.Mode(mode)
	if err != nil {
		return nil, Ran{}, err
	}
	s.mu.Lock()
	client := s.client
	s.mu.Unlock()
	if m == ModeText {
		hits, err := s.Store.Search(ctx, q)
		return hits, Ran{Mode: ModeText}, err
	}
	sr := &Searcher{Store: s.Store, Client: client, Log: s.log(), Budget: s.Budget}
	hits, ran, err := sr.Search(ctx, q, m)
	if err != nil && m == ModeSemantic {
		if errors.Is(err, ErrUnreachable) || errors.Is(err, ErrStatus) || errors.Is(err, ErrGarbage) || errors.Is(err, ErrDims) || errors.Is(err, context.DeadlineExceeded) {
			return nil, ran, fmt.Errorf("%w: %v", ErrEndpoint, err)
		}
	}
	return hits, ran, err
}

// NearestWithin embeds text once, waiting at most budget for the
// endpoint, and returns for each query of qs the rows closest to it in
// meaning (models.Store.SemanticSearch, in the model in force), in qs's
// order: one request to the endpoint for several lookups. It is ErrOff
// while embeddings are off; an endpoint that fails or does not
// answer in time is ErrEndpoint.
func (s *Service) NearestWithin(ctx context.Context, text string, budget time.Duration, qs ...models.SearchQuery) ([][]models.SearchHit, error) {
	if s == nil {
		return nil, ErrOff
	}
	s.mu.Lock()
	client := s.client
	s.mu.Unlock()
	if client == nil {
		return nil, ErrOff
	}
	vec, err := (&Searcher{Client: client, Budget: budget}).embedQuery(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEndpoint, err)
	}
	out := make([][]models.SearchHit, len(qs))
	for i, q := range qs {
		if out[i], err = s.Store.SemanticSearch(ctx, q, client.Model, vec); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ErrReadOnly is the embeddings' state while the worker serves its
// database read-only.
var ErrReadOnly = errors.New("the database is open read-only, so no row can be embedded: rows stay pending until mneme can write it again (see the problem in health); search by meaning uses the vectors already stored")

// ErrEndpoint wraps an endpoint's failure during a semantic search.
var ErrEndpoint = errors.New("semantic search: the embeddings endpoint failed")

// State is the embeddings' state for health and the settings page.
type State struct {
	// State is "off", "pending" (the indexer has not tried yet), "ok" or
	// "error" (LastError says what the endpoint did).
	State     string `json:"state"`
	Model     string `json:"model,omitempty"`
	Embedded  int64  `json:"embedded"`
	Total     int64  `json:"total"`
	LastError string `json:"lastError,omitempty"`
}

// Status reports the state, with the backfill's progress.
func (s *Service) Status(ctx context.Context) (State, error) {
	if s == nil {
		return State{State: "off"}, nil
	}
	s.mu.Lock()
	ix, started := s.ix, s.ctx != nil
	s.mu.Unlock()
	if ix == nil {
		return State{State: "off"}, nil
	}
	st, err := ix.Status(ctx)
	out := State{Model: st.Model, Embedded: st.Done, Total: st.Total, LastError: st.LastError}
	switch {
	case st.LastError != "":
		out.State = "error"
	case started && (s.Store.ReadOnly() || s.ReadOnly != nil && s.ReadOnly()):
		// Nothing can be embedded into a database that cannot be
		// written: say so rather than "pending" forever.
		out.State, out.LastError = "error", ErrReadOnly.Error()
	case !ix.tried():
		out.State = "pending"
	default:
		out.State = "ok"
	}
	return out, err
}
