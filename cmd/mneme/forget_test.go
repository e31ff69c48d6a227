package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// `mneme forget` over the socket: it shows what goes and asks; "no"
// keeps everything, --yes and a typed "yes" forget.
func TestForgetCommand(t *testing.T) {
	t.Parallel()
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
	if code != 1 || !strings.Contains(out, "Forget tool call #2 (Created notes.md") || !strings.Contains(out, "Nothing forgotten.") {
		t.Fatalf("answering no: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := srv.Store.ObservationByID(t.Context(), 2); err != nil {
		t.Fatalf("answering no deleted the observation: %v", err)
	}
	code, out, errOut = mneme("yes\n", "forget", "--observation", "2")
	if code != 0 || !strings.Contains(out, "Forgotten: 1 observation") {
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

// `mneme forget` counts the memories that go: --memory forgets one, and a
// session's preview and result count its memories with the rest.
func TestForgetCommandCountsMemories(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	for _, ev := range testutil.FixtureEvents(t) {
		srv.Hook(t, eventSlugOf(t, ev), ev)
	}
	var sessions struct {
		Items []models.Session `json:"items"`
	}
	srv.GetJSON(t, "/api/sessions", &sessions)
	if len(sessions.Items) == 0 {
		t.Fatal("no session stored")
	}
	s := sessions.Items[0]
	ms := []models.Memory{
		{SessionID: s.ID, Project: s.Project, PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Went with TOML for the config"},
		{SessionID: s.ID, Project: s.Project, PromptNumber: 1, Source: models.SourcePrompt, Kind: models.MemoryConstraint, Text: "Never touch vendor/"},
		{SessionID: s.ID, Project: s.Project, PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryTodo, Text: "Add a test for the loader"},
	}
	err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		for i := range ms {
			if _, err := tx.InsertMemory(&ms[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(srv.Port)
	mneme := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", port, "--data-dir", srv.DataDir}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	id := strconv.FormatInt(ms[0].ID, 10)
	code, out, errOut := mneme("forget", "--memory", id, "--yes")
	if code != 0 || !strings.Contains(out, "Forget memory m"+id+" (Went with TOML for the config): 1 memory, for good.") ||
		!strings.Contains(out, "Forgotten: 1 memory,") {
		t.Fatalf("forget --memory: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mneme("forget", "--session", s.ClaudeSessionID, "--yes")
	if code != 0 || !strings.Contains(out, ", 2 memories, for good.") || !strings.Contains(out, "Forgotten: 1 session,") ||
		strings.Count(out, ", 2 memories,") != 2 {
		t.Fatalf("forget --session: exit %d\n%s%s", code, out, errOut)
	}
	if n, err := srv.Store.Counts(t.Context()); err != nil || n.Memories != 0 {
		t.Fatalf("memories left: %+v %v", n, err)
	}
}
