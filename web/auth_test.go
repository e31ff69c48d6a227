package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// noAuth is a client without credentials that does not follow redirects.
func noAuth() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestUnauthenticatedTCPRefused: over TCP without the secret or the login
// cookie, pages get the login page (401), the API, the stream, the hooks
// and the settings JSON 401; nothing is stored, nothing leaks.
func TestUnauthenticatedTCPRefused(t *testing.T) {
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	html := map[string]string{"Accept": "text/html"}
	jsonCT := map[string]string{"Content-Type": "application/json"}
	for _, tc := range []struct {
		method, path string
		header       map[string]string
		body         string
	}{
		{"GET", "/", html, ""},
		{"GET", "/sessions", html, ""},
		{"GET", "/settings", html, ""},
		{"GET", "/api/sessions", nil, ""},
		{"GET", "/api/search?q=notes", nil, ""},
		{"GET", "/api/settings", nil, ""},
		{"PUT", "/api/settings", jsonCT, `{"summarizer":{"kind":"claude-cli","claudePath":"/tmp/x.sh"}}`},
		{"GET", "/stream", map[string]string{"Accept": "text/event-stream"}, ""},
		{"GET", "/fragments/feed", nil, ""},
		{"POST", "/api/hooks/user-prompt-submit", jsonCT, fmt.Sprintf(hookBody, "stranger", "s1")},
		{"POST", "/api/login-links", nil, ""},
		{"GET", "/api/sessions", map[string]string{"Authorization": "Bearer wrong-secret"}, ""},
	} {
		status, h, body := raw(t, noAuth(), tc.method, srv.URL+tc.path, "", tc.header, tc.body)
		if status != 401 {
			t.Errorf("%s %s: %d, want 401", tc.method, tc.path, status)
		}
		if strings.Contains(body, "notes.md") || strings.Contains(body, srv.Secret) {
			t.Errorf("%s %s leaks stored data or the secret: %s", tc.method, tc.path, body)
		}
		if tc.header["Accept"] == "text/html" {
			if !strings.Contains(body, "mneme open") || !strings.Contains(body, "mneme doctor") || !strings.Contains(body, `name="secret"`) {
				t.Errorf("%s %s: not the login page: %s", tc.method, tc.path, body)
			}
		} else if !strings.Contains(h.Get("Content-Type"), "json") {
			t.Errorf("%s %s: %s, want a JSON 401", tc.method, tc.path, h.Get("Content-Type"))
		}
	}
	var st struct {
		Summarizer struct{ Kind, ClaudePath string }
	}
	srv.GetJSON(t, "/api/settings", &st)
	if st.Summarizer.ClaudePath == "/tmp/x.sh" {
		t.Fatal("an unauthenticated PUT changed the summarizer")
	}
	if _, err := srv.Store.SessionByClaudeID(t.Context(), "sec"); err == nil {
		t.Fatal("an unauthenticated hook was stored")
	}
}

// TestHealthMinimalWithoutCredentials: GET /api/health answers anyone,
// but without credentials says only service and status.
func TestHealthMinimalWithoutCredentials(t *testing.T) {
	srv := testutil.NewServer(t)
	status, _, body := raw(t, noAuth(), "GET", srv.URL+"/api/health", "", nil, "")
	var m map[string]any
	if status != 200 || json.Unmarshal([]byte(body), &m) != nil {
		t.Fatalf("health: %d %s", status, body)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "service,status" || m["service"] != "mneme" {
		t.Errorf("unauthenticated health says %s, want only service and status", body)
	}
	var full struct {
		PID    int `json:"pid"`
		Counts struct{ Sessions int }
	}
	srv.GetJSON(t, "/api/health", &full)
	if full.PID == 0 {
		t.Error("with the secret, health has the pid and counts")
	}
	if status, _, _ := raw(t, noAuth(), "POST", srv.URL+"/api/health", "", nil, ""); status != 401 {
		t.Errorf("POST /api/health without credentials: %d", status)
	}
}

// TestSecretHeaders: the secret as Authorization: Bearer or X-Mneme-Secret.
func TestSecretHeaders(t *testing.T) {
	srv := testutil.NewServer(t)
	for _, h := range []map[string]string{
		{"Authorization": "Bearer " + srv.Secret},
		{"X-Mneme-Secret": srv.Secret},
	} {
		if status, _, body := raw(t, noAuth(), "GET", srv.URL+"/api/sessions", "", h, ""); status != 200 {
			t.Errorf("%v: %d %s", h, status, body)
		}
	}
}

// TestSocketNeedsNoCredentials: over the unix socket the request is the
// owner's: the API, full health and login links, with no secret.
func TestSocketNeedsNoCredentials(t *testing.T) {
	srv := testutil.NewServer(t)
	c := srv.SocketClient()
	for _, path := range []string{"/api/sessions", "/api/settings", "/api/health"} {
		resp, err := c.Get(testutil.SocketURL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s over the socket: %d %s", path, resp.StatusCode, body)
		}
		if path == "/api/health" && !strings.Contains(string(body), `"pid"`) {
			t.Errorf("health over the socket is the full one: %s", body)
		}
	}
	if !strings.HasPrefix(srv.LoginURL(t, ""), srv.URL+"/login?token=") {
		t.Error("no login link over the socket")
	}
}

// TestLoginLinkOnce: a one-time link logs in once (cookie HttpOnly,
// SameSite=Strict, Path=/) and goes on to a safe next; used again it shows
// the login page saying so; a next off this site goes to /.
func TestLoginLinkOnce(t *testing.T) {
	srv := testutil.NewServer(t)
	link := srv.LoginURL(t, "/sessions?project=a")
	status, h, _ := raw(t, noAuth(), "GET", link, "", nil, "")
	if status != 303 || h.Get("Location") != "/sessions?project=a" {
		t.Fatalf("login link: %d to %q", status, h.Get("Location"))
	}
	var ck string
	for _, v := range h.Values("Set-Cookie") {
		if strings.HasPrefix(v, "mneme_session=") {
			ck = strings.ToLower(v)
		}
	}
	for _, want := range []string{"mneme_session=", "httponly", "samesite=strict", "path=/;"} {
		if !strings.Contains(ck+";", want) {
			t.Errorf("login cookie %q lacks %s", ck, want)
		}
	}
	status, _, body := raw(t, noAuth(), "GET", link, "", map[string]string{"Accept": "text/html"}, "")
	if status != 401 || !strings.Contains(body, "already used or has expired") || strings.Contains(h.Get("Set-Cookie"), "mneme_session=;") {
		t.Errorf("link used twice: %d %s", status, body)
	}
	for _, next := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "evil"} {
		status, h, _ := raw(t, noAuth(), "GET", srv.LoginURL(t, next), "", nil, "")
		if status != 303 || h.Get("Location") != "/" {
			t.Errorf("next %q: %d to %q, want / ", next, status, h.Get("Location"))
		}
	}
	// A made-up token is refused like a used one.
	if status, _, _ := raw(t, noAuth(), "GET", srv.URL+"/login?token=made-up", "", nil, ""); status != 401 {
		t.Errorf("made-up token: %d", status)
	}
}

