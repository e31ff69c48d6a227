package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

func putSettings(t *testing.T, srv *testutil.Server, body string) (int, []byte) {
	t.Helper()
	return srv.Do(t, http.MethodPut, "/api/settings", body, nil)
}

func TestSettingsValidatedAsAWhole(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	n := len(models.DefaultSettings().Privacy.RedactionRules)
	cur := srv.Capture.Policy().Settings
	cur.Privacy.RedactionRules = append(cur.Privacy.RedactionRules, privacy.Rule{Name: "ticket", Pattern: "TICKET-(", Enabled: true})
	cur.Injection.MaxInjectTokens = 99999
	cur.Capture.ReadTools = "sometimes"
	cur.Privacy.ExcludeGlobs = append(cur.Privacy.ExcludeGlobs, "[unclosed")
	body, _ := json.Marshal(cur)
	status, out := putSettings(t, srv, string(body))
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("PUT invalid: %d %s", status, out)
	}
	var resp struct {
		Fields []models.FieldError `json:"fields"`
	}
	json.Unmarshal(out, &resp)
	got := map[string]string{}
	for _, f := range resp.Fields {
		got[f.Field] = f.Message
	}
	for _, field := range []string{fmt.Sprintf("privacy.redactionRules.%d.pattern", n), "injection.maxInjectTokens", "capture.readTools",
		fmt.Sprintf("privacy.excludeGlobs.%d", len(cur.Privacy.ExcludeGlobs)-1)} {
		if got[field] == "" {
			t.Errorf("no error for %s in %s", field, out)
		}
	}
	if !strings.Contains(got[fmt.Sprintf("privacy.redactionRules.%d.pattern", n)], "missing closing )") {
		t.Errorf("regex error: %q", got[fmt.Sprintf("privacy.redactionRules.%d.pattern", n)])
	}
	// Nothing of it applied or stored.
	if st := srv.Capture.Policy().Settings; st.Injection.MaxInjectTokens != 2000 || len(st.Privacy.RedactionRules) != n {
		t.Fatal("invalid settings were applied")
	}
	stored, _ := srv.Store.LoadSettings(context.Background())
	if stored.Injection.MaxInjectTokens != 2000 {
		t.Fatal("invalid settings were stored")
	}
	// A rejected PUT never touches the live settings (no decoding into
	// their arrays).
	if status, _ := putSettings(t, srv, `{"privacy":{"redactionRules":[{"name":"x","pattern":"("}]}}`); status != http.StatusUnprocessableEntity {
		t.Fatalf("invalid rules: %d", status)
	}
	if r := srv.Capture.Policy().Settings.Privacy.RedactionRules[0]; r.Name != "pem_private_key" || r.Pattern != privacy.BuiltinRules()[0].Pattern {
		t.Fatalf("live settings changed by a rejected PUT: %+v", r)
	}
	if status, out := putSettings(t, srv, `{not json`); status != http.StatusBadRequest {
		t.Fatalf("malformed: %d %s", status, out)
	}
}

// TestSettingsAppliedAndAnnounced: a PUT is applied to the very next hook
// and arrives on /stream as settings_changed, naming the changed sections.
func TestSettingsAppliedAndAnnounced(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/stream", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "event: ") {
				event = strings.TrimPrefix(line, "event: ")
			}
			if strings.HasPrefix(line, "data: ") && event == models.EventSettingsChanged {
				got <- strings.TrimPrefix(line, "data: ")
				return
			}
		}
	}()
	waitClients(t, srv, 1) // subscribed before the change is announced
	if status, out := putSettings(t, srv, `{"capture":{"skipTools":["Bash"]}}`); status != 200 {
		t.Fatalf("PUT: %d %s", status, out)
	}
	select {
	case data := <-got:
		if !strings.Contains(data, `"sections":["capture"]`) {
			t.Fatalf("settings_changed data %s", data)
		}
	case <-ctx.Done():
		t.Fatal("no settings_changed on the stream")
	}
	// Applied at once: Bash is no longer recorded.
	srv.Hook(t, "post-tool-use", map[string]any{"session_id": "s", "cwd": "/tmp/p", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "x"}, "tool_use_id": "t1"})
	if c, _ := srv.Store.Counts(context.Background()); c.Observations != 0 {
		t.Fatalf("skip list not applied: %d observations", c.Observations)
	}
}

