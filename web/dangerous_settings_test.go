package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

type summarizerDoc struct {
	Summarizer struct {
		Kind       string `json:"kind"`
		ClaudePath string `json:"claudePath"`
		BaseURL    string `json:"baseUrl"`
	} `json:"summarizer"`
}

// TestDangerousSettingsNeedTheSecret: the summarizer's kind, claude
// executable and API base URL decide what the worker runs and where it
// sends sessions. With only the login cookie (a page of the viewer), the
// JSON API and the form refuse to change them (403, nothing stored); with
// the secret (header or the form's field) or over the socket they change.
func TestDangerousSettingsNeedTheSecret(t *testing.T) {
	srv := testutil.NewServer(t)
	var before summarizerDoc
	srv.GetJSON(t, "/api/settings", &before)
	c, tok := csrfClient(t, srv) // logged in with the cookie only
	jsonHdr := map[string]string{"Origin": srv.URL, "Content-Type": "application/json", "X-CSRF-Token": tok}
	for _, body := range []string{
		`{"summarizer":{"kind":"claude-cli","claudePath":"/tmp/x.sh"}}`,
		`{"summarizer":{"claudePath":"/tmp/x.sh"}}`,
		`{"summarizer":{"baseUrl":"http://evil.example"}}`,
	} {
		status, _, resp := raw(t, c, "PUT", srv.URL+"/api/settings", "", jsonHdr, body)
		if status != 403 || !strings.Contains(resp, "needs the worker's secret") {
			t.Errorf("PUT %s with the cookie: %d %s", body, status, resp)
		}
	}
	// A harmless change with the cookie still works.
	if status, _, resp := raw(t, c, "PUT", srv.URL+"/api/settings", "", jsonHdr, `{"summarizer":{"model":"claude-haiku-4-5"}}`); status != 200 {
		t.Errorf("harmless PUT with the cookie: %d %s", status, resp)
	}

	form := pageForm(t, c, srv)
	form.Set("summarizer.kind", "claude-cli")
	form.Set("summarizer.claudePath", "/tmp/x.sh")
	formHdr := map[string]string{"Origin": srv.URL, "Content-Type": "application/x-www-form-urlencoded"}
	status, _, page := raw(t, c, "POST", srv.URL+"/settings", "", formHdr, form.Encode())
	if status != 403 || !strings.Contains(page, "needs the worker&#39;s secret") || !strings.Contains(page, `id="f-secret"`) {
		t.Errorf("form with the cookie: %d", status)
	}
	var after summarizerDoc
	srv.GetJSON(t, "/api/settings", &after)
	if after.Summarizer.ClaudePath != before.Summarizer.ClaudePath || after.Summarizer.Kind != before.Summarizer.Kind || after.Summarizer.BaseURL != before.Summarizer.BaseURL {
		t.Fatalf("refused changes were stored: %+v", after)
	}

	// The form with the secret in its field.
	form = pageForm(t, c, srv)
	form.Set("summarizer.claudePath", "/usr/local/bin/claude")
	form.Set("secret", "wrong-secret-0123456789")
	if status, _, _ := raw(t, c, "POST", srv.URL+"/settings", "", formHdr, form.Encode()); status != 403 {
		t.Errorf("form with a wrong secret: %d", status)
	}
	form.Set("secret", srv.Secret)
	if status, h, _ := raw(t, c, "POST", srv.URL+"/settings", "", formHdr, form.Encode()); status != 303 {
		t.Errorf("form with the secret: %d %v", status, h)
	}
	srv.GetJSON(t, "/api/settings", &after)
	if after.Summarizer.ClaudePath != "/usr/local/bin/claude" {
		t.Errorf("form with the secret did not save: %+v", after)
	}

	// The JSON API with the secret as a header, and over the socket.
	if status, _, resp := raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", map[string]string{"Content-Type": "application/json"}, `{"summarizer":{"baseUrl":"http://127.0.0.1:9/v1"}}`); status != 200 {
		t.Errorf("PUT with the bearer secret: %d %s", status, resp)
	}
	req, _ := http.NewRequest("PUT", testutil.SocketURL+"/api/settings", strings.NewReader(`{"summarizer":{"claudePath":"/opt/claude"}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.SocketClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("PUT over the socket: %d %s", resp.StatusCode, b)
	}
	srv.GetJSON(t, "/api/settings", &after)
	if after.Summarizer.BaseURL != "http://127.0.0.1:9/v1" || after.Summarizer.ClaudePath != "/opt/claude" {
		t.Errorf("changes with the secret or over the socket not stored: %+v", after)
	}
}
