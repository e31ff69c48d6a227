package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// `mneme forget` over the socket: it shows what goes and asks; "no"
// keeps everything, --yes and a typed "yes" forget.
func TestForgetCommand(t *testing.T) {
	srv := testutil.NewServer(t)
	for _, ev := range testutil.FixtureEvents(t) {
		srv.Hook(t, eventSlugOf(t, ev), ev)
	}
	port := strconv.Itoa(srv.Port)
	mneme := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", port, "--data-dir", srv.DataDir}, args...), strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}

	code, out, errOut := mneme("no\n", "forget", "--observation", "2")
	if code != 1 || !strings.Contains(out, "Forget observation 2 (Created notes.md") || !strings.Contains(out, "Nothing forgotten.") {
		t.Fatalf("answering no: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := srv.Store.ObservationByID(t.Context(), 2); err != nil {
		t.Fatalf("answering no deleted the observation: %v", err)
	}
	code, out, errOut = mneme("yes\n", "forget", "--observation", "2")
	if code != 0 || !strings.Contains(out, "Forgotten: 0 sessions, 0 prompts, 1 observation,") {
		t.Fatalf("answering yes: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = mneme("", "forget", "--observation", "2", "--yes")
	if code != 1 || !strings.Contains(errOut, "no observation 2") {
		t.Fatalf("forgetting it again: exit %d %s", code, errOut)
	}
	code, _, errOut = mneme("", "forget", "--observation", "3", "--session", "x")
	if code != 2 || !strings.Contains(errOut, "exactly one") {
		t.Fatalf("two targets: exit %d %s", code, errOut)
	}

	var sessions struct {
		Items []struct {
			ClaudeSessionID string `json:"claudeSessionId"`
			Project         string `json:"project"`
		} `json:"items"`
	}
	srv.GetJSON(t, "/api/sessions", &sessions)
	if len(sessions.Items) == 0 {
		t.Fatal("no session stored")
	}
	code, out, errOut = mneme("", "forget", "--project", sessions.Items[0].Project, "--yes")
	if code != 0 || !strings.Contains(out, "Forgotten: 1 session,") {
		t.Fatalf("forget --project: exit %d\n%s%s", code, out, errOut)
	}
	if c, err := srv.Store.Counts(t.Context()); err != nil || c.Sessions+c.Prompts+c.Observations+c.Summaries != 0 {
		t.Fatalf("after forgetting the only project: %+v, %v", c, err)
	}
}
