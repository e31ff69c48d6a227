package web_test

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// The key files in the data directory, beside mneme.db (README: the API
// key is not in the database).
const (
	apiKeyFile        = "apikey"
	embeddingsKeyFile = "embeddings-key"
)

// dirHolds names the files under dir whose bytes contain s.
func dirHolds(t *testing.T, dir, s string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(s)) {
			rel, _ := filepath.Rel(dir, path)
			found = append(found, rel)
		}
		return nil
	})
	return found
}

// TestAPIKeyLivesOutsideTheDatabase: the summarizer key is stored in
// <data>/apikey (0600) and nowhere else in the data directory (database,
// -wal, logs), survives a restart, is what the summarizer sends, and is
// removed with the file when cleared.
func TestAPIKeyLivesOutsideTheDatabase(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.NewServerIn(t, dir)
	const key = "sk-ant-api03-KEYFILE-TEST-0123456789abcdefghij"

	// A fake Messages API records the key the summarizer sends.
	got := make(chan string, 16)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Get("X-Api-Key"):
		default:
		}
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"test"}}`, http.StatusBadRequest)
	}))
	defer api.Close()

	put := func(body string) (int, string) {
		status, _, b := raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", map[string]string{"Content-Type": "application/json"}, body)
		return status, b
	}
	if status, b := put(`{"summarizer":{"kind":"anthropic-api","baseUrl":"` + api.URL + `","apiKey":"` + key + `"}}`); status != 200 || strings.Contains(b, key) {
		t.Fatalf("PUT: %d %s", status, b)
	}
	keyFile := filepath.Join(dir, apiKeyFile)
	fi, err := os.Stat(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s is %v, want 0600", keyFile, fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(keyFile); strings.TrimSpace(string(b)) != key {
		t.Errorf("the key file holds %q", b)
	}
	var value string
	modelstest.Scan(t, srv.Store, &value, `SELECT value FROM settings WHERE key = 'runtime'`)
	if value == "" || strings.Contains(value, key) || strings.Contains(value, `"apiKey"`) {
		t.Errorf("the settings row holds the key: %s", value)
	}

	// The summarizer sends it.
	srv.Hook(t, "session-start", map[string]any{"session_id": "k1", "cwd": "/tmp/k", "hook_event_name": "SessionStart", "source": "startup"})
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "k1", "cwd": "/tmp/k", "hook_event_name": "UserPromptSubmit", "prompt_id": "p1", "prompt": "summarize me"})
	srv.Hook(t, "stop", map[string]any{"session_id": "k1", "cwd": "/tmp/k", "hook_event_name": "Stop", "prompt_id": "p1", "last_assistant_message": "done"})
	if sent := <-got; sent != key {
		t.Errorf("the summarizer sent key %q", sent)
	}

	// Nothing but the key file holds it, after the worker stops (the
	// database is checkpointed), and it is there after a restart.
	port := srv.Port
	if err := srv.Shutdown(5e9); err != nil {
		t.Fatal(err)
	}
	if files := dirHolds(t, dir, key); len(files) != 1 || files[0] != apiKeyFile {
		t.Errorf("files holding the key: %v, want only %s", files, apiKeyFile)
	}
	srv = testutil.NewServerAt(t, dir, port)
	if srv.Capture.Policy().Settings.Summarizer.APIKey != key {
		t.Error("the key is lost after a restart")
	}
	if status, b := put(`{"summarizer":{"clearApiKey":true}}`); status != 200 || !strings.Contains(b, `"apiKey":"not set"`) {
		t.Fatalf("clear: %d %s", status, b)
	}
	if _, err := os.Stat(keyFile); !os.IsNotExist(err) {
		t.Errorf("the key file is still there after clearing: %v", err)
	}
}

// TestAPIKeyDroppedWhenBaseURLChanges: a key belongs to its endpoint. A
// new baseUrl without the key entered again drops the stored key (JSON and
// form, with a notice on the page); with the key entered it is kept.
func TestAPIKeyDroppedWhenBaseURLChanges(t *testing.T) {
	srv := testutil.NewServer(t)
	const key = "sk-ant-api03-BASEURL-TEST-0123456789abcdefghij"
	put := func(body string) string {
		status, _, b := raw(t, srv.Client(), "PUT", srv.URL+"/api/settings", "", map[string]string{"Content-Type": "application/json"}, body)
		if status != 200 {
			t.Fatalf("PUT %s: %d %s", body, status, b)
		}
		return b
	}
	current := func() string { return srv.Capture.Policy().Settings.Summarizer.APIKey }
	put(`{"summarizer":{"kind":"anthropic-api","baseUrl":"http://127.0.0.1:9/a","apiKey":"` + key + `"}}`)
	put(`{"summarizer":{"model":"claude-haiku-4-5","baseUrl":"http://127.0.0.1:9/a/"}}`) // the same endpoint
	if current() != key {
		t.Fatal("a change that kept the endpoint dropped the key")
	}
	if b := put(`{"summarizer":{"baseUrl":"http://127.0.0.1:9/b"}}`); !strings.Contains(b, `"apiKey":"not set"`) || current() != "" {
		t.Fatalf("a new baseUrl kept the key: %s", b)
	}
	if _, err := os.Stat(filepath.Join(srv.DataDir, apiKeyFile)); !os.IsNotExist(err) {
		t.Errorf("the key file outlived the key: %v", err)
	}
	put(`{"summarizer":{"baseUrl":"http://127.0.0.1:9/c","apiKey":"` + key + `"}}`) // entered again
	if current() != key {
		t.Fatal("a key entered with the new baseUrl was not kept")
	}

	// The form: a new base URL with the key field left empty.
	c, _ := csrfClient(t, srv)
	form := pageForm(t, c, srv)
	form.Set("summarizer.baseUrl", "http://127.0.0.1:9/d")
	form.Set("secret", srv.Secret)
	status, h, _ := raw(t, c, "POST", srv.URL+"/settings", "", map[string]string{"Origin": srv.URL, "Content-Type": "application/x-www-form-urlencoded"}, form.Encode())
	if status != 303 || current() != "" {
		t.Fatalf("form: %d %v, key kept: %v", status, h, current() != "")
	}
	_, page := srv.Get(t, h.Get("Location"))
	if !strings.Contains(string(page), "The API key was removed because the base URL changed") {
		t.Error("the page does not say the key was removed")
	}
}
