package handlers_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// timeTag is a <time> element: its datetime attribute and its text.
var timeTag = regexp.MustCompile(`<time[^>]*\sdatetime="([^"]+)"[^>]*>([^<]*)</time>`)

// monthDay is a date written with a month's name ("Jan 2"), a shape the
// viewer no longer uses.
var monthDay = regexp.MustCompile(`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}\b`)

// TestPagesWriteDatesOneWay: every page writes each moment in one of the
// viewer's shapes (views/when.go), in local time, inside a <time> whose
// datetime attribute is RFC 3339 and the same moment: 2026-11-28 14:05,
// or 14:05 for a moment of today, or the day alone. Rows of today and of
// days before are both seen; no date is written with a month's name.
func TestPagesWriteDatesOneWay(t *testing.T) {
	t.Parallel()
	srv := seeded(t)
	old := time.Now().Add(-3 * 24 * time.Hour).Truncate(time.Second)
	for _, ev := range []struct {
		slug  string
		extra map[string]any
	}{
		{"session-start", map[string]any{"source": "startup"}},
		{"user-prompt-submit", map[string]any{"prompt": "an ancient prompt about dates", "prompt_id": "old-p1"}},
		{"post-tool-use", map[string]any{"prompt_id": "old-p1", "tool_name": "Bash", "tool_use_id": "toolu_old",
			"tool_input": map[string]any{"command": "echo ancient"}, "tool_response": map[string]any{"stdout": "ancient", "stderr": ""}}},
	} {
		payload := map[string]any{"session_id": "old-dates", "cwd": "/tmp/notes-app", "mneme_time": old, "mneme_import": true, "transcript_path": ""}
		for k, v := range ev.extra {
			payload[k] = v
		}
		srv.Hook(t, ev.slug, payload)
	}
	if status, b := srv.Do(t, http.MethodPost, "/api/memories", `{"project":"notes-app","kind":"decision","text":"keep the notes in markdown"}`, nil); status != 200 {
		t.Fatalf("remember: %d %s", status, b)
	}
	start := time.Now()
	seen := map[string]bool{}
	for _, path := range []string{"/", "/sessions", "/sessions/1", "/sessions/old-dates", "/search?q=notes", "/search?q=ancient",
		"/memory?project=notes-app", "/forget/session/1"} {
		status, body := getPage(t, srv, path)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", path, status)
		}
		tags := timeTag.FindAllStringSubmatch(body, -1)
		if len(tags) == 0 {
			t.Errorf("%s: no <time>", path)
		}
		for _, m := range tags {
			at, err := time.Parse(time.RFC3339, m[1])
			if err != nil {
				t.Errorf("%s: datetime=%q is not RFC 3339", path, m[1])
				continue
			}
			local, text := at.Local(), html.UnescapeString(strings.TrimSpace(m[2]))
			today := local.Format("2006-01-02") == start.Format("2006-01-02") || local.Format("2006-01-02") == time.Now().Format("2006-01-02")
			switch {
			case text == local.Format("2006-01-02 15:04"):
				seen["date and time"] = true
			case text == local.Format("15:04") && today:
				seen["time of today"] = true
			case text == local.Format("2006-01-02"):
				seen["day"] = true
			default:
				t.Errorf("%s: <time datetime=%q> says %q, none of the viewer's shapes of %s", path, m[1], text, local)
			}
		}
		if d := monthDay.FindString(stripTags(body)); d != "" {
			t.Errorf("%s: a date with a month's name: %q", path, d)
		}
	}
	for _, shape := range []string{"date and time", "time of today", "day"} {
		if !seen[shape] {
			t.Errorf("no page wrote a %s", shape)
		}
	}
}

// stripTags is a page's text: its tags (and so their attributes) left out.
func stripTags(page string) string {
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, " ")
}
