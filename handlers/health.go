package handlers

import (
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web/auth"
)

// Health is the body of GET /api/health.
type Health struct {
	Service       string        `json:"service"`
	Status        string        `json:"status"`
	Problem       string        `json:"problem,omitempty"`
	Version       string        `json:"version"`
	PID           int           `json:"pid"`
	UptimeSeconds float64       `json:"uptimeSeconds"`
	SchemaVersion int           `json:"schemaVersion"`
	Counts        models.Counts `json:"counts"`
	StreamClients int           `json:"streamClients"`
	// Goroutines is runtime.NumGoroutine(), for the soak tests' leak check.
	Goroutines int `json:"goroutines"`
}

// PublicHealth is GET /api/health's body for a request without
// credentials.
type PublicHealth struct {
	Service string `json:"service"`
	Status  string `json:"status"`
}

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
		if h.Status != nil && h.Status() != "" {
			status = "degraded"
		}
		return c.JSON(PublicHealth{Service: "mneme", Status: status})
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
	out := Health{
		Service:       "mneme",
		Status:        "ok",
		Version:       h.Version,
		PID:           pid,
		UptimeSeconds: time.Since(h.Started).Seconds(),
		SchemaVersion: models.SchemaVersion(),
		Counts:        counts,
		Goroutines:    runtime.NumGoroutine(),
	}
	if h.Broker != nil {
		out.StreamClients = h.Broker.Clients()
	}
	if h.Status != nil {
		if p := h.Status(); p != "" {
			out.Status, out.Problem = "degraded", p
		}
	}
	return c.JSON(out)
}
