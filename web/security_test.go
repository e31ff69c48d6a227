package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// raw sends one request with full control of Host and headers.
func raw(t *testing.T, client *http.Client, method, target, host string, header map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if client == nil {
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

const hookBody = `{"session_id":"sec","hook_event_name":"UserPromptSubmit","prompt":"hello from %s","prompt_id":"%s","cwd":"/tmp/sec"}`

func TestHostCheck(t *testing.T) {
	srv := testutil.NewServer(t)
	port := fmt.Sprint(srv.Port)
	tests := []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, 200},
		{"localhost:" + port, 200},
		{"[::1]:" + port, 200},
		{"LOCALHOST:" + port, 200},
		{"evil.example:" + port, 403},           // DNS rebinding
		{"127.0.0.1.nip.io:" + port, 403},       // rebinding to loopback
		{"127.0.0.1:1" + port, 403},             // another port
		{"127.0.0.1", 403},                      // no port
		{"localhost.evil.example:" + port, 403}, // suffix trick
	}
	for _, tt := range tests {
		if got, _, body := raw(t, srv.Client(), "GET", srv.URL+"/api/health", tt.host, nil, ""); got != tt.want {
			t.Errorf("Host %q: %d %s, want %d", tt.host, got, body, tt.want)
		}
	}
	// A forged Host cannot ingest either.
	if got, _, _ := raw(t, srv.Client(), "POST", srv.URL+"/api/hooks/user-prompt-submit", "evil.example:"+port,
		map[string]string{"Content-Type": "application/json"}, fmt.Sprintf(hookBody, "rebind", "r1")); got != 403 {
		t.Errorf("forged Host ingest: %d", got)
	}
}

// TestAllowedHosts: a team worker started with --allowed-host answers to
// that name (on any port when given without one, as a TLS proxy forwards
// it) in Host and Origin, and still to nothing else.
func TestAllowedHosts(t *testing.T) {
	srv := testutil.NewServer(t, func(o *app.Options) { o.AllowedHosts = []string{"mneme.team.example", "other.example:8443"} })
	port := fmt.Sprint(srv.Port)
	for _, tt := range []struct {
		host string
		want int
	}{
		{"mneme.team.example", 200},
		{"MNEME.team.example:443", 200},
		{"mneme.team.example:" + port, 200},
		{"other.example:8443", 200},
		{"other.example", 403}, // given with a port: only that one
		{"other.example:443", 403},
		{"evil.example:" + port, 403},
		{"mneme.team.example.evil.example", 403},
		{"127.0.0.1:" + port, 200},
	} {
		if got, _, body := raw(t, srv.Client(), "GET", srv.URL+"/api/health", tt.host, nil, ""); got != tt.want {
			t.Errorf("Host %q: %d %s, want %d", tt.host, got, body, tt.want)
		}
	}
	// A browser's POST from the allowed origin passes the Origin check and
	// meets the CSRF check (a page sends its token); a foreign one does not
	// get that far.
	for _, tt := range []struct{ origin, want string }{
		{"https://mneme.team.example", "CSRF check failed"},
		{"https://evil.example", "cross-origin request refused"},
	} {
		h := map[string]string{"Content-Type": "application/json", "Origin": tt.origin}
		if got, _, body := raw(t, srv.Client(), "POST", srv.URL+"/api/settings/reapply-redaction", "mneme.team.example", h, `{}`); got != 403 || !strings.Contains(body, tt.want) {
			t.Errorf("Origin %s: %d %s, want 403 %q", tt.origin, got, body, tt.want)
		}
	}
}

func TestOriginCheck(t *testing.T) {
	srv := testutil.NewServer(t)
	port := fmt.Sprint(srv.Port)
	json := map[string]string{"Content-Type": "application/json"}
	with := func(k, v string) map[string]string {
		return map[string]string{"Content-Type": "application/json", k: v}
	}
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no Origin (mneme hook, Claude Code http hook, curl)", json, 200},
		{"same origin, but no CSRF token (a page must send one)", with("Origin", "http://127.0.0.1:"+port), 403},
		{"another loopback port", with("Origin", "http://127.0.0.1:1"+port), 403},
		{"foreign site", with("Origin", "https://evil.example"), 403},
		{"opaque origin (sandboxed iframe, data: URL)", with("Origin", "null"), 403},
		{"foreign Referer without Origin", with("Referer", "https://evil.example/page"), 403},
	}
	for i, tt := range tests {
		id := fmt.Sprintf("o%d", i)
		got, _, body := raw(t, srv.Client(), "POST", srv.URL+"/api/hooks/user-prompt-submit", "", tt.header, fmt.Sprintf(hookBody, id, id))
		if got != tt.want {
			t.Errorf("%s: %d %s, want %d", tt.name, got, body, tt.want)
		}
	}
	// Only the accepted ones were stored.
	var page struct {
		Items []struct{ Text string } `json:"items"`
	}
	srv.GetJSON(t, "/api/prompts?limit=50", &page)
	if len(page.Items) != 1 {
		t.Fatalf("stored %d prompts, want 1: %+v", len(page.Items), page.Items)
	}
	// PUT and DELETE are state-changing too.
	for _, m := range []string{"PUT", "DELETE"} {
		if got, _, _ := raw(t, srv.Client(), m, srv.URL+"/api/settings", "", with("Origin", "https://evil.example"), `{}`); got != 403 {
			t.Errorf("cross-origin %s: %d", m, got)
		}
	}
}

