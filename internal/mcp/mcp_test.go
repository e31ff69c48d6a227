package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mneme-dev/mneme/internal/mcp"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// githubToken is a secret put in a prompt and a tool output: the tools
// must only ever show it redacted.
var githubToken = "ghp_" + "Zq8xK2mN4pR7tV1wY5bC9dF3gH6jL0sA2eU4"

// zebraSteps is how many Bash calls the api-server session makes.
const zebraSteps = 30

// world is a worker holding two sessions: the fixture's notes-app session,
// and an api-server session with zebraSteps Bash calls, a failing test run
// with a long output, and a secret.
type world struct {
	srv     *testutil.Server
	session int64 // api-server's session id
}

func newWorld(t *testing.T) *world {
	t.Helper()
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	sid := "5d1c2b1e-0000-4000-8000-00000000a11e"
	base := map[string]any{"session_id": sid, "transcript_path": "", "cwd": "/home/dev/projects/api-server"}
	ev := func(name string, extra map[string]any) map[string]any {
		m := map[string]any{"hook_event_name": name}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	srv.Hook(t, "session-start", ev("SessionStart", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", ev("UserPromptSubmit", map[string]any{"prompt": "make the zebra migration pass, token " + githubToken, "prompt_id": "p1"}))
	for i := 1; i <= zebraSteps; i++ {
		srv.Hook(t, "post-tool-use", ev("PostToolUse", map[string]any{
			"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_z%02d", i), "duration_ms": 5, "prompt_id": "p1",
			"tool_input":    map[string]any{"command": fmt.Sprintf("echo zebra-step-%d", i), "description": "step"},
			"tool_response": map[string]any{"stdout": fmt.Sprintf("zebra-step-%d", i), "stderr": "", "interrupted": false},
		}))
	}
	var long strings.Builder
	for i := range 400 {
		fmt.Fprintf(&long, "--- FAIL: TestZebraMigration/case_%03d (0.01s) migration_test.go:%d: want 3 rows\n", i, 100+i)
	}
	long.WriteString("zebra rows missing\nFAIL\tgithub.com/acme/api-server/migrate\t0.42s\nleaked " + githubToken + "\n")
	srv.Hook(t, "post-tool-use-failure", ev("PostToolUseFailure", map[string]any{
		"tool_name": "Bash", "tool_use_id": "toolu_zfail", "duration_ms": 420, "prompt_id": "p1", "is_interrupt": false,
		"tool_input": map[string]any{"command": "go test ./migrate/", "description": "run the zebra tests"},
		"error":      "Exit code 1\n" + long.String(),
	}))
	srv.Hook(t, "stop", ev("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": "The zebra migration still fails on case 399."}))
	srv.Hook(t, "session-end", ev("SessionEnd", map[string]any{"reason": "other"}))

	var sessions struct {
		Items []struct {
			ID      int64  `json:"id"`
			Project string `json:"project"`
		} `json:"items"`
	}
	srv.GetJSON(t, "/api/sessions?project=api-server", &sessions)
	if len(sessions.Items) != 1 {
		t.Fatalf("api-server sessions: %+v", sessions)
	}
	w := &world{srv: srv, session: sessions.Items[0].ID}
	// The summaries are written in the background: wait for them.
	testutil.WaitJobs(t, srv.Store, time.Minute)
	return w
}

// api is the worker's API over its socket, as `mneme mcp` reaches it.
func (w *world) api() mcp.API {
	return mcp.HTTPAPI{Base: testutil.SocketURL, Client: w.srv.SocketClient(), Where: "on " + w.srv.Socket}
}

// connect runs the MCP server over api and returns a client session to it
// through the SDK's in-memory transport.
func connect(t testing.TB, api mcp.API, opts mcp.Options) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.New(api, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and returns its text and whether it is a tool error.
// A protocol error fails the test: bad input must come back as a tool
// error.
func call(t testing.TB, cs *sdk.ClientSession, tool string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", tool, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", tool, c)
		}
		b.WriteString(tc.Text)
	}
	if strings.Contains(b.String(), githubToken) {
		t.Errorf("%s %v printed the raw secret:\n%s", tool, args, b.String())
	}
	return b.String(), res.IsError
}

// mustCall is call for a call that must succeed.
func mustCall(t testing.TB, cs *sdk.ClientSession, tool string, args any) string {
	t.Helper()
	text, isErr := call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v: tool error: %s", tool, args, text)
	}
	return text
}

var obsRow = regexp.MustCompile(`(?m)^#(\d+)  \d{4}-\d\d-\d\d \d\d:\d\d  \S+  (.*)$`)

