package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/forget"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// forgetMark is private text that no redaction rule knows, so it is
// stored as it is: what the user asks mneme to forget.
const forgetMark = "Quokka7731DiaryEntry"

// forgetSeed records session of project through the real ingest path:
// two prompts, a tool call each, a turn summary, with mark (when not
// empty) in every text of prompt 2's turn, in the cwd and in the ids.
func forgetSeed(t *testing.T, srv *testutil.Server, session, project, mark string) {
	t.Helper()
	h := func(event string, extra map[string]any) map[string]any {
		m := apiHook(event, session, project, extra)
		m["cwd"] = "/tmp/mneme-forget/" + project
		return m
	}
	srv.Hook(t, "session-start", h("SessionStart", map[string]any{"source": "startup"}))
	for n := 1; n <= 2; n++ {
		text := fmt.Sprintf("step %d of %s", n, project)
		if n == 2 {
			text += " " + mark
		}
		pid := fmt.Sprintf("%s-p%d", session, n)
		srv.Hook(t, "user-prompt-submit", h("UserPromptSubmit", map[string]any{"prompt": "please " + text, "prompt_id": pid}))
		srv.Hook(t, "post-tool-use", h("PostToolUse", map[string]any{
			"prompt_id": pid, "tool_name": "Bash", "tool_use_id": fmt.Sprintf("%s-t%d-%s", session, n, mark),
			"tool_input":    map[string]any{"command": "echo " + text},
			"tool_response": map[string]any{"stdout": "out " + text, "stderr": "", "interrupted": false},
		}))
		srv.Hook(t, "stop", h("Stop", map[string]any{"prompt_id": pid, "stop_hook_active": false, "last_assistant_message": "Did " + text}))
	}
	waitFor(t, "two turn summaries of "+session, func() bool {
		var page struct {
			Items []models.Summary `json:"items"`
		}
		srv.GetJSON(t, "/api/summaries?project="+url.QueryEscape(project), &page)
		return len(page.Items) >= 2
	})
}

// waitFor polls cond with a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// noMark fails the test if what holds forgetMark.
func noMark(t *testing.T, what string, b []byte) {
	t.Helper()
	if strings.Contains(strings.ToLower(string(b)), strings.ToLower(forgetMark)) {
		t.Errorf("%s still holds the forgotten text: %.300s", what, b)
	}
}

