//go:build unix

package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// burstEvents are n PostToolUse events spread over 16 sessions, each with a
// unique tool_use_id.
func burstEvents(n int) []Event {
	out := make([]Event, n)
	for i := range out {
		sid := fmt.Sprintf("burst-%02d", i%16)
		id := fmt.Sprintf("toolu_burst_%06d", i)
		b, _ := json.Marshal(map[string]any{
			"session_id": sid, "cwd": "/home/dev/projects/burst", "hook_event_name": "PostToolUse",
			"transcript_path": "/nonexistent.jsonl", "tool_name": "Bash", "tool_use_id": id,
			"tool_input":    map[string]any{"command": fmt.Sprintf("echo %d", i)},
			"tool_response": map[string]any{"stdout": fmt.Sprintf("%d\n", i), "stderr": "", "interrupted": false},
			"duration_ms":   3,
		})
		out[i] = Event{Slug: "post-tool-use", Body: b, ToolUseID: id}
	}
	return out
}

// TestKillDuringBurst kills the worker with SIGKILL in the middle of a burst
// from 16 concurrent clients. Every event acknowledged with 2xx must be in
// the database after a restart, none twice; replaying every event (as the
// hooks' spool would) then leaves exactly one row per event.
func TestKillDuringBurst(t *testing.T) {
	parallel(t)
	n := scale(2000, 10000)
	dir := t.TempDir()
	p := startWorker(t, dir)
	events := burstEvents(n)

	var sent atomic.Int64
	client := p.NewClient(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	counting := &Client{BaseURL: client.BaseURL, HTTP: client.HTTP, Token: client.Token, Path: func(ev Event) string {
		sent.Add(1)
		return "/api/hooks/" + ev.Slug
	}}
	killed := make(chan time.Time, 1)
	go func() {
		for sent.Load() < int64(n/3) {
			time.Sleep(time.Millisecond)
		}
		p.Kill()
		killed <- time.Now()
	}()
	outcomes := counting.Burst(ctx, events, 16)
	<-killed

	acked, failed := 0, 0
	for _, o := range outcomes {
		switch {
		case o.Err == nil && o.Status/100 == 2:
			acked++
		case o.Err == nil:
			t.Fatalf("event %d: unexpected status %d", o.Index, o.Status)
		default:
			failed++
		}
	}
	t.Logf("burst of %d from 16 clients: %d acknowledged before the kill, %d failed after it", n, acked, failed)
	if acked == 0 || failed == 0 {
		t.Fatalf("the kill did not land mid-burst (acked %d, failed %d)", acked, failed)
	}

	// After the restart: every ack is there, nothing twice.
	p2 := restart(t, p)
	p2.Stop()
	db := openDB(t, dir)
	integrity(t, db)
	ids := toolUseIDs(t, db)
	if d := duplicates(ids); len(d) > 0 {
		t.Fatalf("%d tool_use_ids stored twice: %v", len(d), d[:min(len(d), 10)])
	}
	lost := 0
	for _, o := range outcomes {
		if o.Err == nil && ids[events[o.Index].ToolUseID] == 0 {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d acknowledged events are missing after restart", lost)
	}
	t.Logf("after restart: %d rows for %d acknowledged events (the rest were in flight at the kill)", len(ids), acked)
	db.Close()

	// Replay everything (acked or not), as clients retrying would: exactly
	// one row per event.
	p3 := restart(t, p)
	again := p3.NewClient(10*time.Second).Burst(ctx, events, 16)
	for _, o := range again {
		if o.Err != nil || o.Status != http.StatusOK {
			t.Fatalf("replay of event %d: %d %v", o.Index, o.Status, o.Err)
		}
	}
	p3.Stop()
	db = openDB(t, filepath.Clean(dir))
	ids = toolUseIDs(t, db)
	if len(ids) != n {
		t.Fatalf("after replaying all: %d distinct tool_use_ids, want %d", len(ids), n)
	}
	if d := duplicates(ids); len(d) > 0 {
		t.Fatalf("duplicates after replay: %v", d[:min(len(d), 10)])
	}
	var count int
	db.QueryRow(`SELECT COUNT(*) FROM observations`).Scan(&count)
	if count != n {
		t.Fatalf("%d observation rows, want %d", count, n)
	}
}
