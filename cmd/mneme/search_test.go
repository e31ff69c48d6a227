package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/testutil"
)

func TestSearchAndShow(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for _, ev := range testutil.FixtureEvents(t) {
		slug := eventSlugOf(t, ev)
		srv.Hook(t, slug, ev)
	}
	port := strconv.Itoa(srv.Port)
	mneme := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", port, "--data-dir", srv.DataDir}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}

	code, out, errOut := mneme("search", "notes")
	if code != 0 {
		t.Fatalf("search: exit %d, %s %s", code, out, errOut)
	}
	if !strings.Contains(out, "Created notes.md") || !strings.Contains(out, "«notes»") {
		t.Errorf("search output lacks the Write and a highlighted match:\n%s", out)
	}
	if strings.Contains(out, "hunter2") {
		t.Errorf("search printed private content:\n%s", out)
	}

	code, out, _ = mneme("search", "zzznomatchzzz")
	if code != 1 || !strings.Contains(out, "No matches.") {
		t.Errorf("no-match search: exit %d, %q", code, out)
	}

	code, _, errOut = mneme("search", `"unbalanced`)
	if code != 2 || !strings.Contains(errOut, "mneme:") {
		t.Errorf("invalid FTS query: exit %d, stderr %q", code, errOut)
	}

	code, out, errOut = mneme("show", "#2")
	if code != 0 || !strings.Contains(out, "#2 Created notes.md") || !strings.Contains(out, "output:") {
		t.Errorf("show #2: exit %d\n%s%s", code, out, errOut)
	}
	code, _, _ = mneme("show", "abc")
	if code != 2 {
		t.Errorf("show abc: exit %d, want 2", code)
	}
}

// eventSlugOf reads hook_event_name from a fixture payload.
func eventSlugOf(t *testing.T, raw []byte) string {
	t.Helper()
	var p struct {
		Event string `json:"hook_event_name"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || hookwire.EventSlug(p.Event) == "" {
		t.Fatalf("no event name in %s", raw)
	}
	return hookwire.EventSlug(p.Event)
}