// csrfClient is a browser-like client: a cookie jar, and the token read
// from the page's <meta name="csrf-token">.
func csrfClient(t *testing.T, srv *testutil.Server) (*http.Client, string) {
	t.Helper()
	c := srv.LoggedIn(t)
	status, h, body := raw(t, c, "GET", srv.URL+"/settings", "", nil, "")
	if status != 200 {
		t.Fatalf("GET /settings: %d", status)
	}
	if ck := h.Get("Set-Cookie"); !strings.Contains(ck, "mneme_csrf=") || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Strict") {
		t.Fatalf("CSRF cookie: %q", ck)
	}
	m := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no csrf-token meta on the page")
	}
	return c, m[1]
}

func TestCSRF(t *testing.T) {
	srv := testutil.NewServer(t)
	origin := map[string]string{"Origin": srv.URL, "Content-Type": "application/x-www-form-urlencoded"}
	form := url.Values{"injection.maxInjectTokens": {"700"}, "privacy.redactionRules.count": {"0"}}
	c, tok := csrfClient(t, srv)

	// A same-origin form post without the token (or with a wrong one) is refused.
	if got, _, body := raw(t, c, "POST", srv.URL+"/settings", "", origin, form.Encode()); got != 403 || !strings.Contains(body, "CSRF") {
		t.Fatalf("form without token: %d %s", got, body)
	}
	bad := url.Values{"_csrf": {"not-the-token"}}
	for k, v := range form {
		bad[k] = v
	}
	if got, _, _ := raw(t, c, "POST", srv.URL+"/settings", "", origin, bad.Encode()); got != 403 {
		t.Fatalf("form with a wrong token: %d", got)
	}
	// The token without the cookie (another browser) is refused too.
	if got, _, _ := raw(t, srv.Client(), "POST", srv.URL+"/settings", "", origin, "_csrf="+tok+"&"+form.Encode()); got != 403 {
		t.Fatalf("token without its cookie: %d", got)
	}
	if st := srv.Capture.Policy().Settings; st.Injection.MaxInjectTokens != 2000 {
		t.Fatalf("settings changed: %d", st.Injection.MaxInjectTokens)
	}

	// With the token, the page's form saves (303 back to the page).
	full := pageForm(t, c, srv)
	full.Set("injection.maxInjectTokens", "700")
	if got, h, body := raw(t, c, "POST", srv.URL+"/settings", "", origin, full.Encode()); got != 303 || h.Get("Location") != "/settings?saved=1" {
		t.Fatalf("form with token: %d %s", got, body)
	}
	if st := srv.Capture.Policy().Settings; st.Injection.MaxInjectTokens != 700 {
		t.Fatalf("not applied: %d", st.Injection.MaxInjectTokens)
	}

	// The JSON API from the page's script: header token required.
	jsonHdr := map[string]string{"Origin": srv.URL, "Content-Type": "application/json"}
	if got, _, _ := raw(t, c, "PUT", srv.URL+"/api/settings", "", jsonHdr, `{"injection":{"maxInjectTokens":800}}`); got != 403 {
		t.Fatalf("browser PUT without token header: %d", got)
	}
	jsonHdr["X-Csrf-Token"] = tok
	if got, _, body := raw(t, c, "PUT", srv.URL+"/api/settings", "", jsonHdr, `{"injection":{"maxInjectTokens":800}}`); got != 200 {
		t.Fatalf("browser PUT with token header: %d %s", got, body)
	}
	// curl / the CLI (no cookie, no Origin) needs no token.
	if got, _, body := raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", map[string]string{"Content-Type": "application/json"}, `{"injection":{"maxInjectTokens":900}}`); got != 200 {
		t.Fatalf("CLI PUT: %d %s", got, body)
	}
	if st := srv.Capture.Policy().Settings; st.Injection.MaxInjectTokens != 900 {
		t.Fatalf("not applied: %d", st.Injection.MaxInjectTokens)
	}
}

