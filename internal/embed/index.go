package embed

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// Indexer embeds the stored rows that have no vector of the client's
// model, in batches, off the ingest path: ingest and hooks never wait for
// it. When the endpoint fails it backs off (doubling up to MaxBackoff)
// and keeps the rows pending, so nothing is lost; when it answers again
// the backlog is worked off.
type Indexer struct {
	Store  *models.Store
	Client *Client
	Log    *slog.Logger
	// Batch is how many rows one request embeds (default 32).
	Batch int
	// Idle is how long to wait when nothing is pending (default 2 s);
	// MinBackoff and MaxBackoff bound the wait after a failure (default
	// 1 s and 5 min).
	Idle, MinBackoff, MaxBackoff time.Duration

	mu      sync.Mutex
	lastErr error
	ran     bool // a batch was tried (or nothing was pending)
	// counted is Status's last count of rows and vectors, reused for
	// statusReuse times as long as it took: /api/health asks every few
	// seconds per open page, and at a million rows the counts take
	// about a tenth of a second.
	counted struct {
		done, total int64
		at          time.Time
		took        time.Duration
	}
}

// statusReuse is how many times as long as the count took Status reuses
// it (a count of 100 ms is reused for 5 s), from statusReuseRows rows up:
// below, counting is cheap and always fresh, so a row just stored counts
// at once.
const (
	statusReuse     = 50
	statusReuseRows = 100_000
)

// tried reports whether Run has tried the endpoint (or found nothing to
// embed) since it started.
func (ix *Indexer) tried() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.ran
}

// Status is what the indexer reports to health and settings.
type Status struct {
	Model       string
	Done, Total int64
	// LastError is the last failure of the endpoint, "" once a batch
	// succeeds again.
	LastError string
}

// Once embeds one batch of pending rows and returns how many it stored.
func (ix *Indexer) Once(ctx context.Context) (int, error) {
	batch := ix.Batch
	if batch <= 0 {
		batch = 32
	}
	items, err := ix.Store.PendingEmbeddings(ctx, ix.Client.Model, batch)
	if err != nil || len(items) == 0 {
		return 0, err
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.Text
	}
	vecs, err := ix.Client.Embed(ctx, texts)
	if err != nil {
		return 0, err
	}
	err = ix.Store.Writer.Do(ctx, func(tx *models.Tx) error { return tx.SaveEmbeddings(ix.Client.Model, items, vecs) })
	if err != nil {
		return 0, err
	}
	ix.Store.VectorsAdded(ix.Client.Model, items, vecs)
	return len(items), nil
}

// Run embeds until ctx ends: batch after batch while rows are pending,
// waiting Idle when none are, backing off after a failure.
func (ix *Indexer) Run(ctx context.Context) {
	idle, lo, hi := or(ix.Idle, 2*time.Second), or(ix.MinBackoff, time.Second), or(ix.MaxBackoff, 5*time.Minute)
	backoff := lo
	for {
		n, err := ix.Once(ctx)
		if ctx.Err() != nil {
			return
		}
		ix.mu.Lock()
		ix.lastErr, ix.ran = err, true
		ix.mu.Unlock()
		wait := time.Duration(0)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			ix.Log.Warn("embeddings: the endpoint failed; rows stay pending", "err", err, "retry in", backoff)
			wait, backoff = backoff, min(2*backoff, hi)
		case n == 0:
			wait, backoff = idle, lo
		default:
			backoff = lo
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	}
}

// Status reports progress and the last failure.
func (ix *Indexer) Status(ctx context.Context) (Status, error) {
	st := Status{Model: ix.Client.Model}
	ix.mu.Lock()
	if ix.lastErr != nil {
		st.LastError = ix.lastErr.Error()
	}
	c := ix.counted
	ix.mu.Unlock()
	if c.total >= statusReuseRows && time.Since(c.at) < statusReuse*c.took {
		st.Done, st.Total = c.done, c.total
		return st, nil
	}
	start := time.Now()
	var err error
	st.Done, st.Total, err = ix.Store.EmbeddingProgress(ctx, ix.Client.Model)
	if err == nil {
		ix.mu.Lock()
		ix.counted.done, ix.counted.total, ix.counted.at, ix.counted.took = st.Done, st.Total, time.Now(), time.Since(start)
		ix.mu.Unlock()
	}
	return st, err
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
