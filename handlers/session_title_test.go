package handlers_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// sessionTitle reads a session's title and whether the user gave it, from
// the JSON API.
func sessionTitle(t *testing.T, srv *testutil.Server, id int64) (string, bool) {
	t.Helper()
	var d struct {
		Session struct {
			Title       string `json:"title"`
			TitleEdited bool   `json:"titleEdited"`
		} `json:"session"`
	}
	srv.GetJSON(t, fmt.Sprintf("/api/sessions/%d", id), &d)
	return d.Session.Title, d.Session.TitleEdited
}

// The rename form needs its CSRF token, refuses a title past the limit
// (400, nothing stored), stores the title through the redaction rules,
// and an empty title gives the automatic one back. The title shows in
// the session list and JSON, the Markdown export and MCP's
// recent_sessions.
func TestRenameSession(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.Hook(t, "user-prompt-submit", map[string]any{
		"session_id": "ren", "transcript_path": "", "cwd": "/tmp/renproj", "hook_event_name": "UserPromptSubmit",
		"prompt_id": "p1", "prompt": "Speed up the search index\nit takes 4 s on 1M rows",
	})
	var list struct {
		Items []struct {
			ID    int64  `json:"id"`
			Title string `json:"title"`
		} `json:"items"`
	}
	srv.GetJSON(t, "/api/sessions", &list)
	if len(list.Items) != 1 || list.Items[0].Title != "Speed up the search index" {
		t.Fatalf("the list: %+v", list.Items)
	}
	id := list.Items[0].ID
	c := srv.LoggedIn(t)
	page := fmt.Sprintf("/sessions/%d", id)
	_, body, tok := memGet(t, c, srv, page)
	if tok == "" || !strings.Contains(body, `action="`+page+`/title"`) {
		t.Fatal("the session page has no rename form")
	}
	path := page + "/title"

	if resp := memPost(t, c, srv, path, url.Values{"title": {"no token"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("rename without the CSRF token: %d", resp.StatusCode)
	}
	if resp := memPost(t, c, srv, path, url.Values{"_csrf": {tok}, "title": {strings.Repeat("x", 121)}}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a 121-character title: %d", resp.StatusCode)
	}
	if title, edited := sessionTitle(t, srv, id); title != "Speed up the search index" || edited {
		t.Fatalf("a refused rename changed the title: %q %v", title, edited)
	}
	secret := "AKIA" + "IOSFODNN7EXAMPLE"
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp := memPost(t, c, srv, path, url.Values{"_csrf": {tok}, "title": {"Index speed-up, key " + secret}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("rename: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	title, edited := sessionTitle(t, srv, id)
	if !edited || strings.Contains(title, secret) || !strings.HasPrefix(title, "Index speed-up, key [REDACTED") {
		t.Fatalf("renamed: %q (edited %v)", title, edited)
	}
	_, body, _ = memGet(t, c, srv, "/sessions")
	if !strings.Contains(body, title) {
		t.Error("the session list does not show the new title")
	}
	r, err := c.Get(srv.URL + fmt.Sprintf("/api/sessions/%d/export?format=md", id))
	if err != nil {
		t.Fatal(err)
	}
	md, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.HasPrefix(string(md), "# Index speed-up, key") {
		t.Errorf("the export's heading: %.80q", md)
	}

	memPost(t, c, srv, path, url.Values{"_csrf": {tok}, "title": {""}})
	if title, edited := sessionTitle(t, srv, id); title != "Speed up the search index" || edited {
		t.Errorf("after clearing: %q (edited %v)", title, edited)
	}
	if resp := memPost(t, c, srv, "/sessions/999999/title", url.Values{"_csrf": {tok}, "title": {"x"}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("renaming a missing session: %d", resp.StatusCode)
	}
}