// TestLoginCookie: the cookie opens the viewer and the API, survives a
// worker restart (it is derived from the secret), but makes no login
// links: those need the socket or the secret.
func TestLoginCookie(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.NewServerIn(t, dir)
	c := srv.LoggedIn(t)
	for _, path := range []string{"/", "/api/sessions", "/settings"} {
		if status, _, body := raw(t, c, "GET", srv.URL+path, "", map[string]string{"Accept": "text/html"}, ""); status != 200 {
			t.Errorf("GET %s with the cookie: %d %s", path, status, body)
		}
	}
	if status, _, _ := raw(t, c, "POST", srv.URL+"/api/login-links", "", nil, ""); status != 403 {
		t.Errorf("login link with only the cookie: %d, want 403", status)
	}
	port := srv.Port
	if err := srv.Shutdown(5e9); err != nil {
		t.Fatal(err)
	}
	srv2 := testutil.NewServerAt(t, dir, port)
	if status, _, _ := raw(t, c, "GET", srv2.URL+"/api/sessions", "", nil, ""); status != 200 {
		t.Errorf("cookie after a restart: %d", status)
	}
	// A forged cookie is nothing.
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(srv2.URL)
	jar.SetCookies(u, []*http.Cookie{{Name: "mneme_session", Value: "forged"}})
	if status, _, _ := raw(t, &http.Client{Jar: jar}, "GET", srv2.URL+"/api/sessions", "", nil, ""); status != 401 {
		t.Errorf("forged cookie: %d", status)
	}
}

// TestLoginForm: the pasted secret logs in; a wrong one does not and is
// not shown back; a post without the form's CSRF token is refused.
func TestLoginForm(t *testing.T) {
	srv := testutil.NewServer(t)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	status, _, body := raw(t, c, "GET", srv.URL+"/login", "", nil, "")
	m := regexp.MustCompile(`name="login_csrf" value="([^"]+)"`).FindStringSubmatch(body)
	if status != 200 || m == nil {
		t.Fatalf("GET /login: %d, no CSRF token: %s", status, body)
	}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": srv.URL}
	wrong := url.Values{"login_csrf": {m[1]}, "secret": {"wrong-guess-123456"}, "next": {"/stats"}}
	status, _, body = raw(t, c, "POST", srv.URL+"/login", "", form, wrong.Encode())
	if status != 401 || strings.Contains(body, "wrong-guess-123456") || strings.Contains(body, srv.Secret) {
		t.Errorf("wrong secret: %d, body shows it: %v", status, strings.Contains(body, "wrong-guess"))
	}
	noToken := url.Values{"secret": {srv.Secret}}
	status, _, body = raw(t, c, "POST", srv.URL+"/login", "", form, noToken.Encode())
	if status != 403 {
		t.Errorf("login without the CSRF token: %d, want 403", status)
	}
	// Each login page comes with a new token (and cookie).
	m = regexp.MustCompile(`name="login_csrf" value="([^"]+)"`).FindStringSubmatch(body)
	right := url.Values{"login_csrf": {m[1]}, "secret": {srv.Secret}, "next": {"/stats"}}
	status, h, body := raw(t, c, "POST", srv.URL+"/login", "", form, right.Encode())
	if status != 303 || h.Get("Location") != "/stats" || strings.Contains(body, srv.Secret) {
		t.Fatalf("right secret: %d to %q", status, h.Get("Location"))
	}
	if status, _, _ := raw(t, c, "GET", srv.URL+"/api/sessions", "", nil, ""); status != 200 {
		t.Errorf("after the form login: %d", status)
	}
}
