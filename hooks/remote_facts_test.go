package hooks_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// Issue 21, point 9: a team worker opens no path a person's event names,
// so the teammate's hook (MNEME_URL) reads its own machine: each event
// carries the project and branch of cwd's repository, as a local worker
// finds them, and a Stop without last_assistant_message carries the last
// message of the transcript, redacted here like the rest. A Stop that has
// its message keeps it.
func TestHookRemoteAddsOwnFacts(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		w.Write([]byte(hookwire.ContinueJSON))
	}))
	defer remote.Close()

	dir := t.TempDir()
	repo := filepath.Join(dir, "team-app")
	cwd := filepath.Join(repo, "cmd", "tool")
	transcript := filepath.Join(dir, "session.jsonl")
	const secret = "ghp_Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA"
	for path, content := range map[string]string{
		filepath.Join(repo, ".git", "HEAD"): "ref: refs/heads/feature/x\n",
		transcript: `{"type":"assistant","message":{"content":[{"type":"text","text":"old answer"}]}}` + "\n" +
			`{"type":"user","message":{"content":"thanks"}}` + "\n" +
			`{"type":"assistant","message":{"content":[{"type":"text","text":"Pushed with ` + secret + `<system-reminder>hidden</system-reminder>"}]}}` + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv(hookwire.EnvURL, remote.URL)
	t.Setenv(hookwire.EnvToken, "mneme_pt_"+strings.Repeat("ab", 32))
	c, stderr := newClient(t, freePort(t), t.TempDir())
	stop := func(extra map[string]any) map[string]any {
		m := map[string]any{"session_id": "facts", "cwd": cwd, "transcript_path": transcript, "hook_event_name": "Stop"}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		run(t, c, "stop", b)
		mu.Lock()
		defer mu.Unlock()
		var got map[string]any
		if len(bodies) == 0 || json.Unmarshal(bodies[len(bodies)-1], &got) != nil {
			t.Fatalf("the remote got %q; stderr %s", bodies, stderr)
		}
		return got
	}

	got := stop(nil)
	if got["mneme_project"] != "team-app" || got["mneme_branch"] != "feature/x" {
		t.Errorf("project %v, branch %v; want team-app on feature/x", got["mneme_project"], got["mneme_branch"])
	}
	msg, _ := got["last_assistant_message"].(string)
	if !strings.HasPrefix(msg, "Pushed with [REDACTED:") || strings.Contains(msg, secret) || strings.Contains(msg, "hidden") {
		t.Errorf("last message sent %q: want the transcript's last answer, redacted", msg)
	}
	if got := stop(map[string]any{"last_assistant_message": "given by Claude Code"}); got["last_assistant_message"] != "given by Claude Code" {
		t.Errorf("a Stop with its message sent %v", got["last_assistant_message"])
	}
	if got := stop(map[string]any{"last_assistant_message": ""}); !strings.HasPrefix(got["last_assistant_message"].(string), "Pushed with") {
		t.Errorf("a Stop with an empty message sent %v", got["last_assistant_message"])
	}
}
