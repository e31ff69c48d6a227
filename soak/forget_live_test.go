//go:build unix

package soak

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// liveSegment is what a session sent between two of its forgets.
type liveSegment struct {
	toolUseIDs []string
	promptIDs  []string
}

// forgetAsk is a session, paused, asking for its forget; last is its ask
// after its last event (only its segment is checked then).
type forgetAsk struct {
	session string
	seg     liveSegment
	last    bool
	done    chan struct{}
}

// TestForgetLiveSessions forgets live sessions while 4 sessions ingest
// through the real hook command (the built mneme-hook): each session is
// forgotten twice while it runs, the others going on meanwhile. Every
// event sent after a forget must be stored (its session recorded again as
// a new row), nothing may be quarantined, and the spool must end empty
// (issue 21: the first event after a forget answered 500, the hook
// spooled it, and the spool's replay stopped there, holding up every
// later event of every session).
func TestForgetLiveSessions(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	p := startWorker(t, dir)
	const sessions, forgets = 4, 2
	perSession := scale(30, 300)

	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	asks := make(chan forgetAsk)
	var wg sync.WaitGroup
	for s := range sessions {
		id := fmt.Sprintf("soak-live-%d", s)
		events := Session(SessionSpec{SessionID: id, Cwd: "/tmp/soak-live/" + id, Events: perSession})
		wg.Add(1)
		go func() {
			defer wg.Done()
			ask := func(seg liveSegment, last bool) {
				done := make(chan struct{})
				asks <- forgetAsk{session: id, seg: seg, last: last, done: done}
				<-done
			}
			var seg liveSegment
			next := 1
			for i, ev := range events {
				// Forget points spread over the session, shifted by s
				// away from the other sessions'.
				if next <= forgets && i == next*len(events)/(forgets+1)+s {
					ask(seg, false)
					seg, next = liveSegment{}, next+1
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				r := Hook(ctx, bin, p.Port, dir, ev.Slug, ev.Body)
				cancel()
				if r.Err != nil || !strings.HasPrefix(strings.TrimSpace(string(r.Stdout)), "{") {
					fail("%s event %d (%s): %v, stdout %q, stderr %s", id, i, ev.Slug, r.Err, r.Stdout, r.Stderr)
				}
				if ev.ToolUseID != "" {
					seg.toolUseIDs = append(seg.toolUseIDs, ev.ToolUseID)
				}
				if ev.Slug == "user-prompt-submit" {
					seg.promptIDs = append(seg.promptIDs, fmt.Sprintf("%s-p%04d", id, ev.Prompt))
				}
			}
			ask(seg, true)
		}()
	}
	go func() { wg.Wait(); close(asks) }()

	db := openDB(t, dir)
	forgotten, sentAfter := 0, 0
	seen := map[string]int{} // asks per session
	for a := range asks {
		// What the session sent since its previous forget is stored
		// (before its first forget too: the baseline).
		if missing := waitStored(db, a.session, a.seg, 60*time.Second); missing != "" {
			fail("%s, after forget %d: not stored: %s", a.session, seen[a.session], missing)
		}
		if seen[a.session] > 0 {
			sentAfter += len(a.seg.toolUseIDs) + len(a.seg.promptIDs)
		}
		seen[a.session]++
		if !a.last {
			if status, body := forgetSession(p, a.session); status != http.StatusOK {
				fail("forget %s: %d %s", a.session, status, body)
			}
			forgotten++
		}
		close(a.done)
	}
	if forgotten != sessions*forgets || sentAfter == 0 {
		t.Errorf("%d forgets done (want %d), %d events checked after them", forgotten, sessions*forgets, sentAfter)
	}
	t.Logf("%d forgets of live sessions; %d prompts and tool calls sent after them, all stored", forgotten, sentAfter)

	// The spool ends empty, and nothing was set aside.
	waitFor(t, 60*time.Second, "the spool to be empty", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "spool", "*.jsonl"))
		return len(m) == 0
	})
	rejected, _ := os.ReadDir(filepath.Join(dir, "spool", "rejected"))
	for _, e := range rejected {
		b, _ := os.ReadFile(filepath.Join(dir, "spool", "rejected", e.Name()))
		t.Errorf("quarantined: %s", b)
	}
	for _, f := range failures {
		t.Error(f)
	}
	var rows int
	db.QueryRow(`SELECT COUNT(*) FROM sessions WHERE claude_session_id LIKE 'soak-live-%'`).Scan(&rows)
	if rows != sessions {
		t.Errorf("%d rows of the live sessions, want one each (the row after the last forget)", rows)
	}
}

// waitStored waits until every tool call and prompt of seg is stored in
// claudeID's session, and returns what is still missing at the deadline.
func waitStored(db *sql.DB, claudeID string, seg liveSegment, timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	for {
		missing := missingRows(db, claudeID, seg)
		if missing == "" || time.Now().After(deadline) {
			return missing
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func missingRows(db *sql.DB, claudeID string, seg liveSegment) string {
	have := map[string]bool{}
	for _, q := range []string{
		`SELECT o.tool_use_id FROM observations o JOIN sessions s ON s.id = o.session_id WHERE s.claude_session_id = ? AND o.tool_use_id IS NOT NULL`,
		`SELECT p.prompt_id FROM prompts p JOIN sessions s ON s.id = p.session_id WHERE s.claude_session_id = ?`,
	} {
		rows, err := db.Query(q, claudeID)
		if err != nil {
			return err.Error()
		}
		for rows.Next() {
			var id string
			rows.Scan(&id)
			have[id] = true
		}
		rows.Close()
	}
	var missing []string
	for _, id := range append(append([]string{}, seg.toolUseIDs...), seg.promptIDs...) {
		if !have[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d: %v", len(missing), len(seg.toolUseIDs)+len(seg.promptIDs), missing)
}

// forgetSession forgets Claude Code session claudeID through the API, as
// the viewer and `mneme forget` do.
func forgetSession(p *Proc, claudeID string) (int, string) {
	req, _ := http.NewRequest(http.MethodDelete, p.URL+"/api/sessions/"+url.PathEscape(claudeID), nil)
	p.Authorize(req)
	resp, err := (&http.Client{Timeout: 120 * time.Second}).Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
