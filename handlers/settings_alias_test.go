package handlers_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// Project names by path are edited on the settings page, validated, and
// decide the project of the next session under the path.
func TestProjectAliasesFromTheForm(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	c, tok := browserish(t, srv)
	errOf := func(body string) string {
		m := regexp.MustCompile(`id="f-capture-projectAliases-err"[^>]*>([^<]*)<`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return m[1]
	}
	for line, want := range map[string]string{
		"/work/api api":  `write one &#34;path = project name&#34; per line`,
		"work/api = api": "must be absolute",
	} {
		form := settingsForm(tok, srv.Capture.Policy().Settings)
		form.Set("capture.projectAliases", line)
		status, _, body := postForm(t, c, srv, "/settings", form)
		if status != http.StatusUnprocessableEntity || !strings.Contains(errOf(body), want) {
			t.Errorf("%q: status %d, error %q, want %q", line, status, errOf(body), want)
		}
	}

	form := settingsForm(tok, srv.Capture.Policy().Settings)
	form.Set("capture.projectAliases", "/work/api = api-server\n/work = everything")
	if status, loc, _ := postForm(t, c, srv, "/settings", form); status != http.StatusSeeOther || loc != "/settings?saved=1" {
		t.Fatalf("save: %d %s", status, loc)
	}
	if _, body := srv.Get(t, "/settings"); !strings.Contains(string(body), "/work = everything\n/work/api = api-server") {
		t.Error("the page does not show the saved aliases")
	}
	srv.Hook(t, "session-start", map[string]any{"session_id": "aliased", "cwd": "/work/api/cmd", "source": "startup"})
	var d struct {
		Session struct{ Project string } `json:"session"`
	}
	srv.GetJSON(t, "/api/sessions/aliased", &d)
	if d.Session.Project != "api-server" {
		t.Errorf("project %q, want api-server (the longest matching path)", d.Session.Project)
	}
}
