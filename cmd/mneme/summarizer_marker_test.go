package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestHookIgnoresSummarizerRuns: inside the claude -p run of mneme's own
// summarizer (MNEME_SUMMARIZER=1) the hook answers Continue and records
// nothing, so a summary never captures itself.
func TestHookIgnoresSummarizerRuns(t *testing.T) {
	srv := testutil.NewServer(t)
	t.Setenv("MNEME_SUMMARIZER", "1")
	t.Setenv("MNEME_NO_AUTOSTART", "1")
	for _, raw := range testutil.FixtureEvents(t) {
		var stdout, stderr bytes.Buffer
		code := run([]string{"--port", strconv.Itoa(srv.Port), "--data-dir", srv.DataDir, "hook", exportSlug(t, raw)}, bytes.NewReader(raw), &stdout, &stderr)
		if code != 0 || strings.TrimSpace(stdout.String()) != `{"continue":true,"suppressOutput":true}` {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
		}
	}
	c, err := srv.Store.Counts(context.Background())
	if err != nil || c.Sessions+c.Prompts+c.Observations+c.Summaries != 0 {
		t.Errorf("recorded %+v (%v)", c, err)
	}
}