// rowIDs are the observation ids of an answer's rows, in order.
func rowIDs(text string) []string {
	var ids []string
	for _, m := range obsRow.FindAllStringSubmatch(text, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestMCPToolsTeachTheWorkflow(t *testing.T) {
	t.Parallel()
	w := &world{srv: testutil.NewServer(t)}
	cs := connect(t, w.api(), mcp.Options{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	// What `mneme install` says the server has is what it lists.
	want := slices.Clone(mcp.ToolNames)
	slices.Sort(names)
	slices.Sort(want)
	if got, want := strings.Join(names, ","), strings.Join(want, ","); got != want {
		t.Errorf("the server lists %s, ToolNames says %s", got, want)
	}
	desc := map[string]string{}
	for _, tool := range res.Tools {
		desc[tool.Name] = tool.Description
		if tool.Name == mcp.ToolRemember {
			continue // the one tool that writes
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
	}
	for name, want := range map[string][]string{
		mcp.ToolSearch:          {"Step 1 of 3", "FTS5", "timeline", "get_observations", "maxTokens"},
		mcp.ToolTimeline:        {"Step 2 of 3", "anchor", "session", "get_observations"},
		mcp.ToolGetObservations: {"Step 3 of 3", "at most 20"},
		mcp.ToolRecentSessions:  {"summary", "timeline session="},
	} {
		for _, s := range want {
			if !strings.Contains(desc[name], s) {
				t.Errorf("%s's description lacks %q:\n%s", name, s, desc[name])
			}
		}
	}
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "1. search") || !strings.Contains(ins, "3. get_observations") {
		t.Errorf("server instructions: %q", ins)
	}
}

func TestMCPSearch(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cs := connect(t, w.api(), mcp.Options{})

	text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "notes"})
	m := obsRow.FindStringSubmatch(text)
	if m == nil || !strings.Contains(text, "Created notes.md") || !strings.Contains(text, "(notes-app)") {
		t.Errorf("search notes: no row like `#id  date  kind  Created notes.md  (notes-app)`:\n%s", text)
	}
	if strings.Contains(text, "hunter2") {
		t.Errorf("search printed private text:\n%s", text)
	}
	if !strings.Contains(text, "Next: timeline anchor=") || !strings.Contains(text, "all shown") {
		t.Errorf("search lacks its closing lines:\n%s", text)
	}

	// Prompts and summaries come as session rows, the secret redacted.
	text = mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zebra migration", "type": "prompt"})
	if want := fmt.Sprintf("session s%d  ", w.session); !strings.HasPrefix(strings.SplitN(text, "\n", 3)[1], want) || !strings.Contains(text, "[REDACTED:") {
		t.Errorf("prompt search: want a %q row with the token redacted:\n%s", want, text)
	}

	// Filters: tool, project, dates; the failure is marked.
	text = mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zebra", "tool": "Bash", "project": "api-server", "limit": 100, "maxTokens": 25000})
	if ids := rowIDs(text); len(ids) != zebraSteps+1 || !strings.Contains(text, "[failed]") || strings.Contains(text, "(api-server)") {
		t.Errorf("zebra in Bash of api-server: %d rows, want %d, one failed, no project column:\n%s", len(ids), zebraSteps+1, text)
	}
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	tomorrow := time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly)
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zebra", "from": tomorrow}); !strings.Contains(text, "No matches") {
		t.Errorf("from the day after tomorrow: %s", text)
	}
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zebra", "to": yesterday, "project": "api-server"}); !strings.Contains(text, "No matches") {
		t.Errorf("before today: %s", text)
	}
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zzznomatch"}); !strings.Contains(text, "No matches for zzznomatch") {
		t.Errorf("no match: %s", text)
	}
}

func TestMCPSearchBudgetAndPaging(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cs := connect(t, w.api(), mcp.Options{})
	for _, tokens := range []int{200, 300, 450} {
		text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zebra", "type": "observation", "limit": 100, "maxTokens": tokens})
		if len(text) > tokens*4 {
			t.Errorf("maxTokens=%d: %d bytes, over %d", tokens, len(text), tokens*4)
		}
		ids := rowIDs(text)
		if len(ids) == 0 || len(ids) >= zebraSteps {
			t.Errorf("maxTokens=%d: %d rows", tokens, len(ids))
		}
		if want := fmt.Sprintf("more fetched but over maxTokens=%d", tokens); !strings.Contains(text, want) || !strings.Contains(text, fmt.Sprintf("offset=%d", len(ids))) {
			t.Errorf("maxTokens=%d: no %q with offset=%d:\n%s", tokens, want, len(ids), text)
		}
	}
	// Paging by offset walks every match once.
	seen := map[string]bool{}
	for offset := 0; ; {
		text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zebra", "type": "observation", "limit": 7, "offset": offset})
		ids := rowIDs(text)
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("offset %d: #%s again", offset, id)
			}
			seen[id] = true
		}
		if !strings.Contains(text, "more matches: search again with offset=") {
			break
		}
		offset += len(ids)
		if offset > 100 {
			t.Fatal("paging does not end")
		}
	}
	if len(seen) != zebraSteps+1 {
		t.Errorf("paging saw %d matches, want %d", len(seen), zebraSteps+1)
	}
}

