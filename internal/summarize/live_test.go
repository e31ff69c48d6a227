package summarize_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestSummaryLiveAndInjected: a summary is announced on /stream as a named
// `summary` event once committed, and the next session of the project gets
// it in its injected context.
func TestSummaryLiveAndInjected(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stream", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan [2]string, 64)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				events <- [2]string{name, strings.TrimPrefix(line, "data: ")}
			}
		}
		close(events)
	}()
	replay(t, srv, jwtSession("live-1")[:12])
	var got map[string]any
	for got == nil {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("stream ended before a summary event")
			}
			if ev[0] == "summary" {
				if err := json.Unmarshal([]byte(ev[1]), &got); err != nil {
					t.Fatal(err)
				}
			}
		case <-ctx.Done():
			t.Fatal("no summary event on /stream")
		}
	}
	for _, k := range []string{"id", "sessionId", "project", "kind", "request", "completed", "nextSteps", "generator", "createdAt"} {
		if _, ok := got[k]; !ok {
			t.Errorf("summary event lacks %q: %v", k, got)
		}
	}
	if got["kind"] != "turn" || got["generator"] != summarize.GenHeuristic || !strings.Contains(got["completed"].(string), "Created internal/auth/jwt.go") {
		t.Errorf("summary event = %v", got)
	}

	// The next session of the project is told about it.
	out := srv.Hook(t, "session-start", map[string]any{"session_id": "live-2", "cwd": "/home/dev/projects/api", "hook_event_name": "SessionStart", "source": "startup"})
	var hook struct {
		Specific struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	json.Unmarshal(out, &hook)
	if !strings.Contains(hook.Specific.Context, "passes (2 packages ok)") {
		t.Errorf("injected context does not carry the summary:\n%s", hook.Specific.Context)
	}
	if testing.Verbose() {
		t.Logf("injected:\n%s", hook.Specific.Context)
	}
}
