package handlers

import (
	"context"
	"net/url"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web/auth"
)

var pid = os.Getpid()

// countsCache holds the store's counts for a while (see countsFresh).
type countsCache struct {
	sync.Mutex
	at     time.Time
	took   time.Duration // how long counting took
	counts models.Counts
}

// countsFresh reports whether counts taken at, which took took to count,
// may still be served at now: for two seconds, or for a hundred times as
// long as they took to count, whichever is longer. A small store is
// counted again every two seconds; a million rows (counting takes about
// 110 ms of CPU) at most every 11 s, so a viewer polling /api/health
// every 5 s does not keep the worker counting.
func countsFresh(at time.Time, took time.Duration, now time.Time) bool {
	return now.Sub(at) <= max(2*time.Second, 100*took)
}

// ShowHealth answers fast: counts are cached (countsFresh). The viewer
// polls it every few seconds for the status banner.
//
// Without credentials (over TCP: no secret, no login cookie) it says only
// that mneme is there and whether it is well: nothing about what it holds.
func (h *Handler) ShowHealth(c *fiber.Ctx) error {
	if auth.LevelOf(c) == auth.None {
		status := "ok"
		if h.Status() != "" {
			status = "degraded"
		}
		return c.JSON(api.PublicHealth{Service: "mneme", Status: status})
	}
	cache := &h.counts
	cache.Lock()
	if !countsFresh(cache.at, cache.took, time.Now()) {
		start := time.Now()
		if counts, err := h.Store.Counts(c.UserContext()); err == nil {
			cache.counts, cache.at, cache.took = counts, time.Now(), time.Since(start)
		}
	}
	counts := cache.counts
	cache.Unlock()
	out := api.Health{
		Service:       "mneme",
		Status:        "ok",
		Version:       h.Build.Version,
		Commit:        h.Build.Commit,
		CommitDate:    h.Build.Date,
		PID:           pid,
		UptimeSeconds: time.Since(h.Started).Seconds(),
		SchemaVersion: h.Store.SchemaVersion(),
		Backend:       h.Store.Dialect(),
		Database:      databaseName(h.Store),
		Counts:        counts,
		Goroutines:    runtime.NumGoroutine(),
	}
	out.StreamClients = h.Broker.Clients()
	out.Quarantined = h.Quarantined()
	if h.Store.Postgres() {
		ls := h.Store.ListenerStats()
		ls.LastError = h.clean(ls.LastError)
		out.Listener = &ls
	} else {
		is := h.Store.IndexerStats()
		is.LastError = h.clean(is.LastError)
		out.Indexer = &is
	}
	out.Embeddings = h.embeddingsHealth(c.UserContext())
	if p := h.Status(); p != "" {
		out.Status, out.Problem = "degraded", p
	}
	return c.JSON(out)
}

// databaseName is where a PostgreSQL store is, host:port/name, for health:
// without the user and password the URL may carry (a viewer shows health
// to whoever holds the secret, who need not hold the database's).
func databaseName(s *models.Store) string {
	if !s.Postgres() {
		return ""
	}
	u, err := url.Parse(s.URL())
	if err != nil {
		return ""
	}
	return u.Host + u.Path
}

// clean passes s through the privacy pipeline in force: text the handlers
// show that no event went through (a database's error message).
func (h *Handler) clean(s string) string {
	if s == "" {
		return s
	}
	return h.Settings.Policy().Clean(s)
}

// embeddingsHealth is the embeddings' state, its error redacted.
func (h *Handler) embeddingsHealth(ctx context.Context) api.EmbeddingsHealth {
	st, err := h.Embed.Status(ctx)
	out := api.EmbeddingsHealth{State: st.State, Model: st.Model, Embedded: st.Embedded, Total: st.Total, LastError: h.clean(st.LastError)}
	if err != nil && out.LastError == "" {
		out.LastError = h.clean(err.Error())
	}
	return out
}
