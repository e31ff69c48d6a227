package web_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

type embeddingsDoc struct {
	Embeddings struct {
		URL        string `json:"url"`
		Model      string `json:"model"`
		Dimensions int    `json:"dimensions"`
		APIKey     string `json:"apiKey"`
	} `json:"embeddings"`
}

// TestEmbeddingsSettingsLikeTheSummarizers: the embeddings endpoint's
// settings are off by default; its key is write-only (never returned,
// kept in <data>/embeddings-key with 0600, not in the database); changing
// the URL needs the worker's secret (JSON and form, 403 and nothing stored
// with the login cookie alone) and drops the key unless it is entered
// again; a bad URL or a URL without a model is a 422 naming the field, on
// the page next to the field.
func TestEmbeddingsSettingsLikeTheSummarizers(t *testing.T) {
	fake := embedtest.New(16)
	defer fake.Close()
	srv := testutil.NewServer(t)
	var doc embeddingsDoc
	srv.GetJSON(t, "/api/settings", &doc)
	if doc.Embeddings.URL != "" || doc.Embeddings.APIKey != models.APIKeyNotSet {
		t.Fatalf("default embeddings settings: %+v", doc.Embeddings)
	}
	const key = "sk-embed-KEYFILE-TEST-0123456789abcdefghij"
	bearer := map[string]string{"Content-Type": "application/json"}
	status, _, b := raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", bearer,
		`{"embeddings":{"url":"`+fake.URL+`","model":"m","dimensions":16,"apiKey":"`+key+`"}}`)
	if status != 200 || strings.Contains(b, key) || !strings.Contains(b, `"apiKey":"set"`) {
		t.Fatalf("PUT with the secret: %d %s", status, b)
	}
	keyFile := filepath.Join(srv.DataDir, embeddingsKeyFile)
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	var value string
	modelstest.Scan(t, srv.Store, &value, `SELECT value FROM settings WHERE key = 'runtime'`)
	if strings.Contains(value, key) || !strings.Contains(value, fake.URL) {
		t.Errorf("the settings row: %s", value)
	}
	if got := srv.Capture.Policy().Settings.Embeddings.APIKey; got != key {
		t.Errorf("the key in force: %q", got)
	}

	// The login cookie alone cannot move the endpoint.
	c, tok := csrfClient(t, srv)
	jsonHdr := map[string]string{"Origin": srv.URL, "Content-Type": "application/json", "X-CSRF-Token": tok}
	if status, _, b := raw(t, c, "PUT", srv.URL+"/api/settings", "", jsonHdr, `{"embeddings":{"url":"http://evil.example"}}`); status != 403 || !strings.Contains(b, "embeddings.url") {
		t.Errorf("PUT a new URL with the cookie: %d %s", status, b)
	}
	form := pageForm(t, c, srv)
	if form.Get("embeddings.url") != fake.URL || form.Get("embeddings.model") != "m" {
		t.Fatalf("the page's embeddings fields: %v", form)
	}
	form.Set("embeddings.url", "http://evil.example")
	formHdr := map[string]string{"Origin": srv.URL, "Content-Type": "application/x-www-form-urlencoded"}
	if status, _, page := raw(t, c, "POST", srv.URL+"/settings", "", formHdr, form.Encode()); status != 403 || !strings.Contains(page, "embeddings.url") {
		t.Errorf("form with a new URL and the cookie: %d", status)
	}
	srv.GetJSON(t, "/api/settings", &doc)
	if doc.Embeddings.URL != fake.URL || doc.Embeddings.APIKey != models.APIKeySet {
		t.Fatalf("a refused change was stored: %+v", doc.Embeddings)
	}
	// A harmless change with the cookie keeps the key.
	if status, _, b := raw(t, c, "PUT", srv.URL+"/api/settings", "", jsonHdr, `{"embeddings":{"dimensions":16}}`); status != 200 || !strings.Contains(b, `"apiKey":"set"`) {
		t.Errorf("harmless PUT: %d %s", status, b)
	}

	// Invalid values: per field, nothing stored.
	for body, field := range map[string]string{
		`{"embeddings":{"url":"ftp://x"}}`:                       "embeddings.url",
		`{"embeddings":{"url":"` + fake.URL + `/b","model":""}}`: "embeddings.model",
		`{"embeddings":{"dimensions":-1}}`:                       "embeddings.dimensions",
	} {
		status, _, b := raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", bearer, body)
		var ve struct {
			Fields []models.FieldError `json:"fields"`
		}
		json.Unmarshal([]byte(b), &ve)
		if status != 422 || len(ve.Fields) == 0 || ve.Fields[0].Field != field {
			t.Errorf("PUT %s: %d %s, want 422 on %s", body, status, b, field)
		}
	}
	form = pageForm(t, c, srv)
	form.Set("embeddings.dimensions", "lots")
	if status, _, page := raw(t, c, "POST", srv.URL+"/settings", "", formHdr, form.Encode()); status != 422 || !strings.Contains(page, "&#34;lots&#34; is not a whole number") {
		t.Errorf("form with bad dimensions: %d", status)
	}

	// A new URL with the secret and no key: the key is dropped.
	status, _, b = raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", bearer, `{"embeddings":{"url":"`+fake.URL+`/other"}}`)
	if status != 200 || !strings.Contains(b, `"apiKey":"not set"`) {
		t.Fatalf("new URL: %d %s", status, b)
	}
	if _, err := os.Stat(keyFile); !os.IsNotExist(err) {
		t.Errorf("the key file outlived the key: %v", err)
	}
	// Entered again, then cleared.
	raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", bearer, `{"embeddings":{"apiKey":"`+key+`"}}`)
	if srv.Capture.Policy().Settings.Embeddings.APIKey != key {
		t.Fatal("the key entered again was not kept")
	}
	if status, _, b := raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", bearer, `{"embeddings":{"clearApiKey":true}}`); status != 200 || !strings.Contains(b, `"apiKey":"not set"`) {
		t.Fatalf("clear: %d %s", status, b)
	}
	if files := dirHolds(t, srv.DataDir, key); len(files) != 0 {
		t.Errorf("files holding the cleared key: %v", files)
	}
}
