package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestStaleBadges: in real Chromium, a session whose file changed after
// it was recorded shows "changed since" on the observation's file and in
// the session's files list; one whose file is gone, "gone since"; an
// untouched file, no badge.
func TestStaleBadges(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	dir := t.TempDir()
	for i, name := range []string{"changed.go", "gone.go", "same.go"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("package x\n"), 0o600)
		srv.Hook(t, "post-tool-use", map[string]any{"session_id": "stale", "cwd": dir, "hook_event_name": "PostToolUse",
			"tool_name": "Write", "tool_input": map[string]any{"file_path": p, "content": "package x\n"},
			"tool_response": map[string]any{"type": "create"}, "tool_use_id": fmt.Sprint("w", i)})
	}
	os.WriteFile(filepath.Join(dir, "changed.go"), []byte("package y // edited by hand\n"), 0o600)
	os.Remove(filepath.Join(dir, "gone.go"))
	sess, err := srv.Store.SessionByClaudeID(t.Context(), "stale")
	if err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, 1280, 800)
	b.login(t, srv)
	b.do(t, chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", srv.URL, sess.ID)), chromedp.WaitVisible(chromedp.CSS("#timeline")))
	b.waitFor(t, "the badges", `document.querySelectorAll(".badge-stale").length >= 4`, 10*time.Second)
	badges := eval[[]string](t, b, `Array.from(document.querySelectorAll(".badge-stale")).map(e => e.closest("li").querySelector("code").textContent.split("/").pop() + ": " + e.textContent)`)
	want := map[string]int{"changed.go: changed since": 2, "gone.go: gone since": 2}
	got := map[string]int{}
	for _, s := range badges {
		got[s]++
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("badges %q, want two each of %v", badges, want)
	}
	// The feed's own rows (the event log's, unfiltered) carry them too.
	b.do(t, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("main")))
	b.waitFor(t, "the feed's badges", `document.querySelectorAll(".badge-stale").length >= 2`, 10*time.Second)
	if n := eval[int](t, b, `document.querySelectorAll(".badge-stale").length`); n != 2 {
		t.Errorf("the feed shows %d stale badges, want 2 (changed.go, gone.go)", n)
	}
	if dir := os.Getenv("MNEME_SCREENSHOTS"); dir != "" {
		shoot(t, b, fmt.Sprintf("%s/sessions/%d", srv.URL, sess.ID), "#timeline", filepath.Join(dir, "session-stale.png"))
	}
}
