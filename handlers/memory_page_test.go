package handlers_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// memorySeed stores memories of project memproj: a decision and a
// constraint of session sid, and a decision the second one superseded.
func memorySeed(t *testing.T, srv *testutil.Server) (sid int64, ms []models.Memory) {
	t.Helper()
	srv.Hook(t, "user-prompt-submit", map[string]any{
		"session_id": "mem-page-1", "transcript_path": "", "cwd": "/tmp/memproj",
		"hook_event_name": "UserPromptSubmit", "prompt_id": "p-mem-1", "prompt": "set up the store",
	})
	var sessions struct {
		Items []models.Session `json:"items"`
	}
	srv.GetJSON(t, "/api/sessions", &sessions)
	if len(sessions.Items) == 0 {
		t.Fatal("no session")
	}
	sid = sessions.Items[0].ID
	ms = []models.Memory{
		{SessionID: sid, Project: "memproj", PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Use SQLite for the store", Files: []string{"models/store.go"}},
		{SessionID: sid, Project: "memproj", PromptNumber: 1, Source: models.SourcePrompt, Kind: models.MemoryConstraint,
			Text: "Never call the network in tests <script>alert(1)</script>"},
		{Project: "memproj", Source: models.SourceUser, Kind: models.MemoryDecision, Text: "Use BoltDB for the store"},
	}
	err := srv.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		for i := range ms {
			if _, err := tx.InsertMemory(&ms[i]); err != nil {
				return err
			}
		}
		_, err := tx.SupersedeMemory(ms[2].ID, ms[0].ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sid, ms
}

// getPage fetches path with the logged-in client: status, body and the
// page's CSRF token.
func memGet(t *testing.T, c *http.Client, srv *testutil.Server, path string) (int, string, string) {
	t.Helper()
	resp, err := c.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	tok := ""
	if m := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindSubmatch(b); m != nil {
		tok = string(m[1])
	}
	return resp.StatusCode, string(b), tok
}

func memPost(t *testing.T, c *http.Client, srv *testutil.Server, path string, v url.Values) *http.Response {
	t.Helper()
	resp, err := c.PostForm(srv.URL+path, v)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func memoryNow(t *testing.T, srv *testutil.Server, id int64) (models.Memory, bool) {
	t.Helper()
	var page struct {
		Items []models.Memory `json:"items"`
	}
	srv.GetJSON(t, "/api/memories?project=memproj", &page)
	for _, m := range page.Items {
		if m.ID == id {
			return m, true
		}
	}
	return models.Memory{}, false
}

// TestMemoryPage: /memory shows a project's memories in force grouped by
// kind, escaped, with the superseded one only under its state and its
// replacement linked; the session page lists the session's memories.
func TestMemoryPage(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	sid, ms := memorySeed(t, srv)
	c := srv.LoggedIn(t)
	status, body, tok := memGet(t, c, srv, "/memory?project=memproj")
	if status != http.StatusOK || tok == "" {
		t.Fatalf("GET /memory: %d %s", status, body)
	}
	for _, want := range []string{"Constraints", "Decisions", "Causes", "Todos", "Use SQLite for the store", "models/store.go",
		"&lt;script&gt;alert(1)&lt;/script&gt;", fmt.Sprintf(`id="mem-%d"`, ms[0].ID), fmt.Sprintf(`href="/sessions/%d"`, sid),
		`href="/memory"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the Memory page lacks %q", want)
		}
	}
	if strings.Contains(body, "<script>alert(1)") || strings.Contains(body, "BoltDB") {
		t.Error("the page shows unescaped text, or a superseded memory among those in force")
	}
	if strings.Index(body, "Constraints") > strings.Index(body, "Decisions") {
		t.Error("constraints do not come first")
	}
	_, body, _ = memGet(t, c, srv, "/memory?project=memproj&state=superseded")
	if !strings.Contains(body, "Use BoltDB for the store") || !strings.Contains(body, fmt.Sprintf("superseded by m%d", ms[0].ID)) ||
		!strings.Contains(body, "Supersession chain (2)") || strings.Contains(body, "Use SQLite for the store</span>") {
		t.Errorf("the superseded view does not show the memory and its replacement: %s", body)
	}
	if status, _, _ := memGet(t, c, srv, "/memory?project=memproj&state=bogus"); status != http.StatusBadRequest {
		t.Errorf("state=bogus: %d", status)
	}
	_, body, _ = memGet(t, c, srv, fmt.Sprintf("/sessions/%d", sid))
	if !strings.Contains(body, `id="story-decisions"`) || !strings.Contains(body, "Use SQLite for the store") ||
		strings.Contains(body, "BoltDB") {
		t.Errorf("the session page does not list its memories")
	}
}

// TestMemoryPageActions: each row action is a form that needs the CSRF
// token (refused with 403 and nothing changed without it), and does what
// it says with it.
func TestMemoryPageActions(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	_, ms := memorySeed(t, srv)
	id := ms[0].ID
	c := srv.LoggedIn(t)
	_, _, tok := memGet(t, c, srv, "/memory?project=memproj")
	path := fmt.Sprintf("/memory/%d", id)
	for _, tt := range []struct {
		action, text string
		check        func(models.Memory) bool
	}{
		{"pin", "", func(m models.Memory) bool { return m.Pinned }},
		{"unpin", "", func(m models.Memory) bool { return !m.Pinned }},
		{"edit", "Use SQLite (WAL mode) for the store", func(m models.Memory) bool {
			return m.Text == "Use SQLite (WAL mode) for the store" && m.OriginalText == "Use SQLite for the store"
		}},
		{"retire", "", func(m models.Memory) bool { return m.State == models.MemoryRetired }},
		{"reinstate", "", func(m models.Memory) bool { return m.State == models.MemoryCurrent }},
	} {
		before, _ := memoryNow(t, srv, id)
		if resp := memPost(t, c, srv, path, url.Values{"action": {tt.action}, "text": {tt.text}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s without the CSRF token: %d", tt.action, resp.StatusCode)
		}
		if after, _ := memoryNow(t, srv, id); after.Text != before.Text || after.Pinned != before.Pinned || after.State != before.State {
			t.Fatalf("%s without the token changed the memory", tt.action)
		}
		resp := memPost(t, c, srv, path, url.Values{"_csrf": {tok}, "action": {tt.action}, "text": {tt.text}})
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != fmt.Sprintf("/memory?project=memproj#mem-%d", id) {
			t.Errorf("%s: %d to %q", tt.action, resp.StatusCode, loc)
		}
		if m, _ := memoryNow(t, srv, id); !tt.check(m) {
			t.Errorf("after %s: %+v", tt.action, m)
		}
	}
	// The edit shows on the page with its marker and the original.
	_, body, _ := memGet(t, c, srv, "/memory?project=memproj")
	if !strings.Contains(body, "Use SQLite (WAL mode) for the store") || !strings.Contains(body, `title="Original: Use SQLite for the store"`) {
		t.Error("the edited memory does not show its marker and original")
	}
	// Bad input: an unknown action, an empty edit, a missing memory.
	for _, v := range []url.Values{{"action": {"explode"}}, {"action": {"edit"}, "text": {"  "}}} {
		v.Set("_csrf", tok)
		if resp := memPost(t, c, srv, path, v); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%v: %d", v, resp.StatusCode)
		}
	}
	if resp := memPost(t, c, srv, "/memory/999999", url.Values{"_csrf": {tok}, "action": {"pin"}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a missing memory: %d", resp.StatusCode)
	}

	// Forget, through the confirmation page.
	fpath := fmt.Sprintf("/forget/memory/%d", id)
	status, body, ftok := memGet(t, c, srv, fpath)
	if status != http.StatusOK || !strings.Contains(body, fmt.Sprintf("Forget memory m%d?", id)) || !strings.Contains(body, "1 memory") {
		t.Fatalf("GET %s: %d %s", fpath, status, body)
	}
	if resp := memPost(t, c, srv, fpath, url.Values{}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("forget without the CSRF token: %d", resp.StatusCode)
	}
	if _, ok := memoryNow(t, srv, id); !ok {
		t.Fatal("a refused forget deleted the memory")
	}
	resp := memPost(t, c, srv, fpath, url.Values{"_csrf": {ftok}})
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/memory?project=memproj") {
		t.Errorf("forget: %d to %q", resp.StatusCode, loc)
	}
	if _, ok := memoryNow(t, srv, id); ok {
		t.Error("the confirmed forget left the memory")
	}
}

// TestMemoryFragment: the live row of a memory, and a 204 for one no
// longer in the page's state.
func TestMemoryFragment(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	_, ms := memorySeed(t, srv)
	c := srv.LoggedIn(t)
	status, body, _ := memGet(t, c, srv, fmt.Sprintf("/fragments/memory/%d?state=current", ms[1].ID))
	if status != http.StatusOK || !strings.Contains(body, fmt.Sprintf(`id="mem-%d"`, ms[1].ID)) || !strings.Contains(body, `data-kind="constraint"`) ||
		strings.Contains(body, "<script>alert") {
		t.Errorf("fragment: %d %s", status, body)
	}
	if status, _, _ := memGet(t, c, srv, fmt.Sprintf("/fragments/memory/%d?state=current", ms[2].ID)); status != http.StatusNoContent {
		t.Errorf("a superseded memory's fragment for the in-force page: %d", status)
	}
	if status, _, _ := memGet(t, c, srv, "/fragments/memory/999999"); status != http.StatusNotFound {
		t.Errorf("a missing memory's fragment: %d", status)
	}
}

// TestMemorySettingsForm: the settings page has the memory section; a
// save turns kinds off and sets the budget share; an out-of-range share
// is refused by Validate, its message next to the field, nothing saved.
func TestMemorySettingsForm(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	c, tok := browserish(t, srv)
	_, page, _ := memGet(t, c, srv, "/settings")
	for _, id := range []string{`id="f-memory-constraints"`, `id="f-memory-decisions"`, `id="f-memory-causes"`, `id="f-memory-todos"`, `id="f-memory-budgetShare"`} {
		if !strings.Contains(page, id) {
			t.Errorf("the settings page lacks %s", id)
		}
	}
	st := srv.Capture.Policy().Settings
	st.Memory.Todos, st.Memory.Causes, st.Memory.BudgetShare = false, false, 25
	form := settingsForm(tok, st)
	if resp := memPost(t, c, srv, "/settings", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	got := srv.Capture.Policy().Settings.Memory
	if got.Todos || got.Causes || !got.Decisions || !got.Constraints || got.BudgetShare != 25 {
		t.Fatalf("saved memory settings: %+v", got)
	}
	form.Set("memory.budgetShare", "150")
	status, _, body := postForm(t, c, srv, "/settings", form)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("budgetShare 150: %d", status)
	}
	if m := regexp.MustCompile(`id="f-memory-budgetShare-err"[^>]*>([^<]*)<`).FindStringSubmatch(body); m == nil || !strings.Contains(m[1], "between 0 and 100") {
		t.Errorf("no error next to the field: %v", m)
	}
	if srv.Capture.Policy().Settings.Memory.BudgetShare != 25 {
		t.Error("a refused save changed the share")
	}
	form.Del("_csrf")
	form.Set("memory.budgetShare", "10")
	if resp := memPost(t, c, srv, "/settings", form); resp.StatusCode != http.StatusForbidden {
		t.Errorf("save without the CSRF token: %d", resp.StatusCode)
	}
}

// TestMemoryEditWithoutScript: Edit is a link to the page with ?edit=ID,
// which shows that row's editor in place of its text (the other rows
// keep theirs); its Cancel is a link back to the page, at the row, and
// its save comes back to the page without ?edit=. A bad id is a 400.
func TestMemoryEditWithoutScript(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	_, ms := memorySeed(t, srv)
	c := srv.LoggedIn(t)
	id := ms[1].ID
	here := "/memory?project=memproj&state=current"
	status, page, _ := memGet(t, c, srv, "/memory?project=memproj")
	row := between(page, fmt.Sprintf(`id="mem-%d"`, id), "</article>")
	if status != 200 || !strings.Contains(row, `class="btn btn-small mem-edit-open" href="/memory?edit=`+fmt.Sprint(id)+`&amp;project=memproj&amp;state=current#mem-`+fmt.Sprint(id)+`"`) {
		t.Fatalf("%d: the Edit link is not the page with ?edit=:\n%s", status, row)
	}
	if !strings.Contains(row, `class="mem-edit-form" id="mem-edit-`+fmt.Sprint(id)+`" hidden`) || strings.Contains(row, `class="memory-text" hidden`) {
		t.Errorf("the editor shows before Edit:\n%s", row)
	}
	status, page, tok := memGet(t, c, srv, fmt.Sprintf("/memory?project=memproj&edit=%d", id))
	row = between(page, fmt.Sprintf(`id="mem-%d"`, id), "</article>")
	if status != 200 || strings.Contains(row, `id="mem-edit-`+fmt.Sprint(id)+`" hidden`) || !strings.Contains(row, `class="memory-text" hidden`) || !strings.Contains(row, `aria-expanded="true"`) {
		t.Errorf("%d: ?edit= does not show the editor in place of the text:\n%s", status, row)
	}
	if cancel := `class="btn btn-small mem-edit-cancel" href="` + html.EscapeString(here) + `#mem-` + fmt.Sprint(id) + `"`; !strings.Contains(row, cancel) {
		t.Errorf("Cancel is not a link back to the page at the row (%s):\n%s", cancel, row)
	}
	if !strings.Contains(row, `name="next" value="`+html.EscapeString(here)+`"`) {
		t.Errorf("the save does not come back to the page without ?edit=:\n%s", row)
	}
	other := between(page, fmt.Sprintf(`id="mem-%d"`, ms[0].ID), "</article>")
	if !strings.Contains(other, `id="mem-edit-`+fmt.Sprint(ms[0].ID)+`" hidden`) {
		t.Errorf("another row shows its editor too:\n%s", other)
	}
	resp := memPost(t, c, srv, fmt.Sprintf("/memory/%d", id), url.Values{"_csrf": {tok}, "action": {"edit"}, "text": {"Never call the network in unit tests"}, "next": {here}})
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != here+"#mem-"+fmt.Sprint(id) {
		t.Errorf("save: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if m, _ := memoryNow(t, srv, id); m.Text != "Never call the network in unit tests" {
		t.Errorf("saved text %q", m.Text)
	}
	if status, _, _ := memGet(t, c, srv, "/memory?project=memproj&edit=x"); status != http.StatusBadRequest {
		t.Errorf("?edit=x: %d", status)
	}
}

// TestMemoryJumpNav: the page starts with a link to each kind's list and
// its count.
func TestMemoryJumpNav(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	memorySeed(t, srv)
	_, page, _ := memGet(t, srv.LoggedIn(t), srv, "/memory?project=memproj&state=all")
	nav := between(page, `id="mem-jump"`, "</nav>")
	for _, want := range []string{
		`href="#mem-group-constraint" data-kind="constraint">Constraints <span class="count">1</span>`,
		`href="#mem-group-decision" data-kind="decision">Decisions <span class="count">2</span>`,
		`href="#mem-group-cause" data-kind="cause">Causes <span class="count">0</span>`,
		`href="#mem-group-todo" data-kind="todo">Todos <span class="count">0</span>`,
	} {
		if !strings.Contains(nav, want) {
			t.Errorf("the jump nav lacks %s:\n%s", want, nav)
		}
	}
	for _, kind := range []string{"constraint", "decision", "cause", "todo"} {
		if !strings.Contains(page, `id="mem-group-`+kind+`"`) {
			t.Errorf("no list to jump to for %s", kind)
		}
	}
}
