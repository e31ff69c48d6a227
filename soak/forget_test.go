//go:build unix

package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// forgetEvents is a session of project through the hook: a prompt and
// two tool calls holding mark (when not empty), then the turn's end.
func forgetEvents(session, project, mark string) [][2]string {
	base := func(event string, extra string) string {
		return fmt.Sprintf(`{"session_id":%q,"transcript_path":"","cwd":%q,"hook_event_name":%q,"permission_mode":"default"%s}`,
			session, "/tmp/soak-forget/"+project, event, extra)
	}
	return [][2]string{
		{"session-start", base("SessionStart", `,"source":"startup"`)},
		{"user-prompt-submit", base("UserPromptSubmit", fmt.Sprintf(`,"prompt_id":"p1","prompt":"remember %s please"`, mark))},
		{"post-tool-use", base("PostToolUse", fmt.Sprintf(`,"prompt_id":"p1","tool_name":"Bash","tool_use_id":"t1-%s","tool_input":{"command":"cat notes-%s.txt"},"tool_response":{"stdout":"%s line","stderr":"","interrupted":false}`, session, mark, mark))},
		{"post-tool-use-failure", base("PostToolUseFailure", fmt.Sprintf(`,"prompt_id":"p1","tool_name":"Bash","tool_use_id":"t2-%s","tool_input":{"command":"grep %s"},"error":"exit 1 %s","is_interrupt":false`, session, mark, mark))},
		{"stop", base("Stop", fmt.Sprintf(`,"prompt_id":"p1","stop_hook_active":false,"last_assistant_message":"noted %s\n\nKey decisions:\n- Went with the %s store over the flat files, since it keeps history."`, mark, mark))},
	}
}

// TestForgetLeavesNoTrace: a session and a project recorded through the
// hook, part of them spooled while the worker was down and replayed, are
// forgotten with `mneme forget`; afterwards no byte of the data directory
// (database, -wal, -shm, spool, logs), nothing the worker printed after,
// search, the full export and the stream's replay hold their text, and
// the session that was kept is intact.
func TestForgetLeavesNoTrace(t *testing.T) {
	const mark, mark2 = "Wombat5521PrivateNote", "Platypus0917OtherNote"
	dir := t.TempDir()
	p := startWorker(t, dir)
	p.Stop()
	for _, ev := range forgetEvents("soak-forget-1", "soakforget", mark) {
		hook(t, p.Port, dir, ev[0], []byte(ev[1]), "MNEME_NO_AUTOSTART=1")
	}
	if spool, _ := filepath.Glob(filepath.Join(dir, "spool", "*.jsonl")); len(spool) == 0 {
		t.Fatal("the hook spooled nothing with the worker down")
	}
	p = restart(t, p)
	waitFor(t, 60*time.Second, "the spool to be replayed", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "spool", "pending*.jsonl"))
		return len(m) == 0
	})
	for _, evs := range [][][2]string{
		forgetEvents("soak-forget-2", "soakforget", mark),
		forgetEvents("soak-other-1", "soakother", mark2),
		forgetEvents("soak-keep-1", "soakkeep", "kept"),
	} {
		for _, ev := range evs {
			hook(t, p.Port, dir, ev[0], []byte(ev[1]))
		}
	}
	waitFor(t, 60*time.Second, "the turn summaries", func() bool {
		resp, err := p.Get("/api/summaries?limit=500")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var page struct{ Items []json.RawMessage }
		json.NewDecoder(resp.Body).Decode(&page)
		return len(page.Items) >= 4
	})
	// The decision in each Stop became a memory that quotes the mark: the
	// forget must take those too.
	waitFor(t, 60*time.Second, "the decisions as memories", func() bool {
		resp, err := p.Get("/api/memories?limit=500")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(b), mark) && strings.Contains(string(b), mark2) && strings.Contains(string(b), "kept store")
	})
	for _, m := range []string{mark, mark2} {
		if len(testutil.FilesHolding(t, dir, m)) == 0 {
			t.Fatalf("%s is not on disk before the forget: the test proves nothing", m)
		}
	}
	logBefore := len(p.Log())

	mneme := func(args ...string) string {
		cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(p.Port), "--data-dir", dir}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mneme %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	start := time.Now()
	out := mneme("forget", "--session", "soak-forget-1", "--yes")
	out += mneme("forget", "--session", "soak-forget-2", "--yes")
	out += mneme("forget", "--project", "soakother", "--yes")
	t.Logf("three forgets in %s:\n%s", time.Since(start).Round(time.Millisecond), out)

	for _, m := range []string{mark, mark2, strings.ToLower(mark)} {
		if files := testutil.FilesHolding(t, dir, m); len(files) > 0 {
			t.Errorf("after forgetting, %v hold %s", files, m)
		}
		if strings.Contains(p.Log()[logBefore:], m) {
			t.Errorf("the worker printed %s after the forget", m)
		}
		for _, path := range []string{"/api/search?q=" + m, "/api/export/all", "/api/memories?limit=500", "/memory"} {
			resp, err := p.Get(path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if path != "/api/search?q="+m && strings.Contains(string(b), m) || path == "/api/search?q="+m && strings.Contains(string(b), `"items":[{`) {
				t.Errorf("GET %s still finds %s: %.300s", path, m, b)
			}
		}
	}
	// The replay of the whole event log.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := httpRequest(ctx, p.URL+"/stream")
	req.Header.Set("Last-Event-ID", "1")
	p.Authorize(req)
	if resp, err := defaultClient.Do(req); err == nil {
		b, _ := io.ReadAll(resp.Body) // ends with the context
		resp.Body.Close()
		if strings.Contains(string(b), mark) || strings.Contains(string(b), mark2) {
			t.Errorf("the stream's replay still sends the forgotten text")
		}
		if !strings.Contains(string(b), "event: forgotten") || !strings.Contains(string(b), "soakkeep") {
			t.Errorf("the replay lacks the forgotten events or the kept session: %.500s", b)
		}
	}
	resp, err := p.Get("/api/sessions/soak-keep-1")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the kept session: %v %v", resp, err)
	}
	resp.Body.Close()
	if _, err := os.Stat(filepath.Join(dir, "logs")); err != nil {
		t.Errorf("no logs directory to search: %v", err)
	}
}

var defaultClient = &http.Client{}

func httpRequest(ctx context.Context, url string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
}
