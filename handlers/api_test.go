package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// apiWorld is a worker seeded through the real ingest path with two
// projects: alpha (a session with a prompt, three tool calls of which one
// failed, and a turn summary from the summary queue) and beta (one prompt,
// one tool call).
type apiWorld struct {
	srv *testutil.Server
}

// apiHook is a hook payload for session in project (its cwd's basename).
func apiHook(event, session, project string, extra map[string]any) map[string]any {
	m := map[string]any{
		"session_id": session, "transcript_path": "", "cwd": "/tmp/mneme-api/" + project,
		"hook_event_name": event, "permission_mode": "default",
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func apiSeed(t *testing.T) *apiWorld {
	t.Helper()
	srv := testutil.NewServer(t)
	srv.Hook(t, "session-start", apiHook("SessionStart", "api-a", "alpha", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "api-a", "alpha", map[string]any{
		"prompt": "migrate the database schema to version 4", "prompt_id": "pa1"}))
	srv.Hook(t, "post-tool-use", apiHook("PostToolUse", "api-a", "alpha", map[string]any{
		"prompt_id": "pa1", "tool_name": "Bash", "tool_use_id": "toolu_a1",
		"tool_input":    map[string]any{"command": "go test ./models/"},
		"tool_response": map[string]any{"stdout": "ok  models 0.1s\nTestMigrate passed", "stderr": "", "interrupted": false},
	}))
	srv.Hook(t, "post-tool-use", apiHook("PostToolUse", "api-a", "alpha", map[string]any{
		"prompt_id": "pa1", "tool_name": "Edit", "tool_use_id": "toolu_a2",
		"tool_input":    map[string]any{"file_path": "/tmp/mneme-api/alpha/models/migrations.go", "old_string": "v3", "new_string": "v4"},
		"tool_response": map[string]any{"filePath": "/tmp/mneme-api/alpha/models/migrations.go"},
	}))
	srv.Hook(t, "post-tool-use-failure", apiHook("PostToolUseFailure", "api-a", "alpha", map[string]any{
		"prompt_id": "pa1", "tool_name": "Bash", "tool_use_id": "toolu_a3",
		"tool_input": map[string]any{"command": "sqlite3 mneme.db .schema"},
		"error":      "Exit code 127\nsqlite3: command not found", "is_interrupt": false,
	}))
	srv.Hook(t, "stop", apiHook("Stop", "api-a", "alpha", map[string]any{
		"prompt_id": "pa1", "stop_hook_active": false, "last_assistant_message": "Migrated the schema to version 4."}))
	srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "api-b", "beta", map[string]any{
		"prompt": "fix the flaky websocket reconnect", "prompt_id": "pb1"}))
	srv.Hook(t, "post-tool-use", apiHook("PostToolUse", "api-b", "beta", map[string]any{
		"prompt_id": "pb1", "tool_name": "Grep", "tool_use_id": "toolu_b1",
		"tool_input":    map[string]any{"pattern": "reconnect", "path": "src"},
		"tool_response": map[string]any{"mode": "content", "content": "src/ws.ts:10: reconnect() // websocket", "numFiles": 1},
	}))
	w := &apiWorld{srv: srv}
	// The turn summary is written by the background queue: wait for it.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var page api.Page[models.Summary]
		srv.GetJSON(t, "/api/summaries", &page)
		if len(page.Items) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no summary was written within 15s of Stop")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return w
}

// apiError is the JSON body of an API error.
type apiError struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// expectError asserts that GET/POST path answers status with a JSON error
// whose message contains want.
func (w *apiWorld) expectError(t *testing.T, method, path string, body any, status int, want string) {
	t.Helper()
	got, raw := w.srv.Do(t, method, path, body, nil)
	var e apiError
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Errorf("%s %s: %d, body %q is not a JSON error", method, path, got, raw)
		return
	}
	if got != status || e.Status != status || !strings.Contains(e.Error, want) {
		t.Errorf("%s %s = %d %q, want %d with %q", method, path, got, e.Error, status, want)
	}
}