// pageForm reads the settings form's fields as the page renders them.
func pageForm(t *testing.T, c *http.Client, srv *testutil.Server) url.Values {
	t.Helper()
	_, _, body := raw(t, c, "GET", srv.URL+"/settings", "", nil, "")
	v := url.Values{}
	for _, m := range regexp.MustCompile(`<input[^>]*type="(?:hidden|text|number)"[^>]*>`).FindAllString(body, -1) {
		name := regexp.MustCompile(`name="([^"]*)"`).FindStringSubmatch(m)
		val := regexp.MustCompile(`value="([^"]*)"`).FindStringSubmatch(m)
		if name != nil && val != nil {
			v.Set(name[1], htmlUnescape(val[1]))
		}
	}
	for _, m := range regexp.MustCompile(`<input[^>]*type="checkbox"[^>]*>`).FindAllString(body, -1) {
		name := regexp.MustCompile(`name="([^"]*)"`).FindStringSubmatch(m)
		if name != nil && strings.Contains(m, " checked") {
			v.Set(name[1], "on")
		}
	}
	for _, m := range regexp.MustCompile(`(?s)<textarea[^>]*name="([^"]*)"[^>]*>(.*?)</textarea>`).FindAllStringSubmatch(body, -1) {
		v.Set(m[1], htmlUnescape(m[2]))
	}
	for _, m := range regexp.MustCompile(`(?s)<select[^>]*name="([^"]*)"[^>]*>(.*?)</select>`).FindAllStringSubmatch(body, -1) {
		if sel := regexp.MustCompile(`<option value="([^"]*)" selected`).FindStringSubmatch(m[2]); sel != nil {
			v.Set(m[1], sel[1])
		}
	}
	return v
}

func htmlUnescape(s string) string {
	r := strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&quot;", `"`)
	return r.Replace(s)
}

// TestSecretsNeverShown stores a summarizer API key through the API and
// looks for it everywhere the settings are shown or announced.
func TestSecretsNeverShown(t *testing.T) {
	srv := testutil.NewServer(t)
	const key = "sk-ant-api03-THIS-IS-A-SECRET-KEY-0123456789abcdef"
	put := func(body string) (int, string) {
		got, _, b := raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", map[string]string{"Content-Type": "application/json"}, body)
		return got, b
	}
	if got, body := put(`{"summarizer":{"kind":"anthropic-api","apiKey":"` + key + `"}}`); got != 200 || strings.Contains(body, key) {
		t.Fatalf("PUT: %d %s", got, body)
	}
	if srv.Capture.Policy().Settings.Summarizer.APIKey != key {
		t.Fatal("key not stored")
	}
	var doc struct {
		Summarizer map[string]any `json:"summarizer"`
	}
	_, body := srv.Get(t, "/api/settings")
	if strings.Contains(string(body), key) || strings.Contains(string(body), "THIS-IS-A-SECRET") {
		t.Fatalf("GET /api/settings leaks the key: %s", body)
	}
	json.Unmarshal(body, &doc)
	if doc.Summarizer["apiKey"] != "set" {
		t.Fatalf("apiKey shown as %v, want \"set\"", doc.Summarizer["apiKey"])
	}
	// Sending the settings back as read keeps the key.
	if got, b := put(string(body)); got != 200 {
		t.Fatalf("round trip: %d %s", got, b)
	}
	if srv.Capture.Policy().Settings.Summarizer.APIKey != key {
		t.Fatal("round trip lost the key")
	}
	// The page, the event log behind the stream: no key.
	if _, page := srv.Get(t, "/settings"); strings.Contains(string(page), "THIS-IS-A-SECRET") || !strings.Contains(string(page), "Status: set") {
		t.Fatal("the settings page leaks the key or does not say it is set")
	}
	var events []struct{ Kind, Data string }
	modelstest.Scan(t, srv.Store, &events, `SELECT kind, data FROM events`)
	found := false
	for _, e := range events {
		kind, data := e.Kind, e.Data
		if strings.Contains(data, "THIS-IS-A-SECRET") {
			t.Fatalf("event %s leaks the key: %s", kind, data)
		}
		found = found || kind == "settings_changed"
	}
	if !found {
		t.Fatal("no settings_changed event")
	}
	// Clearing works and reads back "not set".
	if got, b := put(`{"summarizer":{"kind":"heuristic","clearApiKey":true}}`); got != 200 || !strings.Contains(b, `"apiKey":"not set"`) {
		t.Fatalf("clear: %d %s", got, b)
	}
}

func TestNoCORSAndSecurityHeaders(t *testing.T) {
	srv := testutil.NewServer(t)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/settings"}, {"GET", "/settings"}, {"OPTIONS", "/api/settings"}, {"GET", "/api/health"},
	} {
		_, h, _ := raw(t, srv.Client(), tc.method, srv.URL+tc.path, "", map[string]string{
			"Origin": "https://evil.example", "Access-Control-Request-Method": "PUT"}, "")
		if v := h.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("%s %s: Access-Control-Allow-Origin %q", tc.method, tc.path, v)
		}
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s %s: CSP %q lacks %q", tc.method, tc.path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("CSP allows inline or eval: %q", csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s %s: headers %v", tc.method, tc.path, h)
		}
	}
}