func TestMCPTimeline(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cs := connect(t, w.api(), mcp.Options{})
	ids := rowIDs(mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "\"zebra-step-15\"", "type": "observation"}))
	if len(ids) != 1 {
		t.Fatalf("zebra-step-15: %v", ids)
	}
	text := mustCall(t, cs, mcp.ToolTimeline, map[string]any{"anchor": json.Number(ids[0]), "before": 2, "after": 3})
	if !strings.Contains(text, ">> #"+ids[0]+"  ") || !strings.Contains(text, "zebra-step-15") {
		t.Errorf("the anchor is not marked:\n%s", text)
	}
	if n := len(regexp.MustCompile(`(?m)^(>>|  ) #\d+`).FindAllString(text, -1)); n != 6 {
		t.Errorf("want 6 tool calls (2 before, anchor, 3 after), got %d:\n%s", n, text)
	}
	for _, want := range []string{"session s" + fmt.Sprint(w.session) + " · api-server", "Earlier: timeline anchor=", "Later: timeline anchor=", "Next: get_observations"} {
		if !strings.Contains(text, want) {
			t.Errorf("timeline lacks %q:\n%s", want, text)
		}
	}

	// A whole session, from its start: the prompt, the calls, the failure,
	// within the budget.
	text = mustCall(t, cs, mcp.ToolTimeline, map[string]any{"session": w.session, "limit": 200, "maxTokens": 25000})
	for _, want := range []string{"prompt 1", "zebra migration", "[REDACTED:", "zebra-step-1`", "go test ./migrate/", "[failed]"} {
		if !strings.Contains(text, want) {
			t.Errorf("session timeline lacks %q:\n%s", want, text)
		}
	}
	small := mustCall(t, cs, mcp.ToolTimeline, map[string]any{"session": w.session, "limit": 200, "maxTokens": 200})
	if len(small) > 800 || !strings.Contains(small, "left out for maxTokens=200") {
		t.Errorf("maxTokens=200: %d bytes:\n%s", len(small), small)
	}
	page := mustCall(t, cs, mcp.ToolTimeline, map[string]any{"session": w.session, "limit": 10})
	if !strings.Contains(page, fmt.Sprintf("Later: timeline session=s%d offset=10.", w.session)) {
		t.Errorf("first page of 10 does not say where the next starts:\n%s", page)
	}
}

func TestMCPGetObservations(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cs := connect(t, w.api(), mcp.Options{})
	fail := rowIDs(mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "TestZebraMigration", "type": "observation"}))
	notes := rowIDs(mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "Created notes.md", "type": "observation"}))
	if len(fail) != 1 || len(notes) != 1 {
		t.Fatalf("search: %v %v", fail, notes)
	}
	text := mustCall(t, cs, mcp.ToolGetObservations, map[string]any{"ids": []any{json.Number(notes[0]), json.Number(fail[0]), 999999}})
	recs := strings.Split(text, "\n\n")
	if len(recs) != 3 {
		t.Fatalf("want two records and a not-found line, got:\n%s", text)
	}
	if !strings.HasPrefix(recs[0], "#"+notes[0]+"  Created notes.md") || !strings.Contains(recs[0], "files: /home/dev/projects/notes-app/notes.md") || strings.Contains(recs[0], "hunter2") {
		t.Errorf("the Write's record:\n%s", recs[0])
	}
	rec := recs[1]
	if len(rec) > 4096 || !strings.Contains(rec, "bytes cut …]") || !strings.Contains(rec, "FAILED") {
		t.Errorf("the long failure: %d bytes, want ≤ 4096 with a cut marked:\n%s", len(rec), rec)
	}
	// The head (what was run) and the tail (how it ended) stay.
	if !strings.Contains(rec, "go test ./migrate/") || !strings.Contains(rec, "case_399") || !strings.Contains(rec, "[REDACTED:") {
		t.Errorf("the cut record lost its head or tail:\n%s", rec)
	}
	if recs[2] != "Not found: #999999." {
		t.Errorf("missing id: %q", recs[2])
	}

	// Ids as the rows show them, or as strings, are read too.
	if text := mustCall(t, cs, mcp.ToolGetObservations, map[string]any{"ids": []any{"#" + notes[0], notes[0]}}); !strings.HasPrefix(text, "#"+notes[0]+"  Created notes.md") || strings.Count(text, "Created notes.md") != 1 {
		t.Errorf(`ids ["#%s", "%s"]:\n%s`, notes[0], notes[0], text)
	}
	if text := mustCall(t, cs, mcp.ToolTimeline, map[string]any{"anchor": "#" + fail[0], "before": 0}); !strings.Contains(text, ">> #"+fail[0]+"  ") {
		t.Errorf(`anchor "#%s":\n%s`, fail[0], text)
	}
}