func deleteJSON(t *testing.T, srv *testutil.Server, path string) forget.Outcome {
	t.Helper()
	status, body := srv.Do(t, http.MethodDelete, path, nil, nil)
	if status != http.StatusOK {
		t.Fatalf("DELETE %s: %d %s", path, status, body)
	}
	var out forget.Outcome
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// holding lists what holds needle: the files of the data directory and,
// on PostgreSQL, whose database is not among them, the database.
func holding(t *testing.T, srv *testutil.Server, needle string) []string {
	t.Helper()
	found := testutil.FilesHolding(t, srv.DataDir, needle)
	if srv.Store.Postgres() && bytes.Contains(testutil.StoredBytes(t, srv.Store), []byte(needle)) {
		found = append(found, "the PostgreSQL database")
	}
	return found
}

// Forgetting through the API: an observation, a prompt with its turn, a
// session and a project each answer their counts, announce a forgotten
// event live, and leave no trace of the forgotten text in search, the
// API, exports, the stream's replay or any byte of the data directory.
func TestForgetAPI(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t, testutil.FastStream)
	forgetSeed(t, srv, "fg-a", "fgalpha", forgetMark)
	forgetSeed(t, srv, "fg-b", "fgbeta", forgetMark)
	forgetSeed(t, srv, "fg-c", "fgkeep", "")
	if len(holding(t, srv, forgetMark)) == 0 {
		t.Fatal("the text to forget is not on disk: the test proves nothing")
	}
	live := openRaw(t, srv, "/stream", nil)
	waitClients(t, srv, 1)

	var obs struct {
		Items []models.Observation `json:"items"`
	}
	srv.GetJSON(t, "/api/observations?project=fgalpha", &obs)
	if len(obs.Items) != 2 {
		t.Fatalf("fgalpha has %d observations", len(obs.Items))
	}
	first := obs.Items[1] // newest first: the first prompt's call
	out := deleteJSON(t, srv, "/api/observations/"+strconv.FormatInt(first.ID, 10))
	if out.Deleted != (models.ForgetCounts{Observations: 1, Events: 1}) || !out.Scrub.Vacuumed {
		t.Fatalf("forget observation: %+v", out)
	}
	// The first turn's summary quoted the call: rebuilt, its new version
	// follows the forgotten event.
	if len(out.Rebuilt) != 1 {
		t.Fatalf("forget observation rebuilt %v, want the turn's summary", out.Rebuilt)
	}
	evs := live.next(t, 2)
	if ev := evs[0]; ev.Event != models.EventForgotten || ev.ID != out.EventID ||
		ev.Data != fmt.Sprintf(`{"target":"observation","observations":[%d],"rebuilt":[%d]}`, first.ID, out.Rebuilt[0]) {
		t.Fatalf("live forgotten event %+v", ev)
	}
	if ev := evs[1]; ev.Event != models.EventSummary || !strings.Contains(ev.Data, fmt.Sprintf(`"id":%d,`, out.Rebuilt[0])) {
		t.Fatalf("live event after the forgotten one: %+v, want the rebuilt summary", ev)
	}

	var prompts struct {
		Items []models.Prompt `json:"items"`
	}
	srv.GetJSON(t, "/api/prompts?project=fgalpha", &prompts)
	out = deleteJSON(t, srv, "/api/prompts/"+strconv.FormatInt(prompts.Items[0].ID, 10)) // prompt 2
	if d := out.Deleted; d.Prompts != 1 || d.Observations != 1 || d.Summaries != 1 || d.SummaryJobs != 1 || d.Events < 3 {
		t.Fatalf("forget prompt: %+v", out)
	}
	out = deleteJSON(t, srv, "/api/sessions/fg-a") // by Claude Code's id
	if d := out.Deleted; d.Sessions != 1 || d.Prompts != 1 || d.Observations != 0 || d.Summaries != 1 {
		t.Fatalf("forget session: %+v", out)
	}
	out = deleteJSON(t, srv, "/api/projects/fgbeta")
	if d := out.Deleted; d.Sessions != 1 || d.Prompts != 2 || d.Observations != 2 || d.Summaries != 2 {
		t.Fatalf("forget project: %+v", out)
	}
	for _, want := range []string{"prompt", "session", "project"} {
		ev := live.next(t, 1)[0]
		if ev.Event != models.EventForgotten || !strings.Contains(ev.Data, `"target":"`+want+`"`) {
			t.Fatalf("live event %+v, want forgotten %s", ev, want)
		}
	}

	// Gone from search, the API, exports and the stream's replay.
	for _, path := range []string{
		"/api/observations?limit=500", "/api/prompts?limit=500", "/api/summaries?limit=500",
		"/api/sessions", "/api/projects", "/api/export?project=fgalpha&since=2000-01-01&format=json",
		"/api/export?project=fgbeta&since=2000-01-01&format=json", "/api/export/all", "/fragments/feed",
	} {
		status, body := srv.Get(t, path)
		if status >= 500 {
			t.Fatalf("GET %s: %d %s", path, status, body)
		}
		noMark(t, "GET "+path, body)
	}
	for _, q := range []string{forgetMark, strings.ToLower(forgetMark), "Quokka*", "fgalpha", "fgbeta"} {
		var res struct {
			Items []json.RawMessage `json:"items"`
		}
		if srv.GetJSON(t, "/api/search?q="+url.QueryEscape(q), &res); len(res.Items) > 0 {
			t.Errorf("search for %s finds %s", q, res.Items)
		}
	}
	if status, _ := srv.Get(t, "/api/sessions/fg-a"); status != http.StatusNotFound {
		t.Errorf("GET a forgotten session: %d", status)
	}
	if status, body := srv.Get(t, "/api/search?q=fgkeep"); status != 200 || !strings.Contains(string(body), "fgkeep") {
		t.Errorf("the kept project is not found any more: %d %s", status, body)
	}
	// Last-Event-ID 0 means "from now": 1 replays the whole log but the
	// first event (fg-a's start, forgotten), which the log shows.
	events, err := srv.Store.EventsAfter(t.Context(), 0, "", 100000)
	if err != nil {
		t.Fatal(err)
	}
	logged, _ := json.Marshal(events)
	noMark(t, "the event log", logged)
	want := 0
	for _, ev := range events {
		if ev.ID > 1 {
			want++
		}
	}
	if want < 10 { // fgkeep's events and the forgotten ones
		t.Fatalf("the log holds %d events after the first", want)
	}
	replay := openRaw(t, srv, "/stream", http.Header{"Last-Event-ID": {"1"}})
	var all strings.Builder
	for _, ev := range replay.next(t, want) {
		all.WriteString(ev.Data)
	}
	noMark(t, "the stream's replay", []byte(all.String()))

	// Gone from every byte of the data directory (the worker runs on).
	if files := holding(t, srv, forgetMark); len(files) > 0 {
		t.Fatalf("after forgetting, %v hold the forgotten text", files)
	}
}

