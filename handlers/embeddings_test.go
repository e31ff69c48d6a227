package handlers_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// embeddingsKeyFile is the embeddings endpoint's key file in the data
// directory, beside mneme.db (README).
const embeddingsKeyFile = "embeddings-key"

// semanticSeed is a worker with a few prompts and tool calls of project
// gw, ingested through the hooks.
func semanticSeed(t *testing.T) *testutil.Server {
	t.Helper()
	srv := testutil.NewServer(t, testutil.FastEmbed)
	srv.Hook(t, "session-start", apiHook("SessionStart", "sem-1", "gw", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "sem-1", "gw", map[string]any{
		"prompt": "users are logged out right after login", "prompt_id": "p1"}))
	for i, out := range []string{"POST /session returned 401 after the cookie change", "token bucket limiter per IP", "template for shortcode youtube not found"} {
		srv.Hook(t, "post-tool-use", apiHook("PostToolUse", "sem-1", "gw", map[string]any{
			"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_s%d", i),
			"tool_input":    map[string]any{"command": fmt.Sprintf("./check.sh %d", i)},
			"tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false},
		}))
	}
	return srv
}

func putEmbeddings(t *testing.T, srv *testutil.Server, body string) {
	t.Helper()
	if status, b := srv.Do(t, "PUT", "/api/settings", `{"embeddings":`+body+`}`, nil); status != 200 {
		t.Fatalf("PUT embeddings %s: %d %s", body, status, b)
	}
}

func searchAPI(t *testing.T, srv *testutil.Server, q, mode string) (int, api.SearchResults, string) {
	t.Helper()
	v := url.Values{"q": {q}, "limit": {"5"}}
	if mode != "" {
		v.Set("mode", mode)
	}
	status, b := srv.Do(t, "GET", "/api/search?"+v.Encode(), nil, nil)
	var res api.SearchResults
	if status == 200 {
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
	}
	return status, res, string(b)
}

// TestSemanticSearchThroughTheAPI: off by default (text, and a clear 400
// for semantic or hybrid); once the endpoint is set the worker's indexer
// backfills every row (health counts it) and hybrid, the default, finds
// a question in plain words that full text cannot; a slow endpoint makes
// hybrid answer with text (mode "text") and semantic a 503.
func TestSemanticSearchThroughTheAPI(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	srv := semanticSeed(t)
	if h := srv.EmbeddingsHealth(t); h.State != "off" {
		t.Fatalf("health before: %+v", h)
	}
	const question = "why was the user logged out after the cookie change"
	if status, res, b := searchAPI(t, srv, "cookie", ""); status != 200 || res.Mode != "text" || len(res.Items) == 0 {
		t.Fatalf("default search while off: %d %s", status, b)
	}
	if status, _, b := searchAPI(t, srv, "cookie", "semantic"); status != 400 || !strings.Contains(b, "search by meaning is off") || strings.Contains(b, "invalid") {
		t.Errorf("mode semantic while off: %d %s", status, b)
	}
	// Hybrid runs on words while embeddings are off, and says so.
	if status, res, b := searchAPI(t, srv, "cookie", "hybrid"); status != 200 || res.Mode != "text" || len(res.Items) == 0 {
		t.Errorf("mode hybrid while off: %d %s", status, b)
	}
	if status, _, b := searchAPI(t, srv, "cookie", "fuzzy"); status != 400 || !strings.Contains(b, "hybrid, text or semantic") {
		t.Errorf("a bad mode: %d %s", status, b)
	}

	putEmbeddings(t, srv, `{"url":"`+fake.URL+`","model":"m","dimensions":64}`)
	h := srv.WaitEmbeddings(t, "the backfill", func(h api.EmbeddingsHealth) bool { return h.State == "ok" && h.Total > 0 && h.Embedded == h.Total })
	srv.WaitVectorIndex(t)
	if h.Total != 4 || h.Model != "m" {
		t.Errorf("health after the backfill: %+v (want 1 prompt + 3 tool calls)", h)
	}
	if _, res, _ := searchAPI(t, srv, question, "text"); len(res.Items) != 0 {
		t.Errorf("text found %d hits for the question (every word must match)", len(res.Items))
	}
	status, res, b := searchAPI(t, srv, question, "")
	if status != 200 || res.Mode != "hybrid" || len(res.Items) == 0 {
		t.Fatalf("hybrid by default: %d %s", status, b)
	}
	top := res.Items[0].Title + res.Items[0].Snippet
	if !strings.Contains(top, "logged out") && !strings.Contains(top, "cookie") {
		t.Errorf("hybrid's first hit: %+v", res.Items[0])
	}
	if status, res, b := searchAPI(t, srv, question, "semantic"); status != 200 || res.Mode != "semantic" || len(res.Items) == 0 {
		t.Errorf("semantic: %d %s", status, b)
	}

	// A new row is embedded without anyone asking.
	srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "sem-1", "gw", map[string]any{"prompt": "rotate the signing keys", "prompt_id": "p2"}))
	srv.WaitEmbeddings(t, "the new prompt embedded", func(h api.EmbeddingsHealth) bool { return h.Total == 5 && h.Embedded == 5 })

	// Slow endpoint: hybrid answers with text, semantic fails clearly.
	fake.SetMode(embedtest.Slow)
	if status, res, b := searchAPI(t, srv, "cookie", "hybrid"); status != 200 || res.Mode != "text" || len(res.Items) == 0 {
		t.Errorf("hybrid with a slow endpoint: %d %s", status, b)
	}
	if status, _, b := searchAPI(t, srv, "cookie", "semantic"); status != 503 || !strings.Contains(b, "embeddings endpoint") {
		t.Errorf("semantic with a slow endpoint: %d %s", status, b)
	}
}