func TestAPIObservations(t *testing.T) {
	t.Parallel()
	w := apiSeed(t)
	tests := []struct {
		query   string
		titles  []string // newest first
		hasMore bool
	}{
		{"", []string{"Grep `reconnect`", "sqlite3", "Edited", "Ran `go test ./models/`"}, false},
		{"?project=alpha", []string{"sqlite3", "Edited", "Ran `go test ./models/`"}, false},
		{"?project=alpha&limit=2", []string{"sqlite3", "Edited"}, true},
		{"?project=alpha&limit=2&offset=2", []string{"Ran `go test ./models/`"}, false},
		{"?failures=1", []string{"sqlite3"}, false},
		{"?failures=0&tool=Edit", []string{"Edited"}, false},
		{"?kind=file_change", []string{"Edited"}, false},
		{"?project=nope", nil, false},
		{"?offset=50", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var page api.Page[models.Observation]
			w.srv.GetJSON(t, "/api/observations"+tt.query, &page)
			if len(page.Items) != len(tt.titles) || page.HasMore != tt.hasMore {
				t.Errorf("%s: %d items hasMore=%v, want %d hasMore=%v", tt.query, len(page.Items), page.HasMore, len(tt.titles), tt.hasMore)
				return
			}
			for i, o := range page.Items {
				if !strings.Contains(o.Title, tt.titles[i]) {
					t.Errorf("%s: item %d title %q, want it to contain %q", tt.query, i, o.Title, tt.titles[i])
				}
			}
		})
	}
	// The failed call is stored as a failure with its error.
	var page api.Page[models.Observation]
	w.srv.GetJSON(t, "/api/observations?failures=true", &page)
	if o := page.Items[0]; o.Success || o.Importance != 1 || !strings.Contains(o.Output, "command not found") {
		t.Errorf("failure row = %+v", o)
	}
	// Items is [] (not null) when empty.
	_, raw := w.srv.Get(t, "/api/observations?project=nope")
	if !strings.Contains(string(raw), `"items":[]`) {
		t.Errorf("empty page = %s", raw)
	}
	// session= narrows to one session.
	w.srv.GetJSON(t, "/api/observations?session="+fmt.Sprint(page.Items[0].SessionID), &page)
	if len(page.Items) != 3 {
		t.Errorf("session filter: %d items, want 3", len(page.Items))
	}
	for _, bad := range []struct{ query, msg string }{
		{"?offset=-1", "offset must be"},
		{"?offset=x", "offset must be"},
		{"?limit=501", "limit must be"},
		{"?limit=0", "limit must be"},
		{"?failures=maybe", "failures must be"},
		{"?session=abc", "session must be"},
		{"?session=-4", "session must be"},
	} {
		t.Run(bad.query, func(t *testing.T) {
			w.expectError(t, http.MethodGet, "/api/observations"+bad.query, nil, 400, bad.msg)
		})
	}
}

func TestAPIPromptsAndSummaries(t *testing.T) {
	t.Parallel()
	w := apiSeed(t)
	var prompts api.Page[models.Prompt]
	w.srv.GetJSON(t, "/api/prompts", &prompts)
	if len(prompts.Items) != 2 || prompts.Items[0].Text != "fix the flaky websocket reconnect" || prompts.Items[1].Project != "alpha" {
		t.Errorf("prompts = %+v", prompts.Items)
	}
	w.srv.GetJSON(t, "/api/prompts?project=alpha&limit=1", &prompts)
	if len(prompts.Items) != 1 || prompts.HasMore || prompts.Items[0].Number != 1 {
		t.Errorf("alpha prompts = %+v hasMore=%v", prompts.Items, prompts.HasMore)
	}
	var sums api.Page[models.Summary]
	w.srv.GetJSON(t, "/api/summaries?project=alpha", &sums)
	if len(sums.Items) != 1 || sums.Items[0].Kind != models.SummaryTurn || sums.Items[0].Project != "alpha" {
		t.Errorf("summaries = %+v", sums.Items)
	}
	w.srv.GetJSON(t, "/api/summaries?project=beta", &sums)
	if len(sums.Items) != 0 {
		t.Errorf("beta summaries = %+v", sums.Items)
	}
	for _, path := range []string{"/api/prompts?limit=1000", "/api/summaries?offset=-3", "/api/prompts?session=0"} {
		w.expectError(t, http.MethodGet, path, nil, 400, "must be")
	}
}