func TestTestRule(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	tests := []struct {
		body, want string
		status     int
	}{
		{`{"name":"ticket","pattern":"TICKET-\\d+","sample":"fix TICKET-12 and TICKET-7"}`, `"result":"fix [REDACTED:ticket] and [REDACTED:ticket]"`, 200},
		{`{"name":"pw","pattern":"pw=(?P<secret>\\S+)","sample":"login pw=hunter2 ok"}`, `login pw=[REDACTED:pw] ok`, 200},
		{`{"name":"bad","pattern":"(oops","sample":"x"}`, `"field":"rule.pattern"`, 422},
		{`{"name":"empty","pattern":"a*","sample":"x"}`, `matches the empty string`, 422},
		{`{"name":"bad name!","pattern":"a","sample":"x"}`, `"field":"rule.name"`, 422},
		{`nope`, `malformed JSON`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			status, out := srv.Post(t, "/api/settings/test-rule", tt.body)
			if status != tt.status || !strings.Contains(string(out), tt.want) {
				t.Errorf("%s: %d %s, want %d with %s", tt.body, status, out, tt.status, tt.want)
			}
		})
	}
}

// oldObservations inserts n observations created days ago.
func oldObservations(t *testing.T, srv *testutil.Server, n, daysAgo int) {
	t.Helper()
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "old", "cwd": "/tmp/p", "hook_event_name": "UserPromptSubmit", "prompt": "x", "prompt_id": "x"})
	s, err := srv.Store.SessionByClaudeID(context.Background(), "old")
	if err != nil {
		t.Fatal(err)
	}
	err = srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		for i := 0; i < n; i++ {
			o := models.Observation{SessionID: s.ID, Project: "p", ToolName: "Bash", Kind: "bash", Title: fmt.Sprintf("old %d", i),
				Success: true, CreatedAt: time.Now().Add(-time.Duration(daysAgo) * 24 * time.Hour)}
			if _, err := tx.InsertObservation(&o); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// browserish is a client with the page's CSRF cookie and token.
func browserish(t *testing.T, srv *testutil.Server) (*http.Client, string) {
	t.Helper()
	c := srv.LoggedIn(t)
	resp, err := c.Get(srv.URL + "/settings")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no csrf token")
	}
	return c, string(m[1])
}

func postForm(t *testing.T, c *http.Client, srv *testutil.Server, path string, v url.Values) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

// settingsForm is the form as the page would submit it for st.
func settingsForm(tok string, st models.Settings) url.Values {
	v := url.Values{"_csrf": {tok}}
	v.Set("privacy.excludeGlobs", strings.Join(st.Privacy.ExcludeGlobs, "\n"))
	v.Set("privacy.redactionRules.count", fmt.Sprint(len(st.Privacy.RedactionRules)))
	for i, r := range st.Privacy.RedactionRules {
		p := fmt.Sprintf("privacy.redactionRules.%d.", i)
		v.Set(p+"name", r.Name)
		v.Set(p+"pattern", r.Pattern)
		if r.Builtin {
			v.Set(p+"builtin", "1")
		}
		if r.Enabled {
			v.Set(p+"enabled", "on")
		}
	}
	v.Set("capture.skipTools", strings.Join(st.Capture.SkipTools, "\n"))
	v.Set("capture.readTools", st.Capture.ReadTools)
	v.Set("capture.outputCapBytes", fmt.Sprint(st.Capture.OutputCapBytes))
	v.Set("injection.maxInjectTokens", fmt.Sprint(st.Injection.MaxInjectTokens))
	v.Set("injection.sessions", fmt.Sprint(st.Injection.Sessions))
	v.Set("injection.observations", fmt.Sprint(st.Injection.Observations))
	v.Set("injection.includeSummaries", "on")
	v.Set("injection.relatedEnabled", "on")
	v.Set("injection.relatedThreshold", fmt.Sprint(st.Injection.RelatedThreshold))
	v.Set("injection.relatedCount", fmt.Sprint(st.Injection.RelatedCount))
	if st.Injection.FileRecallEnabled {
		v.Set("injection.fileRecallEnabled", "on")
	}
	v.Set("injection.fileRecallCount", fmt.Sprint(st.Injection.FileRecallCount))
	v.Set("injection.fileRecallTokens", fmt.Sprint(st.Injection.FileRecallTokens))
	v.Set("injection.failureHintTokens", fmt.Sprint(st.Injection.FailureHintTokens))
	v.Set("retention.observationDays", fmt.Sprint(st.Retention.ObservationDays))
	for name, on := range map[string]bool{"memory.constraints": st.Memory.Constraints, "memory.decisions": st.Memory.Decisions,
		"memory.causes": st.Memory.Causes, "memory.todos": st.Memory.Todos} {
		if on {
			v.Set(name, "on")
		}
	}
	v.Set("memory.budgetShare", fmt.Sprint(st.Memory.BudgetShare))
	v.Set("summarizer.kind", st.Summarizer.Kind)
	// As the page renders them: a change of these needs the secret.
	v.Set("summarizer.claudePath", st.Summarizer.ClaudePath)
	v.Set("summarizer.model", st.Summarizer.Model)
	v.Set("summarizer.baseUrl", st.Summarizer.BaseURL)
	v.Set("summarizer.dailyTokenBudget", "0")
	return v
}