// TestEmbeddingsHealthNamesEndpointErrors: an endpoint that is down,
// slow, answers the wrong dimensions or garbage shows in health as an
// error saying which (nothing is embedded, search still answers); once it
// answers, the backlog is embedded and the error goes.
func TestEmbeddingsHealthNamesEndpointErrors(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(32)
	fake.Delay = 3 * time.Second
	defer fake.Close()
	srv := semanticSeed(t)
	cases := []struct {
		mode embedtest.Mode
		url  string
		want string
	}{
		{embedtest.WrongDims, fake.URL, "wrong length"},
		{embedtest.Garbage, fake.URL, "not embeddings"},
		{embedtest.Failing, fake.URL, "503"},
		{embedtest.Slow, fake.URL, "did not answer"},
		{embedtest.OK, embedtest.DownURL(), "did not answer"},
	}
	for i, tc := range cases {
		fake.SetMode(tc.mode)
		// Each case a new model: every row pending again.
		putEmbeddings(t, srv, fmt.Sprintf(`{"url":%q,"model":"m%d","dimensions":32}`, tc.url, i))
		h := srv.WaitEmbeddings(t, tc.want, func(h api.EmbeddingsHealth) bool { return h.State == "error" && h.Model == fmt.Sprintf("m%d", i) })
		if !strings.Contains(h.LastError, tc.want) || h.Embedded != 0 || h.Total != 4 {
			t.Errorf("case %d: health %+v, want an error saying %q and nothing embedded", i, h, tc.want)
		}
		if status, res, b := searchAPI(t, srv, "cookie", "hybrid"); status != 200 || len(res.Items) == 0 {
			t.Errorf("case %d: hybrid search: %d %s", i, status, b)
		}
	}
	fake.SetMode(embedtest.OK)
	putEmbeddings(t, srv, `{"url":"`+fake.URL+`","model":"m-ok","dimensions":32}`)
	srv.WaitEmbeddings(t, "recovery", func(h api.EmbeddingsHealth) bool {
		return h.State == "ok" && h.LastError == "" && h.Embedded == 4 && h.Model == "m-ok"
	})
	// The settings page shows the state.
	_, page := srv.Get(t, "/settings")
	if !strings.Contains(string(page), `id="embeddings-state"`) || !strings.Contains(string(page), "4 of 4 rows embedded with m-ok") {
		t.Error("the settings page does not show the embeddings state")
	}
}