func TestMCPRecentSessions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cs := connect(t, w.api(), mcp.Options{Project: "api-server"})
	text := mustCall(t, cs, mcp.ToolRecentSessions, map[string]any{})
	for _, want := range []string{"Latest sessions of api-server", fmt.Sprintf("session s%d  \"make the zebra migration pass, token [REDACTED", w.session), "1 prompt(s), 31 tool call(s), 1 failed", "request:", "Next: timeline session="} {
		if !strings.Contains(text, want) {
			t.Errorf("recent_sessions lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "notes-app") {
		t.Errorf("another project's session:\n%s", text)
	}
	text = mustCall(t, cs, mcp.ToolRecentSessions, map[string]any{"project": "notes-app"})
	if !strings.Contains(text, "Latest sessions of notes-app") || strings.Contains(text, "api-server") {
		t.Errorf("notes-app:\n%s", text)
	}
	// A directory mneme never saw: all projects, saying so.
	cs = connect(t, w.api(), mcp.Options{Project: "brand-new"})
	text = mustCall(t, cs, mcp.ToolRecentSessions, map[string]any{"limit": 1})
	if !strings.Contains(text, `No sessions recorded for project "brand-new"`) || !strings.Contains(text, "raise limit") {
		t.Errorf("unknown project:\n%s", text)
	}
	if text := mustCall(t, cs, mcp.ToolRecentSessions, map[string]any{"project": "nope"}); text != `No sessions recorded for project "nope".` {
		t.Errorf("named unknown project: %q", text)
	}
}

// Every kind of bad input to every tool is a tool error (IsError) with a
// message that says what is wrong; none is a protocol error or a crash.
func TestMCPBadInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cs := connect(t, w.api(), mcp.Options{})
	cases := []struct {
		tool string
		args any
		want string
	}{
		{mcp.ToolSearch, map[string]any{}, "query"},
		{mcp.ToolSearch, map[string]any{"query": "  "}, "query is empty"},
		{mcp.ToolSearch, map[string]any{"query": `"unbalanced`}, "search"},
		{mcp.ToolSearch, map[string]any{"query": "a AND"}, "search"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "limit": -1}, "limit must be from 1 to 100"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "limit": 101}, "limit must be from 1 to 100"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "offset": -5}, "offset must be 0 or more"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "maxTokens": -1}, "maxTokens must be from 200 to 25000"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "maxTokens": 50}, "maxTokens must be from 200 to 25000"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "from": "yesterday"}, "from"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "to": "2026-13-45"}, "to"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "type": "file"}, "type must be prompt, observation or summary"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "limit": "ten"}, "limit"},
		{mcp.ToolSearch, map[string]any{"query": "zebra", "colour": "red"}, "colour"},
		{mcp.ToolTimeline, map[string]any{}, "give either anchor"},
		{mcp.ToolTimeline, map[string]any{"anchor": 1, "session": 1}, "give either anchor"},
		{mcp.ToolTimeline, map[string]any{"anchor": -3}, "positive"},
		{mcp.ToolTimeline, map[string]any{"anchor": 999999}, "no observation #999999"},
		{mcp.ToolTimeline, map[string]any{"session": 999999}, "no session s999999"},
		{mcp.ToolTimeline, map[string]any{"anchor": 1, "before": -1}, "before must be from 0 to 100"},
		{mcp.ToolTimeline, map[string]any{"anchor": 1, "after": 1000}, "after must be from 0 to 100"},
		{mcp.ToolTimeline, map[string]any{"session": 1, "limit": -2}, "limit must be from 1 to 200"},
		{mcp.ToolTimeline, map[string]any{"session": 1, "offset": -2}, "offset must be 0 or more"},
		{mcp.ToolTimeline, map[string]any{"session": 1, "maxTokens": 10}, "maxTokens"},
		{mcp.ToolTimeline, map[string]any{"anchor": "twelve"}, "anchor"},
		{mcp.ToolTimeline, map[string]any{"anchor": 1.5}, "anchor"},
		{mcp.ToolGetObservations, map[string]any{}, "ids"},
		{mcp.ToolGetObservations, map[string]any{"ids": []int{}}, "ids is empty"},
		{mcp.ToolGetObservations, map[string]any{"ids": []int{0}}, "0 is not an id"},
		{mcp.ToolGetObservations, map[string]any{"ids": []int{-7}}, "-7 is not an id"},
		{mcp.ToolGetObservations, map[string]any{"ids": []int{999998, 999999}}, "nothing stored as #999998, #999999"},
		{mcp.ToolGetObservations, map[string]any{"ids": make([]int, 21)}, "21 ids asked, at most 20 per call"},
		{mcp.ToolGetObservations, map[string]any{"ids": "1,2"}, "ids"},
		{mcp.ToolGetObservations, map[string]any{"ids": []any{"#x"}}, "ids"},
		{mcp.ToolGetObservations, map[string]any{"ids": []any{true}}, "ids"},
		{mcp.ToolRecentSessions, map[string]any{"limit": -1}, "limit must be from 1 to 20"},
		{mcp.ToolRecentSessions, map[string]any{"limit": 21}, "limit must be from 1 to 20"},
		{mcp.ToolRecentSessions, map[string]any{"maxTokens": 30000}, "maxTokens must be from 200 to 25000"},
	}
	for _, c := range cases {
		text, isErr := call(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s %v: error %v %q, want an error with %q", c.tool, c.args, isErr, text, c.want)
		}
	}
	// An unknown tool is the protocol's error, and the session goes on.
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "drop_tables"}); err == nil {
		t.Error("an unknown tool succeeded")
	}
	mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "zebra"})
}