// TestRetentionCountedBeforeSaving: the count is shown before saving, the
// form asks to confirm a retention that deletes, and once saved the
// background job deletes at once (index in step).
func TestRetentionCountedBeforeSaving(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	oldObservations(t, srv, 7, 60)
	oldObservations(t, srv, 0, 0)
	var prev struct{ Count int64 }
	srv.GetJSON(t, "/api/settings/retention?days=30", &prev)
	if prev.Count != 7 {
		t.Fatalf("retention preview: %d, want 7", prev.Count)
	}
	if status, _ := srv.Get(t, "/api/settings/retention?days=-1"); status != 400 {
		t.Fatalf("bad days: %d", status)
	}
	c, tok := browserish(t, srv)
	st := srv.Capture.Policy().Settings
	st.Retention.ObservationDays = 30
	form := settingsForm(tok, st)
	status, _, body := postForm(t, c, srv, "/settings", form)
	if status != 200 || !strings.Contains(body, "deletes 7 observation(s) now") {
		t.Fatalf("first save: %d (want the confirmation)", status)
	}
	if srv.Capture.Policy().Settings.Retention.ObservationDays != 0 {
		t.Fatal("saved without confirmation")
	}
	form.Set("retention.confirm", "30")
	if status, loc, body := postForm(t, c, srv, "/settings", form); status != 303 || loc != "/settings?saved=1" {
		t.Fatalf("confirmed save: %d %s %s", status, loc, body)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int64
		modelstest.Row(t, srv.Store, []any{&n}, `SELECT COUNT(*) FROM observations`)
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("retention job did not run: %d observations left", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// SQLite's FTS5 index is a table of its own that must forget them too;
	// PostgreSQL's is a column of the rows themselves, gone with them.
	if !srv.Store.Postgres() {
		var fts int64
		modelstest.Row(t, srv.Store, []any{&fts}, `SELECT COUNT(*) FROM observations_fts WHERE observations_fts MATCH 'old'`)
		if fts != 0 {
			t.Fatalf("search index still finds %d deleted observations", fts)
		}
	}
}

// TestFormErrorsNextToFields: a form with an invalid regex and a non-number
// comes back 422 with each message in its field's error element.
func TestFormErrorsNextToFields(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	c, tok := browserish(t, srv)
	st := srv.Capture.Policy().Settings
	form := settingsForm(tok, st)
	form.Set("newRule.name", "ticket")
	form.Set("newRule.pattern", "TICKET-(")
	form.Set("injection.sessions", "five")
	status, _, body := postForm(t, c, srv, "/settings", form)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", status)
	}
	n := len(st.Privacy.RedactionRules)
	for id, want := range map[string]string{
		fmt.Sprintf("f-privacy-redactionRules-%d-pattern-err", n): "missing closing )",
		"f-injection-sessions-err":                                "is not a whole number",
	} {
		re := regexp.MustCompile(`id="` + id + `"[^>]*>([^<]*)<`)
		m := re.FindStringSubmatch(body)
		if m == nil || !strings.Contains(m[1], want) {
			t.Errorf("%s: %v, want %q", id, m, want)
		}
	}
	// What the user typed is kept.
	if !strings.Contains(body, `value="TICKET-("`) {
		t.Error("the invalid pattern was not kept in the form")
	}
}

// TestReapplyRedaction: a rule added after a secret was captured, then
// re-applied, rewrites prompts, observations, session answers and stream
// events, and the search index no longer finds the secret.
func TestReapplyRedaction(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const secret = "ZETA-98765-SECRET"
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "r", "cwd": "/tmp/p", "hook_event_name": "UserPromptSubmit", "prompt": "deploy with " + secret, "prompt_id": "r1"})
	srv.Hook(t, "post-tool-use", map[string]any{"session_id": "r", "cwd": "/tmp/p", "hook_event_name": "PostToolUse", "prompt_id": "r1",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "deploy --key " + secret}, "tool_response": map[string]any{"stdout": "used " + secret}, "tool_use_id": "t1"})
	srv.Hook(t, "stop", map[string]any{"session_id": "r", "cwd": "/tmp/p", "hook_event_name": "Stop", "last_assistant_message": "Deployed with " + secret})

	// Let the turn's summary be written first (the summarizer runs in the
	// background), so it is among what gets rewritten.
	testutil.WaitJobs(t, srv.Store, 60*time.Second)
	if c, _ := srv.Store.Counts(context.Background()); c.Summaries == 0 {
		t.Fatal("the turn's summary job ended without a summary")
	}
	if status, out := putSettings(t, srv, `{"privacy":{"redactionRules":[{"name":"zeta","pattern":"ZETA-\\d+-SECRET","enabled":true}]}}`); status != 200 {
		t.Fatalf("PUT: %d %s", status, out)
	}
	// Built-ins survive a PUT that leaves them out.
	if st := srv.Capture.Policy().Settings; len(st.Privacy.RedactionRules) != len(privacy.BuiltinRules())+1 {
		t.Fatalf("rules after PUT: %+v", st.Privacy.RedactionRules)
	}
	if status, _ := srv.Post(t, "/api/settings/reapply-redaction", `{}`); status != 400 {
		t.Fatal("re-apply without confirm was accepted")
	}
	status, out := srv.Post(t, "/api/settings/reapply-redaction", `{"confirm":true}`)
	if status != 200 {
		t.Fatalf("re-apply: %d %s", status, out)
	}
	t.Logf("re-apply: %s", out)
	ftsLeft := []string{
		`SELECT COUNT(*) FROM prompts_fts WHERE prompts_fts MATCH '"98765"'`,
		`SELECT COUNT(*) FROM observations_fts WHERE observations_fts MATCH '"98765"'`,
	}
	if srv.Store.Postgres() {
		ftsLeft = []string{
			`SELECT COUNT(*) FROM prompts WHERE fts @@ to_tsquery('english', '98765')`,
			`SELECT COUNT(*) FROM observations WHERE fts @@ to_tsquery('english', '98765')`,
		}
	}
	for _, q := range append([]string{
		`SELECT COUNT(*) FROM prompts WHERE text LIKE '%ZETA-98765%'`,
		`SELECT COUNT(*) FROM observations WHERE title || input || output LIKE '%ZETA-98765%'`,
		`SELECT COUNT(*) FROM sessions WHERE last_assistant_message LIKE '%ZETA-98765%'`,
		`SELECT COUNT(*) FROM summaries WHERE request || completed || last_assistant_message || learned LIKE '%ZETA-98765%'`,
		`SELECT COUNT(*) FROM events WHERE data LIKE '%ZETA-98765%'`,
	}, ftsLeft...) {
		if n := modelstest.Int(t, srv.Store, q); n != 0 {
			t.Errorf("%s: %d rows still hold the secret", q, n)
		}
	}
	var redacted int64
	modelstest.Row(t, srv.Store, []any{&redacted}, `SELECT COUNT(*) FROM prompts WHERE text LIKE '%[REDACTED:zeta]%'`)
	if redacted != 1 {
		t.Fatalf("prompt not rewritten with the marker")
	}
}

