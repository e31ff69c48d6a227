package handlers_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestHealthPostgresHidesCredentials: a worker on PostgreSQL says so in
// its health, with the server and database it stores in, but never the
// user or password of its database URL: whoever holds the worker's secret
// need not hold the database's.
func TestHealthPostgresHidesCredentials(t *testing.T) {
	t.Parallel()
	pgtest.PostgresOnly(t)
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	// The test cluster trusts loopback connections: any password does.
	u.User = url.UserPassword("postgres", "hunter2-db-password")
	srv := testutil.NewServer(t, func(o *app.Options) { o.DatabaseURL = u.String() })
	status, body := srv.Get(t, "/api/health")
	if status != 200 {
		t.Fatalf("health: %d %s", status, body)
	}
	for _, secret := range []string{"hunter2", "postgres@", "postgres:"} {
		if strings.Contains(string(body), secret) {
			t.Errorf("health shows %q of the database URL: %s", secret, body)
		}
	}
	var h struct {
		Backend, Database string
		Listener          *models.ListenerStats
	}
	srv.GetJSON(t, "/api/health", &h)
	if h.Backend != "postgres" || h.Database != u.Host+u.Path {
		t.Errorf("health says backend %q database %q, want postgres %s%s", h.Backend, h.Database, u.Host, u.Path)
	}
	// The replica's listener is there, and follows what is written.
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "health-listener", "hook_event_name": "UserPromptSubmit", "prompt": "hello", "prompt_id": "p1", "cwd": "/tmp/h"})
	last, _ := srv.Store.LastEventID(t.Context())
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		srv.GetJSON(t, "/api/health", &h)
		if h.Listener != nil && h.Listener.LastID >= last && h.Listener.Connects >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health's listener %+v never reached event %d", h.Listener, last)
		}
	}
}
