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

// countsCache holds the store's counts for two seconds.
type countsCache struct {
	sync.Mutex
	at     time.Time
	counts models.Counts
}

// ShowHealth answers fast: counts are cached for two seconds. The viewer
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
	if time.Since(cache.at) > 2*time.Second {
		if counts, err := h.Store.Counts(c.UserContext()); err == nil {
			cache.counts, cache.at = counts, time.Now()
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
