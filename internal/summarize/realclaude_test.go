//go:build unix

package summarize_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/e2e"
	"github.com/mneme-dev/mneme/internal/summarize"
)

// TestClaudeCLIRealBinary runs the claude-cli summarizer against the real
// Claude Code binary (MNEME_CLAUDE_BIN) pointed at the loopback fake
// Messages API. User settings install hooks for every event; they must not
// run (the summarizer passes disableAllHooks), the answer must parse, and
// no process of the run may remain.
func TestClaudeCLIRealBinary(t *testing.T) {
	bin := os.Getenv(e2e.ClaudeBinEnv)
	if bin == "" {
		t.Skipf("set %s to a Claude Code binary to run this test", e2e.ClaudeBinEnv)
	}
	in := sampleInput(t)
	api := newStreamingAPI(t, strictAnswer)
	home := e2e.NewHome(t)
	marks := t.TempDir()
	e2e.WriteSettings(t, home, map[string]any{"hooks": e2e.CommandHooks(func(ev string) string {
		return "touch " + e2e.ShellQuote(filepath.Join(marks, ev))
	}, "SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")})
	tag := "summarize-real-" + time.Now().Format("150405.000")
	c := &summarize.ClaudeCLI{Path: bin, Model: "claude-haiku-4-5",
		Env: append(e2e.CleanEnv(home, api.URL), e2e.RunTagEnv+"="+tag)}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	res, err := c.Summarize(ctx, in)
	t.Logf("claude -p took %s", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	if res.Completed != "Created internal/auth/jwt.go; tests pass." || res.Generator != "claude-cli" {
		t.Errorf("result = %+v", res)
	}
	t.Logf("tokens in %d out %d, cost $%.5f, model %q", res.InputTokens, res.OutputTokens, res.CostUSD, res.Model)
	bodies := api.bodies()
	if len(bodies) == 0 {
		t.Fatal("the fake API saw no message request")
	}
	if !e2e.BodiesContain(bodies, "missing env var JWT_SECRET") || !e2e.BodiesContain(bodies, "NEXT_STEPS") {
		t.Error("no request carried the session record and the format")
	}
	if ran, _ := filepath.Glob(filepath.Join(marks, "*")); len(ran) > 0 {
		t.Errorf("hooks ran inside the summarizer's claude -p: %v", ran)
	}
	// Control: the same claude -p without disableAllHooks does run the
	// user's hooks, so the check above is not vacuous.
	ctl := exec.CommandContext(ctx, bin, "-p", "--output-format", "json", "--tools", "", "--no-session-persistence")
	ctl.Env, ctl.Dir, ctl.Stdin = c.Env, t.TempDir(), strings.NewReader("say hi")
	if out, err := ctl.CombinedOutput(); err != nil {
		t.Fatalf("control run: %v\n%s", err, out)
	}
	if ran, _ := filepath.Glob(filepath.Join(marks, "*")); len(ran) == 0 {
		t.Error("control run fired no hook: the hooks check proves nothing")
	} else {
		t.Logf("control run (hooks enabled) fired %d hook(s)", len(ran))
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(e2e.TaggedProcesses(tag)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the run remain: %v", e2e.TaggedProcesses(tag))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streamingAPI is a tiny Messages API that answers every message with
// text, streamed as Server-Sent Events when asked (as Claude Code does).
type streamingAPI struct {
	*httptest.Server
	mu   sync.Mutex
	seen [][]byte
}

func (s *streamingAPI) bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.seen...)
}

func newStreamingAPI(t *testing.T, text string) *streamingAPI {
	s := &streamingAPI{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.Contains(r.URL.Path, "count_tokens") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"input_tokens":100}`)
			return
		}
		s.mu.Lock()
		s.seen = append(s.seen, body)
		s.mu.Unlock()
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		json.Unmarshal(body, &req)
		usage := map[string]any{"input_tokens": 900, "output_tokens": 70, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
		msg := map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
		if !req.Stream {
			msg["content"] = []any{map[string]any{"type": "text", "text": text}}
			msg["stop_reason"] = "end_turn"
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(event string, data any) {
			b, _ := json.Marshal(data)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		}
		send("message_start", map[string]any{"type": "message_start", "message": msg})
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 70}})
		send("message_stop", map[string]any{"type": "message_stop"})
	}))
	t.Cleanup(s.Close)
	return s
}