// With no worker, every tool answers a tool error that says so, and never
// the secret it would send.
func TestMCPWorkerDown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	client := &http.Client{Transport: &http.Transport{DialContext: (&testutil.Server{Socket: dir + "/none.sock"}).SocketClient().Transport.(*http.Transport).DialContext}}
	api := mcp.HTTPAPI{Base: testutil.SocketURL, Client: client, Where: "on " + dir + "/none.sock", Token: "s3cret-never-shown"}
	cs := connect(t, api, mcp.Options{Project: "x"})
	for tool, args := range map[string]any{
		mcp.ToolSearch: map[string]any{"query": "x"}, mcp.ToolTimeline: map[string]any{"anchor": 1},
		mcp.ToolGetObservations: map[string]any{"ids": []int{1}}, mcp.ToolRecentSessions: map[string]any{},
	} {
		text, isErr := call(t, cs, tool, args)
		if !isErr || !strings.Contains(text, "the mneme worker is not reachable on "+dir) || strings.Contains(text, "s3cret") {
			t.Errorf("%s without a worker: %v %q", tool, isErr, text)
		}
	}
}

// remember keeps a constraint (redacted, marked as Claude's), and search
// with type memory finds it, limited by kind.
func TestMCPRememberAndSearchMemories(t *testing.T) {
	t.Parallel()
	w := &world{srv: testutil.NewServer(t)}
	cs := connect(t, w.api(), mcp.Options{Project: "notes-app"})
	text := mustCall(t, cs, mcp.ToolRemember, map[string]any{"kind": "constraint",
		"text": "Use pnpm, not npm; the registry token " + githubToken + " stays out of the repo.", "files": []string{"package.json"}})
	if !strings.Contains(text, "Kept as m") || !strings.Contains(text, "[REDACTED:") {
		t.Fatalf("remember: %s", text)
	}
	mems, err := w.srv.Store.Memories(context.Background(), models.MemoryFilter{Project: "notes-app"})
	if err != nil || len(mems) != 1 || mems[0].Source != models.SourceClaude || mems[0].Kind != models.MemoryConstraint ||
		strings.Contains(mems[0].Text, githubToken) || mems[0].Files[0] != "package.json" {
		t.Fatalf("stored: %+v, %v", mems, err)
	}
	if text, isErr := call(t, cs, mcp.ToolRemember, map[string]any{"kind": "todo", "text": "x"}); !isErr {
		t.Errorf("remember a todo: %s", text)
	}
	text = mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "pnpm", "type": "memory"})
	if !strings.Contains(text, fmt.Sprintf("m%d", mems[0].ID)) || !strings.Contains(text, "constraint  Claude  current  Use pnpm") {
		t.Errorf("search type memory: %s", text)
	}
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "pnpm", "type": "memory", "kind": "decision"}); !strings.Contains(text, "No memories match") {
		t.Errorf("search kind decision: %s", text)
	}
}