// Bad input: malformed ids are 400, unknown ones 404, both with a JSON
// message; a browser's delete without the CSRF token is 403.
func TestForgetBadInput(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	forgetSeed(t, srv, "fg-x", "fgx", "")
	for _, tt := range []struct {
		path   string
		status int
		msg    string
	}{
		{"/api/observations/abc", 400, "observation id must be a positive whole number"},
		{"/api/observations/0", 400, "observation id must be a positive whole number"},
		{"/api/prompts/-3", 400, "prompt id must be a positive whole number"},
		{"/api/observations/999999", 404, "no observation 999999"},
		{"/api/prompts/999999", 404, "no prompt 999999"},
		{"/api/sessions/999999", 404, "no session 999999"},
		{"/api/sessions/no-such-session", 404, "no session no-such-session"},
		{"/api/projects/no-such-project", 404, "no project no-such-project"},
	} {
		status, body := srv.Do(t, http.MethodDelete, tt.path, nil, nil)
		var e struct {
			Error string `json:"error"`
		}
		if status != tt.status || json.Unmarshal(body, &e) != nil || e.Error != tt.msg {
			t.Errorf("DELETE %s: %d %s; want %d %q", tt.path, status, body, tt.status, tt.msg)
		}
	}

	// A browser: the API checks CSRF when an Origin comes, the pages always.
	origin := http.Header{"Origin": {srv.URL}}
	if status, body := srv.Do(t, http.MethodDelete, "/api/sessions/fg-x", nil, origin); status != http.StatusForbidden || !strings.Contains(string(body), "CSRF") {
		t.Errorf("DELETE from a page without the CSRF token: %d %s", status, body)
	}
	browser := srv.LoggedIn(t)
	resp, err := browser.PostForm(srv.URL+"/forget/session/fg-x", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /forget without the CSRF token: %d", resp.StatusCode)
	}
	if status, _ := srv.Get(t, "/api/sessions/fg-x"); status != http.StatusOK {
		t.Fatalf("a refused forget deleted the session: %d", status)
	}

	// The confirmation page, then its form with the token: 303 to the list.
	resp, err = browser.Get(srv.URL + "/forget/session/fg-x")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tok := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindSubmatch(page)
	if resp.StatusCode != http.StatusOK || tok == nil || !strings.Contains(string(page), "2 prompts") {
		t.Fatalf("GET /forget/session: %d %s", resp.StatusCode, page)
	}
	resp, err = browser.PostForm(srv.URL+"/forget/session/fg-x", url.Values{"_csrf": {string(tok[1])}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/sessions?forgotten=1.2.2.2.0" {
		t.Fatalf("POST /forget/session: %d to %q", resp.StatusCode, loc)
	}
	if status, _ := srv.Get(t, "/api/sessions/fg-x"); status != http.StatusNotFound {
		t.Fatalf("the confirmed forget left the session: %d", status)
	}
}
