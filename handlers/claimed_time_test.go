package handlers_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// Issue 36: a person's mneme_time is a claim. One within the replay
// window (a spooled event) is kept; one from 2099 or 1900 is stored at the
// time the worker received it, so it neither sits first in everyone's
// recent sessions nor escapes retention. Nothing of the event is lost.
func TestClaimedTimeIsBounded(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	alice := createToken(t, srv, "alice")
	now := time.Now().UTC()
	cases := []struct {
		sid     string
		claimed time.Time
		header  http.Header
		import_ bool
		keep    bool
	}{
		{"clock-2099", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), as(alice.Token), false, false},
		{"clock-1900", time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), as(alice.Token), false, false},
		{"clock-owner-2099", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), nil, false, false},
		{"clock-import-2099", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), as(alice.Token), true, false},
		{"clock-spooled", now.Add(-3 * 24 * time.Hour).Truncate(time.Second), as(alice.Token), false, true},
		{"clock-skew", now.Add(hookwire.MaxClockSkew / 2).Truncate(time.Second), as(alice.Token), false, true},
		{"clock-import-old", now.Add(-400 * 24 * time.Hour).Truncate(time.Second), nil, true, true},
	}
	for _, c := range cases {
		for _, ev := range []struct {
			slug  string
			extra map[string]any
		}{
			{"session-start", map[string]any{"source": "startup"}},
			{"user-prompt-submit", map[string]any{"prompt": "a prompt of " + c.sid, "prompt_id": c.sid + "-p1"}},
		} {
			payload := map[string]any{"session_id": c.sid, "cwd": "/src/clock", "mneme_time": c.claimed}
			if c.import_ {
				payload["mneme_import"] = true
			}
			for k, v := range ev.extra {
				payload[k] = v
			}
			if status, body := sendAs(t, srv, c.header, ev.slug, payload); status != http.StatusOK {
				t.Fatalf("%s of %s: %d %s", ev.slug, c.sid, status, body)
			}
		}
	}
	after := time.Now().UTC()
	for _, c := range cases {
		t.Run(c.sid, func(t *testing.T) {
			s := sessionRow(t, srv, c.sid)
			var p models.Prompt
			modelstest.Scan(t, srv.Store, &p, `SELECT * FROM prompts WHERE session_id = ? ORDER BY id LIMIT 1`, s.ID)
			if p.Text == "" {
				t.Fatalf("%s: its prompt was lost", c.sid)
			}
			for what, at := range map[string]time.Time{"session": s.StartedAt, "prompt": p.CreatedAt} {
				switch {
				case c.keep && !at.Equal(c.claimed):
					t.Errorf("%s: the %s is dated %s, the claim %s was within the window", c.sid, what, at, c.claimed)
				case !c.keep && (at.Before(now.Add(-time.Second)) || at.After(after.Add(time.Second))):
					t.Errorf("%s: the %s is dated %s, not when it was received (%s…%s)", c.sid, what, at, now, after)
				}
			}
		})
	}
}