// TestForgetDeletesVectors: forgetting an observation through the API
// leaves no vector of it (and health counts one row fewer).
func TestForgetDeletesVectors(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(16)
	defer fake.Close()
	srv := semanticSeed(t)
	putEmbeddings(t, srv, `{"url":"`+fake.URL+`","model":"m","dimensions":16}`)
	srv.WaitEmbeddings(t, "the backfill", func(h api.EmbeddingsHealth) bool { return h.Total == 4 && h.Embedded == 4 })
	var id int64
	modelstest.Scan(t, srv.Store, &id, `SELECT min(id) FROM observations`)
	vectors := func() (n int64) {
		modelstest.Scan(t, srv.Store, &n, `SELECT count(*) FROM embeddings WHERE item_type = 'observation' AND item_id = ?`, id)
		return n
	}
	if vectors() != 1 {
		t.Fatalf("observation %d has %d vectors before forget", id, vectors())
	}
	if status, b := srv.Do(t, "DELETE", fmt.Sprintf("/api/observations/%d", id), nil, nil); status != 200 {
		t.Fatalf("forget: %d %s", status, b)
	}
	if n := vectors(); n != 0 {
		t.Errorf("%d vectors left of the forgotten observation", n)
	}
	srv.WaitEmbeddings(t, "one row fewer", func(h api.EmbeddingsHealth) bool { return h.Total == 3 && h.Embedded == 3 })
}