func TestAPISearch(t *testing.T) {
	t.Parallel()
	w := apiSeed(t)
	type res struct {
		Items []struct {
			api.SearchResult
		} `json:"items"`
		HasMore bool   `json:"hasMore"`
		Ranked  bool   `json:"ranked"`
		Query   string `json:"query"`
	}
	tests := []struct {
		query string
		types []string // hit types, best first, as a set when order may vary
	}{
		{"q=reconnect", []string{"observation", "prompt"}},
		{"q=reconnect&type=prompt", []string{"prompt"}},
		{"q=websocket&project=alpha", nil},
		{"q=reconnect+NOT+flaky", []string{"observation"}},
		{"q=migrat*&project=alpha&type=observation", []string{"observation"}},
		{"q=%22database+schema%22", []string{"summary", "prompt"}}, // the turn summary quotes the request
		{"q=migrations.go", []string{"observation", "summary"}},
		{"q=sqlite3&tool=Bash", []string{"observation"}},
		{"q=websocket&from=2000-01-01&to=2000-01-02", nil},
		{"q=reconnect&from=" + time.Now().UTC().Format(time.DateOnly), []string{"observation", "prompt"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var r res
			w.srv.GetJSON(t, "/api/search?"+tt.query, &r)
			var types []string
			for _, h := range r.Items {
				types = append(types, h.Type)
				if h.Score <= 0 || !h.Ranked || h.SessionID == 0 || h.Project == "" {
					t.Errorf("%s: hit %+v lacks rank or details", tt.query, h.SearchHit)
				}
				matched := false
				for _, p := range h.SnippetParts {
					matched = matched || p.Match
					if strings.ContainsAny(p.Text, "\x02\x03") {
						t.Errorf("%s: snippet part %q keeps a marker", tt.query, p.Text)
					}
				}
				if !matched {
					t.Errorf("%s: snippet %q has no matched part", tt.query, h.Snippet)
				}
			}
			if !sameSet(types, tt.types) {
				t.Errorf("%s: types %v, want %v", tt.query, types, tt.types)
			}
			if len(r.Items) > 0 && !r.Ranked {
				t.Errorf("%s: ranked = false", tt.query)
			}
		})
	}
	// Paging: limit=1 tells hasMore.
	var r res
	w.srv.GetJSON(t, "/api/search?q=reconnect&limit=1", &r)
	if len(r.Items) != 1 || !r.HasMore {
		t.Errorf("limit=1: %d items hasMore=%v", len(r.Items), r.HasMore)
	}
	for _, bad := range []struct{ query, msg string }{
		{"", "q is required"},
		{"q=+++", "q is required"},
		{"q=%22unterminated", "invalid search query: a \"quoted phrase\" is not closed"},
		{"q=websocket+AND", "invalid search query: the query ends too early"},
		{"q=AND", `invalid search query: syntax error near "AND"`},
		{"q=-flaky", "no '-' operator"},
		{"q=*", "cannot start with '*'"},
		{"q=x&type=file", "type must be"},
		{"q=x&limit=101", "limit must be"},
		{"q=x&offset=-1", "offset must be"},
		{"q=x&from=yesterday", "from must be a date"},
		{"q=x&to=2026-13-01", "to must be a date"},
		{"q=x&from=2026-02-02&to=2026-01-01", "from must be before to"},
	} {
		t.Run(bad.query, func(t *testing.T) {
			w.expectError(t, http.MethodGet, "/api/search?"+bad.query, nil, 400, bad.msg)
		})
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestAPITimeline(t *testing.T) {
	t.Parallel()
	w := apiSeed(t)
	var obs api.Page[models.Observation]
	w.srv.GetJSON(t, "/api/observations?project=alpha", &obs)
	middle := obs.Items[1] // Edited, between the test run and the failure
	var tl models.Timeline
	w.srv.GetJSON(t, fmt.Sprintf("/api/timeline?anchor=%d&before=1&after=1", middle.ID), &tl)
	var got []string
	for _, it := range tl.Items {
		got = append(got, it.Type)
	}
	want := []string{"prompt", "observation", "observation", "observation", "summary"}
	if strings.Join(got, ",") != strings.Join(want, ",") || tl.Anchor != middle.ID || tl.HasBefore || tl.HasAfter {
		t.Errorf("timeline around %d: %v before=%v after=%v, want %v", middle.ID, got, tl.HasBefore, tl.HasAfter, want)
	}
	if tl.Session == nil || tl.Session.Project != "alpha" || tl.Items[2].Observation.ID != middle.ID {
		t.Errorf("timeline session %+v, anchor item %+v", tl.Session, tl.Items[2])
	}
	w.srv.GetJSON(t, fmt.Sprintf("/api/timeline?anchor=%d&before=0&after=0", middle.ID), &tl)
	// Just the anchor, with its turn's prompt and summary.
	if len(tl.Items) != 3 || tl.Items[1].Observation == nil || tl.Items[1].Observation.ID != middle.ID || !tl.HasBefore || !tl.HasAfter {
		t.Errorf("before=0 after=0: %d items before=%v after=%v", len(tl.Items), tl.HasBefore, tl.HasAfter)
	}
	w.srv.GetJSON(t, fmt.Sprintf("/api/timeline?session=%d&limit=2", middle.SessionID), &tl)
	n := 0
	for _, it := range tl.Items {
		if it.Type == "observation" {
			n++
		}
	}
	if n != 2 || !tl.HasAfter || tl.HasBefore {
		t.Errorf("session page: %d observations, hasAfter=%v hasBefore=%v", n, tl.HasAfter, tl.HasBefore)
	}
	w.expectError(t, http.MethodGet, "/api/timeline", nil, 400, "give either anchor")
	w.expectError(t, http.MethodGet, "/api/timeline?anchor=1&session=1", nil, 400, "give either anchor")
	w.expectError(t, http.MethodGet, "/api/timeline?anchor=x", nil, 400, "anchor must be")
	w.expectError(t, http.MethodGet, "/api/timeline?anchor=1&before=-1", nil, 400, "before must be")
	w.expectError(t, http.MethodGet, "/api/timeline?anchor=1&after=101", nil, 400, "after must be")
	w.expectError(t, http.MethodGet, "/api/timeline?anchor=99999", nil, 404, "not found")
	w.expectError(t, http.MethodGet, "/api/timeline?session=99999", nil, 404, "not found")
}

func TestAPIObservationsBatch(t *testing.T) {
	t.Parallel()
	w := apiSeed(t)
	var obs api.Page[models.Observation]
	w.srv.GetJSON(t, "/api/observations", &obs)
	a, b := obs.Items[0].ID, obs.Items[3].ID
	status, raw := w.srv.Post(t, "/api/observations/batch", map[string]any{"ids": []int64{b, 424242, a, b}})
	var res struct {
		Items   []models.Observation `json:"items"`
		Missing []int64              `json:"missing"`
	}
	if err := json.Unmarshal(raw, &res); status != 200 || err != nil {
		t.Fatalf("batch: %d %s", status, raw)
	}
	if len(res.Items) != 2 || res.Items[0].ID != b || res.Items[1].ID != a || len(res.Missing) != 1 || res.Missing[0] != 424242 {
		t.Errorf("batch = %+v missing %v", res.Items, res.Missing)
	}
	if res.Items[0].Input == "" || res.Items[0].Output == "" {
		t.Errorf("batch items are not full records: %+v", res.Items[0])
	}
	many := make([]int64, 501)
	for i := range many {
		many[i] = int64(i + 1)
	}
	for _, bad := range []struct {
		body any
		msg  string
	}{
		{map[string]any{"ids": []int64{}}, "1 to 500"},
		{map[string]any{}, "1 to 500"},
		{map[string]any{"ids": many}, "1 to 500"},
		{map[string]any{"ids": []int64{1, -2}}, "positive"},
		{`{"ids": "1,2"}`, "body must be JSON"},
		{`{not json`, "body must be JSON"},
	} {
		w.expectError(t, http.MethodPost, "/api/observations/batch", bad.body, 400, bad.msg)
	}
}

func TestAPIProjectsAndStats(t *testing.T) {
	t.Parallel()
	w := apiSeed(t)
	var projects api.Page[models.ProjectInfo]
	w.srv.GetJSON(t, "/api/projects", &projects)
	if len(projects.Items) != 2 || projects.Items[0].Project != "beta" || projects.Items[1].Observations != 3 || projects.Items[1].LastActive == nil {
		t.Errorf("projects = %+v", projects.Items)
	}
	var st models.Stats
	w.srv.GetJSON(t, "/api/stats", &st)
	today := time.Now().UTC().Format(time.DateOnly)
	if len(st.Days) != models.DefaultStatsDays || st.To != today {
		t.Fatalf("stats window: %d days to %s", len(st.Days), st.To)
	}
	last := st.Days[len(st.Days)-1]
	if last.Observations != 4 || last.Failures != 1 || last.Prompts != 2 {
		t.Errorf("today = %+v", last)
	}
	if st.Totals.Sessions != 2 || st.Totals.Summaries != 1 || len(st.Tools) != 3 || st.Tools[0] != (models.NameCount{Name: "Bash", Count: 2}) {
		t.Errorf("totals %+v tools %+v", st.Totals, st.Tools)
	}
	if len(st.Files) == 0 || !strings.HasSuffix(st.Files[0].Name, "models/migrations.go") {
		t.Errorf("files = %+v", st.Files)
	}
	w.srv.GetJSON(t, "/api/stats?project=beta&days=3&top=1", &st)
	if len(st.Days) != 3 || st.Totals.Observations != 1 || len(st.Projects) != 1 || st.Projects[0].Project != "beta" {
		t.Errorf("beta stats = %+v", st)
	}
	w.srv.GetJSON(t, "/api/stats?from=2026-01-01&to=2026-01-31", &st)
	if len(st.Days) != 31 || st.From != "2026-01-01" {
		t.Errorf("january: %d days from %s", len(st.Days), st.From)
	}
	for _, bad := range []struct{ query, msg string }{
		{"?days=0", "days must be"},
		{"?days=367", "days must be"},
		{"?top=x", "top must be"},
		{"?from=01/02/2026", "from must be a date"},
		{"?from=2026-02-01&to=2026-01-01", "from is after to"},
		{"?from=2020-01-01&to=2026-01-01", "longer than"},
	} {
		t.Run(bad.query, func(t *testing.T) {
			w.expectError(t, http.MethodGet, "/api/stats"+bad.query, nil, 400, bad.msg)
		})
	}
}

func TestAPISessions(t *testing.T) {
	t.Parallel()
	w := apiSeed(t)
	var page api.Page[models.SessionStats]
	w.srv.GetJSON(t, "/api/sessions", &page)
	if len(page.Items) != 2 || page.HasMore {
		t.Fatalf("sessions = %+v", page)
	}
	var alpha models.SessionStats
	for _, s := range page.Items {
		if s.Project == "alpha" {
			alpha = s
		}
	}
	if alpha.Prompts != 1 || alpha.ToolCalls != 3 || alpha.Failures != 1 {
		t.Errorf("alpha counts %+v", alpha)
	}
	w.srv.GetJSON(t, "/api/sessions?project=beta&limit=1", &page)
	if len(page.Items) != 1 || page.Items[0].Project != "beta" {
		t.Errorf("beta sessions = %+v", page.Items)
	}
	for _, id := range []string{fmt.Sprint(alpha.ID), "api-a"} { // database id or Claude's session_id
		var d api.SessionDetail
		w.srv.GetJSON(t, "/api/sessions/"+id, &d)
		if d.Session == nil || d.Session.ID != alpha.ID || len(d.Prompts) != 1 || len(d.Observations) != 3 || len(d.Summaries) != 1 {
			t.Errorf("/api/sessions/%s = %+v", id, d)
		}
		// The turn's summary job, settled with the summary it stored.
		if len(d.SummaryJobs) != 1 || len(d.Summaries) != 1 || d.SummaryJobs[0] != (api.SummaryJob{
			Kind: models.SummaryTurn, PromptNumber: 1, Status: models.JobDone, Attempts: 1, SummaryID: d.Summaries[0].ID}) {
			t.Errorf("/api/sessions/%s summary jobs = %+v", id, d.SummaryJobs)
		}
	}
	w.expectError(t, http.MethodGet, "/api/sessions/999999", nil, 404, "not found")
	w.expectError(t, http.MethodGet, "/api/sessions?limit=0", nil, 400, "limit must be")
	w.expectError(t, http.MethodGet, "/api/sessions?offset=-1", nil, 400, "offset must be")
}

// TestAPIListsByID: /api/prompts and /api/summaries take id=3,5 (what
// `mneme show prompt:3` asks), and refuse a malformed list.
func TestAPIListsByID(t *testing.T) {
	t.Parallel()
	w := apiSeed(t)
	var all api.Page[models.Prompt]
	w.srv.GetJSON(t, "/api/prompts", &all)
	if len(all.Items) < 2 {
		t.Fatalf("seed has %d prompts", len(all.Items))
	}
	want := all.Items[1].ID
	var some api.Page[models.Prompt]
	w.srv.GetJSON(t, "/api/prompts?id="+strconv.FormatInt(want, 10)+",424242", &some)
	if len(some.Items) != 1 || some.Items[0].ID != want {
		t.Errorf("id=%d,424242 gave %+v", want, some.Items)
	}
	for _, bad := range []string{"/api/prompts?id=x", "/api/summaries?id=1,-2"} {
		if status, body := w.srv.Get(t, bad); status != 400 {
			t.Errorf("%s: %d %s", bad, status, body)
		}
	}
	status, body := w.srv.Post(t, "/api/import/known", map[string]any{"ids": []string{"api-a", "never-seen"}})
	if status != 200 || !strings.Contains(string(body), `"known":1`) {
		t.Errorf("import/known: %d %s", status, body)
	}
}
