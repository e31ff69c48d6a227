//go:build unix

package soak

import (
	"fmt"
	"testing"
	"time"
)

// TestWorkerDownMidSession drives a 500-event Claude Code session through
// the built `mneme hook`, with the worker killed for the middle of it and
// auto-start disabled: the hooks must answer at once and spool, and after
// the worker is back every event is stored once, in order.
func TestWorkerDownMidSession(t *testing.T) {
	parallel(t)
	const total = 500
	dir := t.TempDir()
	p := startWorker(t, dir)
	events := Session(SessionSpec{SessionID: "down-mid-session", Cwd: "/home/dev/projects/downmid", Events: total})
	downAt, upAt := total*3/10, total*7/10

	var slowest time.Duration
	var slowestAt int
	var up, down []time.Duration
	for i, ev := range events {
		switch i {
		case downAt:
			p.Kill()
		case upAt:
			p = restart(t, p)
		}
		r := hook(t, p.Port, dir, ev.Slug, ev.Body, "MNEME_NO_AUTOSTART=1", "MNEME_DEBUG=1")
		if i >= downAt && i < upAt {
			down = append(down, r.Elapsed)
		} else {
			up = append(up, r.Elapsed)
		}
		if r.Elapsed > slowest {
			slowest, slowestAt = r.Elapsed, i
		}
		if i >= downAt && i < upAt && r.Elapsed > 10*time.Second {
			t.Errorf("event %d with the worker down took %s: Claude Code would stall", i, r.Elapsed)
		}
	}
	t.Logf("mneme hook spawn→exit, worker up:   %s", Summarize(up))
	t.Logf("mneme hook spawn→exit, worker down: %s", Summarize(down))
	t.Logf("slowest hook: %s (event %d; worker down for events %d-%d)", slowest, slowestAt, downAt, upAt-1)
	p.Stop()

	db := openDB(t, dir)
	integrity(t, db)
	ids := toolUseIDs(t, db)
	if d := duplicates(ids); len(d) > 0 {
		t.Fatalf("stored twice: %v", d)
	}
	// Observations in tool order, each with its prompt number.
	rows, err := db.Query(`SELECT tool_use_id, prompt_number FROM observations ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var stored []Event
	for rows.Next() {
		var ev Event
		if err := rows.Scan(&ev.ToolUseID, &ev.Prompt); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, ev)
	}
	rows.Close()
	var want []Event
	for _, ev := range events {
		if ev.ToolUseID != "" {
			want = append(want, ev)
		}
	}
	if len(stored) != len(want) {
		t.Fatalf("%d observations stored, want %d", len(stored), len(want))
	}
	for i := range want {
		if stored[i].ToolUseID != want[i].ToolUseID || stored[i].Prompt != want[i].Prompt {
			t.Fatalf("observation %d: got %s (prompt %d), want %s (prompt %d): out of order",
				i, stored[i].ToolUseID, stored[i].Prompt, want[i].ToolUseID, want[i].Prompt)
		}
	}
	// Prompts numbered in order, each with its own prompt_id.
	prompts := 0
	rows, err = db.Query(`SELECT number, prompt_id FROM prompts ORDER BY number`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n int
		var pid string
		rows.Scan(&n, &pid)
		prompts++
		if want := fmt.Sprintf("down-mid-session-p%04d", n); n != prompts || pid != want {
			t.Fatalf("prompt #%d is number %d with prompt_id %s, want %d / %s", prompts, n, pid, prompts, want)
		}
	}
	rows.Close()
	var wantPrompts int
	for _, ev := range events {
		if ev.Slug == "user-prompt-submit" {
			wantPrompts++
		}
	}
	if prompts != wantPrompts {
		t.Fatalf("%d prompts stored, want %d", prompts, wantPrompts)
	}
	var status string
	db.QueryRow(`SELECT status FROM sessions WHERE claude_session_id = ?`, "down-mid-session").Scan(&status)
	if status != "completed" {
		t.Fatalf("session status %q, want completed", status)
	}
	t.Logf("all %d events stored once and in order: %d observations, %d prompts", total, len(stored), prompts)
}
