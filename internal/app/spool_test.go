package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// newWorker starts a real worker whose fallback spool lives in a fresh
// $XDG_RUNTIME_DIR, as `mneme hook` run with that environment computes it.
func newWorker(t *testing.T) *testutil.Server {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	srv := testutil.NewServer(t)
	if want := hookwire.FallbackSpoolDir(srv.DataDir); srv.Fallback.Dir != want {
		t.Fatalf("worker's fallback spool %s, the hook's %s", srv.Fallback.Dir, want)
	}
	return srv
}

// promptBody is a UserPromptSubmit without a prompt_id: every delivery of
// it is stored as one more prompt, so a duplicate send shows.
func promptBody(text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": "spool-session", "transcript_path": "", "cwd": "/tmp/spool-project",
		"hook_event_name": "UserPromptSubmit", "prompt": text,
	})
	return b
}

// appendPrompts spools prompts named prefix-000… as the hook does.
func appendPrompts(t *testing.T, sp hookwire.Spool, prefix string, n int) []string {
	t.Helper()
	var texts []string
	for i := range n {
		text := fmt.Sprintf("%s-%03d", prefix, i)
		if err := sp.Append("user-prompt-submit", promptBody(text)); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)
	}
	return texts
}

// storedPrompts lists the stored prompts' texts in id order.
func storedPrompts(t *testing.T, srv *testutil.Server) []string {
	t.Helper()
	var texts []string
	modelstest.Scan(t, srv.Store, &texts, `SELECT text FROM prompts ORDER BY id`)
	return texts
}

func samePrompts(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") == strings.Join(want, ",") {
		return
	}
	count := map[string]int{}
	for _, g := range got {
		count[g]++
	}
	for _, w := range want {
		if count[w] != 1 {
			t.Errorf("%s stored %d times, want once", w, count[w])
		}
	}
	t.Fatalf("stored prompts (%d) differ from the spooled ones (%d), in order:\n got %v\nwant %v", len(got), len(want), got, want)
}

// TestReplayFallbackSpool: events the hook put in the fallback spool (the
// data directory could not be written) are stored by the worker itself,
// after the data directory's spool, each once and in order, and both
// spools are left empty.
func TestReplayFallbackSpool(t *testing.T) {
	srv := newWorker(t)
	older := appendPrompts(t, srv.Spool, "main", 5)
	newer := appendPrompts(t, srv.Fallback, "fallback", 7)

	n, err := srv.ReplaySpool(context.Background())
	if err != nil || n != 12 {
		t.Fatalf("replay: %d sent, %v; want 12", n, err)
	}
	samePrompts(t, storedPrompts(t, srv), append(older, newer...))
	if srv.Spool.Pending() || srv.Fallback.Pending() {
		t.Error("a spool still holds events after the replay")
	}
	if n, err := srv.ReplaySpool(context.Background()); n != 0 || err != nil {
		t.Errorf("second replay: %d sent, %v; want nothing", n, err)
	}
}

