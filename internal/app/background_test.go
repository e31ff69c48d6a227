package app_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// What the store's background loop fails to do is seen: counted, with its
// last error, in /api/health, and logged by the worker's watch. On SQLite
// the search indexer fails while its table is away; on PostgreSQL the
// event listener's connection is terminated.
func TestBackgroundErrorsSeen(t *testing.T) {
	buf := &testutil.SyncBuffer{}
	srv := testutil.NewServer(t, func(o *app.Options) { o.Log = slog.New(slog.NewTextHandler(buf, nil)) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Watch(ctx, 50*time.Millisecond)
	errorsOf := func(h api.Health) models.BackgroundErrors {
		if h.Listener != nil {
			return h.Listener.BackgroundErrors
		}
		if h.Indexer != nil {
			return h.Indexer.BackgroundErrors
		}
		t.Fatalf("health shows neither the listener nor the indexer")
		return models.BackgroundErrors{}
	}
	var h api.Health
	srv.GetJSON(t, "/api/health", &h)
	if e := errorsOf(h); e.Errors != 0 {
		t.Fatalf("a new worker's health shows background errors: %+v", e)
	}
	logLine := "the search indexer failed"
	if srv.Store.Postgres() {
		logLine = "the event listener failed"
		// The listener connects with the first OnCommit: wait for it.
		for deadline := time.Now().Add(30 * time.Second); srv.Store.ListenerStats().Connects < 1; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the listener never connected")
			}
		}
		modelstest.Exec(t, srv.Store, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'mneme-listen' AND datname = current_database()`)
	} else {
		modelstest.Exec(t, srv.Store, `ALTER TABLE observations_fts RENAME TO observations_fts_away`)
		defer modelstest.Exec(t, srv.Store, `ALTER TABLE observations_fts_away RENAME TO observations_fts`)
		srv.Hook(t, "post-tool-use", map[string]any{"session_id": "bg-errors", "hook_event_name": "PostToolUse", "cwd": "/tmp/bg",
			"tool_name": "Bash", "tool_use_id": "t1", "tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "a"}})
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		srv.GetJSON(t, "/api/health", &h)
		if e := errorsOf(h); e.Errors > 0 && e.LastError != "" && strings.Contains(buf.String(), logLine) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute, health shows %+v; the log: %s", errorsOf(h), buf.String())
		}
	}
}
