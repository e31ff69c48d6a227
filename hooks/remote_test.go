package hooks_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// With MNEME_URL (a team's worker), the hook posts there with the person's
// token, and what leaves the machine is already redacted by this
// machine's rules: built-in ones and the user's own from the data
// directory. While the worker is unreachable the event waits in a spool
// of its own, which a local worker never replays.
func TestHookRemoteSendsRedacted(t *testing.T) {
	var mu sync.Mutex
	var got [][]byte
	var reqs []string
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, reqs = append(got, b), append(reqs, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(hookwire.ContinueJSON))
	}))
	defer remote.Close()
	// sent is what the remote got so far.
	sent := func() ([][]byte, []string) {
		mu.Lock()
		defer mu.Unlock()
		return append([][]byte(nil), got...), append([]string(nil), reqs...)
	}
	dataDir := t.TempDir()
	rules := append(privacy.BuiltinRules(), privacy.Rule{Name: "ticket", Pattern: `TICKET-\d{4,}`, Enabled: true})
	if err := privacy.WriteRules(filepath.Join(dataDir, privacy.RulesFile), rules); err != nil {
		t.Fatal(err)
	}
	token := "mneme_pt_" + strings.Repeat("7e", 32)
	t.Setenv(hookwire.EnvURL, remote.URL+"/")
	t.Setenv(hookwire.EnvToken, token)
	c, stderr := newClient(t, freePort(t), dataDir)
	run(t, c, "user-prompt-submit", prompt("deploy with ghp_Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA for TICKET-98765 <private>my notes</private>"))

	bodies, auths := sent()
	if len(bodies) != 1 || auths[0] != "POST /api/hooks/user-prompt-submit Bearer "+token {
		t.Fatalf("the remote got %q; stderr %s", auths, stderr)
	}
	for _, secret := range []string{"Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA", "98765", "my notes"} {
		if bytes.Contains(bodies[0], []byte(secret)) {
			t.Errorf("%q left the machine: %s", secret, bodies[0])
		}
	}
	if !bytes.Contains(bodies[0], []byte("[REDACTED:github_token]")) || !bytes.Contains(bodies[0], []byte("[REDACTED:ticket]")) {
		t.Errorf("sent %s", bodies[0])
	}

	// Unreachable: spooled apart, redacted, and sent on the next event.
	t.Setenv(hookwire.EnvURL, "http://127.0.0.1:1")
	c, _ = newClient(t, freePort(t), dataDir)
	run(t, c, "user-prompt-submit", prompt("later TICKET-12345"))
	if _, err := os.Stat(filepath.Join(dataDir, "spool")); err == nil {
		t.Errorf("the local worker's spool was used for a remote event")
	}
	onDisk, _ := os.ReadFile(firstFile(t, filepath.Join(dataDir, hookwire.RemoteSpoolDir)))
	if bytes.Contains(onDisk, []byte("12345")) || !bytes.Contains(onDisk, []byte("[REDACTED:ticket]")) {
		t.Errorf("spooled %s", onDisk)
	}
	t.Setenv(hookwire.EnvURL, remote.URL)
	c, _ = newClient(t, freePort(t), dataDir)
	run(t, c, "stop", []byte(`{"session_id":"hardening","hook_event_name":"Stop"}`))
	if bodies, auths = sent(); len(bodies) != 3 || !bytes.Contains(bodies[1], []byte("[REDACTED:ticket]")) {
		t.Errorf("after the worker came back it got %d events: %q", len(bodies), auths)
	}
}

// firstFile is the path of a regular file under dir.
func firstFile(t *testing.T, dir string) string {
	t.Helper()
	var found string
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && found == "" {
			found = path
		}
		return nil
	})
	if found == "" {
		t.Fatalf("nothing in %s", dir)
	}
	return found
}

// End to end with a real worker: a person's token through the hook, and
// the session records the person.
func TestHookRemotePerson(t *testing.T) {
	srv := testutil.NewServer(t)
	_, token, err := srv.Store.CreateAPIToken(t.Context(), "frank")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(hookwire.EnvURL, srv.URL)
	t.Setenv(hookwire.EnvToken, token)
	c, stderr := newClient(t, freePort(t), t.TempDir())
	run(t, c, "user-prompt-submit", prompt("hello team"))
	s, err := srv.Store.SessionByClaudeID(t.Context(), "hardening")
	if err != nil || s.CapturedBy != "frank" {
		t.Fatalf("session %+v, %v; stderr %s", s, err, stderr)
	}
}