// TestReplayFallbackWaitsForHook: while a hook replays the data
// directory's spool (it holds that spool's replay lock), the worker leaves
// the fallback alone: replaying it then would store newer events before
// older ones.
func TestReplayFallbackWaitsForHook(t *testing.T) {
	srv := newWorker(t)
	older := appendPrompts(t, srv.Spool, "main", 3)
	newer := appendPrompts(t, srv.Fallback, "fallback", 3)

	lock, err := os.OpenFile(filepath.Join(srv.Spool.Dir, ".replay.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := hookwire.LockFile(lock, true); err != nil {
		t.Fatal(err)
	}
	if n, err := srv.ReplaySpool(context.Background()); n != 0 || err != nil {
		t.Fatalf("replay while a hook holds the spool: %d sent, %v; want nothing", n, err)
	}
	if got := storedPrompts(t, srv); len(got) != 0 {
		t.Fatalf("stored while the older spool was busy: %v", got)
	}
	hookwire.UnlockFile(lock)
	if n, err := srv.ReplaySpool(context.Background()); n != 6 || err != nil {
		t.Fatalf("replay: %d sent, %v; want 6", n, err)
	}
	samePrompts(t, storedPrompts(t, srv), append(older, newer...))
}

// TestReplayFallbackRacingHooks: hooks keep spooling to the fallback while
// the worker's watch loop and hooks replay it at the same time (a hook
// posts over HTTP, as `mneme hook` does): every event is stored exactly
// once and in the order it was spooled.
func TestReplayFallbackRacingHooks(t *testing.T) {
	srv := newWorker(t)
	const n = 150
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Watch(ctx, 5*time.Millisecond)

	post := func(slug string, body []byte) error {
		resp, err := srv.SocketClient().Post(testutil.SocketURL+"/api/hooks/"+slug, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("worker answered %d", resp.StatusCode)
		}
		return nil
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	busy, sentByHook := 0, 0
	wg.Add(1)
	go func() { // a hook replaying the fallback, again and again
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := srv.Fallback.Replay(post)
			if err != nil {
				t.Errorf("hook replay: %v", err)
				return
			}
			sentByHook += res.Sent
			if res.Busy {
				busy++
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var want []string
	for i := range n { // hooks spooling, one event at a time
		want = append(want, appendPrompts(t, srv.Fallback, fmt.Sprintf("race-%03d", i), 1)...)
		if i%10 == 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()
	// Wait for every event stored and the spool empty, not for Pending
	// alone: it reads the directory, then each file's size, so a rotation
	// (pending.jsonl renamed to a replay file) between the two can make it
	// say false while events wait (seen once under load, 1.5 s in).
	for deadline := time.Now().Add(60 * time.Second); len(storedPrompts(t, srv)) < len(want) || srv.Fallback.Pending(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the watch loop did not drain the fallback spool: %d of %d stored", len(storedPrompts(t, srv)), len(want))
		}
	}
	cancel()
	samePrompts(t, storedPrompts(t, srv), want)
	t.Logf("%d events: %d sent by the racing hook, the rest by the worker; the hook found the worker replaying %d times", n, sentByHook, busy)
}

// TestFallbackSpoolNotPrivate: a fallback directory that others may write
// (someone made it first in a shared temp directory) is not replayed: its
// events could be anyone's.
func TestFallbackSpoolNotPrivate(t *testing.T) {
	srv := newWorker(t)
	appendPrompts(t, srv.Fallback, "planted", 2)
	if err := os.Chmod(srv.Fallback.Dir, 0o777); err != nil {
		t.Fatal(err)
	}
	n, err := srv.ReplaySpool(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not a private directory") || n != 0 {
		t.Fatalf("replay of a shared fallback: %d sent, %v; want a refusal", n, err)
	}
	if got := storedPrompts(t, srv); len(got) != 0 {
		t.Fatalf("stored from a shared fallback: %v", got)
	}
}

// TestFallbackSpoolPlanted: the worker uses the hook's own check
// (hookwire.CheckPrivateDir) before it replays the fallback spool: a directory
// of another user, a symbolic link to a directory elsewhere, and a
// group-writable one are not read, and their events not stored.
func TestFallbackSpoolPlanted(t *testing.T) {
	for _, kind := range []string{"other-user", "symlink", "group-writable"} {
		t.Run(kind, func(t *testing.T) {
			srv := newWorker(t)
			landed := srv.Fallback.Dir
			switch kind {
			case "other-user":
				if os.Getuid() != 0 {
					t.Skip("making a directory of another user needs root (os.Chown)")
				}
				appendPrompts(t, srv.Fallback, "planted", 2)
				if err := os.Chown(landed, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			case "symlink":
				landed = t.TempDir()
				appendPrompts(t, hookwire.Spool{Dir: landed}, "planted", 2)
				if err := os.Symlink(landed, srv.Fallback.Dir); err != nil {
					t.Fatal(err)
				}
			case "group-writable":
				appendPrompts(t, srv.Fallback, "planted", 2)
				os.Chmod(landed, 0o770)
			}
			n, err := srv.ReplaySpool(context.Background())
			if !errors.Is(err, hookwire.ErrNotPrivate) || n != 0 {
				t.Fatalf("replay of a planted fallback: %d sent, %v; want a refusal", n, err)
			}
			t.Logf("refused: %v", err)
			if got := storedPrompts(t, srv); len(got) != 0 {
				t.Fatalf("stored from a planted fallback: %v", got)
			}
			if !(hookwire.Spool{Dir: landed}).Pending() {
				t.Error("the planted events were taken out of their directory")
			}
		})
	}
}

// TestReplayQuarantinesRefusedEvent: the worker's own replay of the spool
// (at start, and every few seconds) sets aside an event it refuses for
// good, one the database refuses (a prompt whose number is taken), and
// stores the events behind it; /api/health counts it. Before, the replay
// stopped there, and every later event waited behind it.
func TestReplayQuarantinesRefusedEvent(t *testing.T) {
	srv := newWorker(t)
	before := appendPrompts(t, srv.Spool, "before", 3)
	if _, err := srv.ReplaySpool(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The session's counter left behind its prompts: its next prompt's
	// number is taken.
	modelstest.Exec(t, srv.Store, `UPDATE sessions SET prompt_counter = 1 WHERE claude_session_id = 'spool-session'`)
	if err := srv.Spool.Append("user-prompt-submit", promptBody("poison")); err != nil {
		t.Fatal(err)
	}
	var after []string
	for i := range 3 {
		text := fmt.Sprintf("after-%d", i)
		body := bytes.Replace(promptBody(text), []byte(`"spool-session"`), []byte(`"spool-other"`), 1)
		if err := srv.Spool.Append("user-prompt-submit", body); err != nil {
			t.Fatal(err)
		}
		after = append(after, text)
	}
	if _, err := srv.ReplaySpool(context.Background()); err != nil {
		t.Fatalf("replay stopped: %v", err)
	}
	if srv.Spool.Pending() {
		t.Error("the spool is not empty")
	}
	samePrompts(t, storedPrompts(t, srv), append(before, after...))
	if n, _ := srv.Spool.Rejected(); n != 1 {
		t.Errorf("%d events set aside, want the poison", n)
	}
	var h struct{ Quarantined struct{ Events int } }
	srv.GetJSON(t, "/api/health", &h)
	if h.Quarantined.Events != 1 {
		t.Errorf("/api/health counts %d set aside, want 1", h.Quarantined.Events)
	}
}