// TestRelatedHintSemanticWithinBudget: with embeddings on, the
// UserPromptSubmit hint asks the endpoint (hybrid hints); with the
// endpoint slow it does not wait for it: the hook answers with the text
// hints before the endpoint does (the fake never finished the request)
// and the log says it fell back.
func TestRelatedHintSemanticWithinBudget(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(64)
	fake.Delay = time.Minute
	defer fake.Close()
	logs := &testutil.SyncBuffer{}
	srv := testutil.NewServer(t, testutil.FastEmbed, func(o *app.Options) {
		o.Log = slog.New(slog.NewTextHandler(logs, nil))
		o.Embed.HintBudget = 200 * time.Millisecond
	})
	srv.Hook(t, "session-start", apiHook("SessionStart", "old", "gw", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "old", "gw", map[string]any{"prompt": "debug the login", "prompt_id": "p1"}))
	srv.Hook(t, "post-tool-use", apiHook("PostToolUse", "old", "gw", map[string]any{
		"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": "toolu_old1",
		"tool_input":    map[string]any{"command": "curl -i localhost/session"},
		"tool_response": map[string]any{"stdout": "POST /session returned 401 after the cookie change", "stderr": "", "interrupted": false},
	}))
	if status, b := srv.Do(t, "PUT", "/api/settings", `{"injection":{"relatedThreshold":0.1}}`, nil); status != 200 {
		t.Fatalf("threshold: %d %s", status, b)
	}
	srv.EnableEmbeddings(t, fake.URL, "m", 64)
	srv.Hook(t, "session-start", apiHook("SessionStart", "new", "gw", map[string]any{"source": "startup"}))

	asked := fake.Requests.Load()
	out := srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "new", "gw", map[string]any{
		"prompt": "the session cookie change returns 401 on POST", "prompt_id": "n1"}))
	if !strings.Contains(string(out), "related memory") || !strings.Contains(string(out), "curl -i localhost/session") {
		t.Fatalf("no hint with the endpoint up: %s", out)
	}
	if fake.Requests.Load() == asked {
		t.Error("the hint did not ask the embeddings endpoint")
	}

	// The worker embeds the new prompt in the background: let it finish
	// before the endpoint turns slow, or its answer counts as the hook's.
	srv.WaitEmbeddings(t, "the new prompt embedded", func(h api.EmbeddingsHealth) bool { return h.Embedded == h.Total })
	fake.SetMode(embedtest.Slow)
	asked, answered := fake.Requests.Load(), fake.Texts.Load()
	out = srv.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "new", "gw", map[string]any{
		"prompt": "the session cookie change returns 401 on POST again", "prompt_id": "n2"}))
	if !strings.Contains(string(out), "related memory") || !strings.Contains(string(out), "curl -i localhost/session") {
		t.Errorf("no text hint with the endpoint slow: %s\n%s", out, logs.String())
	}
	if fake.Requests.Load() == asked || fake.Texts.Load() != answered {
		t.Errorf("the hook waited for the slow endpoint (asked %d→%d, answered %d→%d)", asked, fake.Requests.Load(), answered, fake.Texts.Load())
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logs.String(), "hinting from text alone") {
		if time.Now().After(deadline) {
			t.Fatalf("the fallback is not logged:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSearchPageModeToggle: the viewer's search offers the mode toggle
// only while embeddings are on; with it, a plain-language question
// finds what words alone do not, "Words only" keeps to text, and a slow
// endpoint shows word matches with a notice.
func TestSearchPageModeToggle(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	srv := semanticSeed(t)
	c := srv.LoggedIn(t)
	get := func(q url.Values) string {
		t.Helper()
		resp, err := c.Get(srv.URL + "/search?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET /search?%s: %d %s", q.Encode(), resp.StatusCode, b)
		}
		return string(b)
	}
	const question = "why was the user logged out after the cookie change"
	if page := get(url.Values{"q": {question}}); !strings.Contains(page, `id="search-mode" disabled`) || !strings.Contains(page, `id="search-mode-off"`) || !strings.Contains(page, "No matches.") {
		t.Error("while off: the mode toggle is not shown disabled with why, or text found the question")
	}
	srv.EnableEmbeddings(t, fake.URL, "m", 64)
	page := get(url.Values{"q": {question}})
	if !strings.Contains(page, `id="search-mode"`) || !strings.Contains(page, `id="results"`) || !strings.Contains(page, "cookie change") {
		t.Error("hybrid page: no toggle or no results")
	}
	if page := get(url.Values{"q": {question}, "mode": {"text"}}); !strings.Contains(page, "No matches.") || !strings.Contains(page, `<option value="text" selected`) {
		t.Error("mode=text found the question, or the toggle does not show it")
	}
	fake.SetMode(embedtest.Slow)
	if page := get(url.Values{"q": {"cookie"}}); !strings.Contains(page, `id="search-fellback"`) || !strings.Contains(page, `id="results"`) {
		t.Error("slow endpoint: no notice or no word matches")
	}
}

// TestMemorySearchSemantic: memories are embedded with the other rows,
// and GET /api/memories?q= (which MCP's search type=memory asks) finds
// one by meaning in hybrid (the default once on) and semantic modes,
// within its kind filter; semantic while off is a 400.
func TestMemorySearchSemantic(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	srv := semanticSeed(t)
	remember := func(kind, text string) {
		t.Helper()
		if status, b := srv.Do(t, "POST", "/api/memories", fmt.Sprintf(`{"project":"gw","kind":%q,"text":%q}`, kind, text), nil); status != 200 {
			t.Fatalf("remember: %d %s", status, b)
		}
	}
	remember("decision", "sessions are kept in a signed cookie, not in redis")
	remember("constraint", "never vendor the youtube shortcode templates")
	memories := func(q, mode, kind string) (int, api.Page[models.Memory], string) {
		t.Helper()
		v := url.Values{"q": {q}, "project": {"gw"}}
		for k, x := range map[string]string{"mode": mode, "kind": kind} {
			if x != "" {
				v.Set(k, x)
			}
		}
		status, b := srv.Do(t, "GET", "/api/memories?"+v.Encode(), nil, nil)
		var res api.Page[models.Memory]
		if status == 200 {
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatal(err)
			}
		}
		return status, res, string(b)
	}
	const question = "where do we keep the signed session cookie"
	if status, _, b := memories(question, "semantic", ""); status != 400 || !strings.Contains(b, "search by meaning is off") {
		t.Errorf("semantic while off: %d %s", status, b)
	}
	putEmbeddings(t, srv, `{"url":"`+fake.URL+`","model":"m","dimensions":64}`)
	srv.WaitEmbeddings(t, "the backfill", func(h api.EmbeddingsHealth) bool { return h.State == "ok" && h.Total == 6 && h.Embedded == 6 })
	srv.WaitVectorIndex(t)
	if _, res, _ := memories(question, "text", ""); len(res.Items) != 0 {
		t.Errorf("text found %d memories for the question (every word must match)", len(res.Items))
	}
	for _, mode := range []string{"", "hybrid", "semantic"} {
		status, res, b := memories(question, mode, "")
		if status != 200 || len(res.Items) == 0 || !strings.Contains(res.Items[0].Text, "signed cookie") {
			t.Errorf("mode %q: %d %s, want the cookie decision first", mode, status, b)
		}
	}
	if _, res, b := memories(question, "semantic", "constraint"); len(res.Items) != 1 || res.Items[0].Kind != "constraint" {
		t.Errorf("semantic, constraints only: %s", b)
	}
	// A slow endpoint: hybrid answers with text, semantic is a 503.
	fake.SetMode(embedtest.Slow)
	if status, res, b := memories("cookie", "hybrid", ""); status != 200 || len(res.Items) != 1 {
		t.Errorf("hybrid with a slow endpoint: %d %s", status, b)
	}
	if status, _, b := memories("cookie", "semantic", ""); status != 503 {
		t.Errorf("semantic with a slow endpoint: %d %s", status, b)
	}
}

// TestEmbeddingsSettingsReachReplicas: two workers on one PostgreSQL
// database; the embeddings endpoint set through A is in force on B
// without a restart (health, semantic search), and so is a change of
// model and switching it off.
func TestEmbeddingsSettingsReachReplicas(t *testing.T) {
	pgtest.PostgresOnly(t)
	fake := embedtest.New(32)
	defer fake.Close()
	url := pgtest.URL(t)
	a := testutil.NewServer(t, testutil.FastEmbed, onDatabase(url))
	b := testutil.NewServer(t, testutil.FastEmbed, onDatabase(url))
	b.Hook(t, "session-start", apiHook("SessionStart", "rep-1", "gw", map[string]any{"source": "startup"}))
	b.Hook(t, "user-prompt-submit", apiHook("UserPromptSubmit", "rep-1", "gw", map[string]any{"prompt": "users are logged out after the cookie change", "prompt_id": "p1"}))
	if h := b.EmbeddingsHealth(t); h.State != "off" {
		t.Fatalf("B before: %+v", h)
	}
	putEmbeddings(t, a, `{"url":"`+fake.URL+`","model":"m1","dimensions":32}`)
	b.WaitEmbeddings(t, "B to follow A's endpoint", func(h api.EmbeddingsHealth) bool {
		return h.Model == "m1" && h.State == "ok" && h.Embedded == h.Total && h.Total > 0
	})
	// Vectors A's indexer stored join B's index with its next reload.
	waitFor(t, "a semantic search on B to find the prompt", func() bool {
		status, res, _ := searchAPI(t, b, "why was I logged out", "semantic")
		return status == 200 && res.Mode == "semantic" && len(res.Items) > 0
	})
	// B's own key (a file in its data directory) is dropped when A moves
	// the endpoint, not sent to the new address.
	putEmbeddings(t, b, `{"apiKey":"sk-replica-b-0123456789"}`)
	if !embeddingsKeySet(t, b) {
		t.Fatal("B's key is not set")
	}
	putEmbeddings(t, a, `{"url":"`+fake.URL+`/v1"}`)
	waitFor(t, "B to drop its key for the old address", func() bool { return !embeddingsKeySet(t, b) })
	if _, err := os.Stat(filepath.Join(b.DataDir, embeddingsKeyFile)); !os.IsNotExist(err) {
		t.Errorf("B's key file is still there: %v", err)
	}
	putEmbeddings(t, a, `{"model":"m2"}`)
	b.WaitEmbeddings(t, "B to follow the model change", func(h api.EmbeddingsHealth) bool { return h.Model == "m2" })
	putEmbeddings(t, a, `{"url":""}`)
	b.WaitEmbeddings(t, "B to switch it off", func(h api.EmbeddingsHealth) bool { return h.State == "off" })
	if status, _, body := searchAPI(t, b, "cookie", "semantic"); status != 400 {
		t.Errorf("semantic search on B once off: %d %s", status, body)
	}
}

// embeddingsKeySet tells whether srv's settings in force hold an
// embeddings key (GET /api/settings says set or not, never the key).
func embeddingsKeySet(t *testing.T, srv *testutil.Server) bool {
	t.Helper()
	var st struct {
		Embeddings struct {
			APIKey string `json:"apiKey"`
		} `json:"embeddings"`
	}
	srv.GetJSON(t, "/api/settings", &st)
	return st.Embeddings.APIKey == models.APIKeySet
}

// TestHybridSearchSaysWordsUnread: with embeddings on, a query whose
// words cannot be read (an unclosed quote, an operator missing its other
// side) still answers by meaning in hybrid mode, and says why there are
// no word matches: /api/search and /api/memories in wordsError, the
// search page and the Memory page in a notice beside the results. Text
// mode keeps answering 400 with the same reason; a query that reads well
// has no such note.
func TestHybridSearchSaysWordsUnread(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	srv := semanticSeed(t)
	if status, b := srv.Do(t, "POST", "/api/memories", `{"project":"gw","kind":"decision","text":"sessions are kept in a signed cookie, not in redis"}`, nil); status != 200 {
		t.Fatalf("remember: %d %s", status, b)
	}
	srv.EnableEmbeddings(t, fake.URL, "m", 64)
	cases := []struct{ name, q, why string }{
		{"unclosed quote", `why was the user "logged out after the cookie change`, `a "quoted phrase" is not closed`},
		{"operator without its other side", `cookie change AND`, "the query ends too early"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, res, b := searchAPI(t, srv, tc.q, "")
			if status != 200 || res.Mode != "hybrid" || len(res.Items) == 0 || !strings.Contains(res.WordsError, tc.why) {
				t.Errorf("/api/search hybrid: %d %s; want meaning hits and wordsError %q", status, b, tc.why)
			}
			var refusal struct{ Error string }
			if status, _, b := searchAPI(t, srv, tc.q, "text"); status != 400 || json.Unmarshal([]byte(b), &refusal) != nil || !strings.Contains(refusal.Error, tc.why) {
				t.Errorf("/api/search text: %d %s; want 400 with %q", status, b, tc.why)
			}
			status, mb := srv.Do(t, "GET", "/api/memories?"+url.Values{"q": {tc.q}, "project": {"gw"}}.Encode(), nil, nil)
			var mem api.MemoryResults
			if status != 200 || json.Unmarshal(mb, &mem) != nil || len(mem.Items) == 0 || mem.Mode != "hybrid" || !strings.Contains(mem.WordsError, tc.why) {
				t.Errorf("/api/memories hybrid: %d %s", status, mb)
			}
			for _, path := range []string{"/search?", "/memory?project=gw&"} {
				status, page := srv.Get(t, path+url.Values{"q": {tc.q}}.Encode())
				body := string(page)
				if status != 200 || !strings.Contains(body, `id="search-words-error"`) || !strings.Contains(body, "could not be read: "+html.EscapeString(tc.why)) {
					t.Errorf("%s: %d, no words notice with %q", path, status, tc.why)
				}
				if strings.Contains(body, "invalid search query") {
					t.Errorf("%s: says it in the store's words", path)
				}
			}
		})
	}
	status, page := srv.Get(t, "/search?"+url.Values{"q": {"cookie"}}.Encode())
	if status != 200 || strings.Contains(string(page), `id="search-words-error"`) {
		t.Errorf("a query that reads well: %d, with the words notice", status)
	}
	if _, res, b := searchAPI(t, srv, "cookie", ""); res.WordsError != "" || len(res.Items) == 0 {
		t.Errorf("a query that reads well: %s", b)
	}
}