// The settings page lists every built-in rule, the ones added since the
// settings were stored too (issue 36's command-line and config shapes).
func TestSettingsPageListsEveryBuiltinRule(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	_, page := srv.Get(t, "/settings")
	for _, r := range privacy.BuiltinRules() {
		if !strings.Contains(string(page), `data-rule="`+r.Name+`"`) {
			t.Errorf("the settings page does not list %s", r.Name)
		}
	}
}

// TestSettingsSaveKeepsThePlace: a save made from a place on the page
// (the form's at and builtinOpen, which settings.js fills in) comes back
// there: the redirect names it, the notice is rendered in that section,
// the built-in rules stay unfolded. A place the page does not have is
// the top; without one the notice is at the top as before. Re-applying
// redaction comes back to its own section.
func TestSettingsSaveKeepsThePlace(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	c, tok := browserish(t, srv)
	cases := []struct{ at, open, loc string }{
		{"builtin-rules", "1", "/settings?at=builtin-rules&open=builtin&saved=1#settings-notice"},
		{"injection", "", "/settings?at=injection&saved=1#settings-notice"},
		{"nowhere", "", "/settings?saved=1"},
		{"", "", "/settings?saved=1"},
	}
	for _, tc := range cases {
		t.Run(tc.at, func(t *testing.T) {
			form := settingsForm(tok, srv.Capture.Policy().Settings)
			form.Set("at", tc.at)
			form.Set("builtinOpen", tc.open)
			if status, loc, body := postForm(t, c, srv, "/settings", form); status != 303 || loc != tc.loc {
				t.Errorf("save at %q: %d %q, want %q %s", tc.at, status, loc, tc.loc, body)
			}
		})
	}
	// noticeIn is the id of the section the notice is in, "" before the
	// first section (the top of the page).
	sectionID := regexp.MustCompile(`^[^"]*" id="([a-z]+)"`)
	noticeIn := func(page string) string {
		chunks := strings.Split(page, `class="settings-section`)
		for i, chunk := range chunks {
			if strings.Contains(chunk, `id="settings-notice"`) && i > 0 {
				if m := sectionID.FindStringSubmatch(chunk); m != nil {
					return m[1]
				}
				return "?"
			}
		}
		return ""
	}
	for _, tc := range []struct{ path, section string }{
		{"/settings?at=builtin-rules&open=builtin&saved=1", "privacy"},
		{"/settings?at=injection&saved=1", "injection"},
		{"/settings?at=maintenance&redacted=3", "maintenance"},
		{"/settings?saved=1", ""},
	} {
		_, b := srv.Get(t, tc.path)
		page := string(b)
		if n := strings.Count(page, `id="settings-notice"`); n != 1 {
			t.Errorf("%s: %d notices", tc.path, n)
		} else if in := noticeIn(page); in != tc.section {
			t.Errorf("%s: the notice is in section %q, want %q", tc.path, in, tc.section)
		}
		if open := strings.Contains(page, `id="builtin-rules" open`); open != strings.Contains(tc.path, "open=builtin") {
			t.Errorf("%s: built-in rules open = %v", tc.path, open)
		}
	}
	form := url.Values{"_csrf": {tok}, "confirm": {"yes"}}
	if status, loc, body := postForm(t, c, srv, "/settings/redact", form); status != 303 || !strings.HasSuffix(loc, "at=maintenance&redacted=0#settings-notice") {
		t.Errorf("re-apply redaction: %d %q %s", status, loc, body)
	}
}

// TestSettingsBuiltinsSayWhatTheyCatch: each built-in rule on the page
// says what it catches and shows its placeholder example and how it is
// stored, escaped as text; a user's rule has no such line.
func TestSettingsBuiltinsSayWhatTheyCatch(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	_, b := srv.Get(t, "/settings")
	page := string(b)
	for _, r := range privacy.BuiltinRules() {
		d, ok := privacy.Describe(r.Name)
		if !ok {
			t.Errorf("%s: no description", r.Name)
			continue
		}
		row := between(page, `data-rule="`+r.Name+`"`, "</tr>")
		for _, want := range []string{html.EscapeString(d.Catches), html.EscapeString(d.Example), html.EscapeString(d.Stored)} {
			if !strings.Contains(row, want) {
				t.Errorf("%s: the row lacks %q", r.Name, want)
			}
		}
	}
}
