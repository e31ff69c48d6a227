package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// Marks of the forget-quote test: text only one observation, or only one
// prompt, holds.
const (
	obsQuoteMark    = "Obsforget6613Marker"
	promptQuoteMark = "Promptforget2290Marker"
)

// summariesOf reads the summaries of project through the API.
func summariesOf(t *testing.T, srv *testutil.Server, project string) []models.Summary {
	t.Helper()
	var page struct {
		Items []models.Summary `json:"items"`
	}
	srv.GetJSON(t, "/api/summaries?limit=500&project="+url.QueryEscape(project), &page)
	return page.Items
}

// searchHits is how many results /api/search gives for q.
func searchHits(t *testing.T, srv *testutil.Server, q string) int {
	t.Helper()
	var res struct {
		Items []json.RawMessage `json:"items"`
	}
	srv.GetJSON(t, "/api/search?q="+url.QueryEscape(q), &res)
	return len(res.Items)
}

// Forgetting an observation, then a prompt, rewrites the summaries that
// quoted them (the turn's and the session's final one) in the forget's
// own transaction: afterwards no summary, no event of the log or the live
// stream, no search and no byte of the data directory (or, on
// PostgreSQL, no row of any table) holds their text, and the summaries
// are still there, rebuilt from what is left.
func TestForgetRebuildsQuotingSummaries(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	const session, project = "fgq-a", "fgquote"
	h := func(event string, extra map[string]any) map[string]any {
		return apiHook(event, session, project, extra)
	}
	srv.Hook(t, "session-start", h("SessionStart", map[string]any{"source": "startup"}))
	turn := func(n int, prompt string, cmds ...string) {
		pid := "fgq-p" + strconv.Itoa(n)
		srv.Hook(t, "user-prompt-submit", h("UserPromptSubmit", map[string]any{"prompt": prompt, "prompt_id": pid}))
		for i, cmd := range cmds {
			srv.Hook(t, "post-tool-use", h("PostToolUse", map[string]any{
				"prompt_id": pid, "tool_name": "Bash", "tool_use_id": pid + "-t" + strconv.Itoa(i),
				"tool_input":    map[string]any{"command": cmd},
				"tool_response": map[string]any{"stdout": "out of " + cmd, "stderr": "", "interrupted": false},
			}))
		}
		srv.Hook(t, "stop", h("Stop", map[string]any{"prompt_id": pid, "stop_hook_active": false, "last_assistant_message": "Done with turn " + strconv.Itoa(n) + "."}))
	}
	turn(1, "list the notes", "cat notes-"+obsQuoteMark+".txt", "ls -la")
	turn(2, "now file "+promptQuoteMark+" away", "mkdir archive")
	srv.Hook(t, "session-end", h("SessionEnd", map[string]any{"reason": "other"}))
	waitFor(t, "two turn summaries and the final one", func() bool { return len(summariesOf(t, srv, project)) >= 3 })
	for _, m := range []string{obsQuoteMark, promptQuoteMark} {
		if b, _ := json.Marshal(summariesOf(t, srv, project)); !strings.Contains(string(b), m) {
			t.Fatalf("no summary quotes %s: the test proves nothing: %s", m, b)
		}
		if searchHits(t, srv, m) == 0 {
			t.Fatalf("search does not find %s before the forget", m)
		}
	}
	live := openRaw(t, srv, "/stream", nil)
	waitClients(t, srv, 1)

	var obs struct {
		Items []models.Observation `json:"items"`
	}
	srv.GetJSON(t, "/api/observations?project="+project, &obs)
	var obsID int64
	for _, o := range obs.Items {
		if strings.Contains(o.Input, obsQuoteMark) {
			obsID = o.ID
		}
	}
	var out struct {
		Deleted models.ForgetCounts `json:"deleted"`
		Rebuilt []int64             `json:"rebuilt"`
	}
	forget := func(path string) {
		status, body := srv.Do(t, http.MethodDelete, path, nil, nil)
		if status != http.StatusOK {
			t.Fatalf("DELETE %s: %d %s", path, status, body)
		}
		out.Rebuilt = nil
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
	}
	forget("/api/observations/" + strconv.FormatInt(obsID, 10))
	if out.Deleted.Summaries != 0 || len(out.Rebuilt) != 2 {
		t.Fatalf("forget observation: %+v, want no summary deleted and two rebuilt (turn 1's and the final one)", out)
	}
	// Live: the forgotten event names the rebuilt summaries, and their
	// new versions follow, without the forgotten text.
	evs := live.next(t, 3)
	if evs[0].Event != models.EventForgotten || !strings.Contains(evs[0].Data, `"rebuilt":[`) {
		t.Fatalf("live: %+v, want the forgotten event naming the rebuilt summaries", evs[0])
	}
	for _, ev := range evs[1:] {
		if ev.Event != models.EventSummary || strings.Contains(ev.Data, obsQuoteMark) {
			t.Fatalf("live: %+v, want a rebuilt summary without the forgotten text", ev)
		}
	}

	var prompts struct {
		Items []models.Prompt `json:"items"`
	}
	srv.GetJSON(t, "/api/prompts?project="+project, &prompts)
	for _, p := range prompts.Items {
		if strings.Contains(p.Text, promptQuoteMark) {
			forget("/api/prompts/" + strconv.FormatInt(p.ID, 10))
		}
	}
	if out.Deleted.Prompts != 1 || out.Deleted.Summaries != 1 || len(out.Rebuilt) != 1 {
		t.Fatalf("forget prompt: %+v, want its turn summary deleted and the final one rebuilt", out)
	}

	sums := summariesOf(t, srv, project)
	if len(sums) != 2 {
		t.Fatalf("%d summaries left, want turn 1's and the final one: %+v", len(sums), sums)
	}
	for _, s := range sums {
		if s.Request == "" || !strings.Contains(s.Note, "rebuilt after a forget") {
			t.Errorf("summary %d (%s) is not rebuilt from what is left: %+v", s.ID, s.Kind, s)
		}
		if !strings.Contains(s.Investigated, "ls -la") {
			t.Errorf("summary %d (%s) lost what was not forgotten: %+v", s.ID, s.Kind, s)
		}
	}
	for _, m := range []string{obsQuoteMark, promptQuoteMark} {
		if n := searchHits(t, srv, m); n > 0 {
			t.Errorf("search still finds %s: %d results", m, n)
		}
		events, err := srv.Store.EventsAfter(t.Context(), 0, "", 100000)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(events); strings.Contains(string(b), m) {
			t.Errorf("the event log still holds %s", m)
		}
		for _, path := range []string{"/api/summaries?limit=500", "/api/export/all", "/fragments/feed"} {
			if _, body := srv.Get(t, path); strings.Contains(string(body), m) {
				t.Errorf("GET %s still holds %s", path, m)
			}
		}
		if files := holding(t, srv, m); len(files) > 0 {
			t.Errorf("after the forget, %v hold %s", files, m)
		}
	}
}
