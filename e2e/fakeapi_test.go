//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	Event string
	Data  map[string]any
}

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Event != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("bad SSE data %q: %v", line, err)
			}
			if cur.Data["type"] != cur.Event {
				t.Errorf("event %q carries type %v", cur.Event, cur.Data["type"])
			}
		}
	}
	return out
}

// assembled is a streamed message put back together.
type assembled struct {
	Events     []string
	Text       string
	ToolName   string
	ToolID     string
	ToolInput  map[string]any
	StopReason string
}

func assemble(t *testing.T, evs []sseEvent) assembled {
	t.Helper()
	var a assembled
	var partial strings.Builder
	for _, e := range evs {
		a.Events = append(a.Events, e.Event)
		switch e.Event {
		case "content_block_start":
			cb := e.Data["content_block"].(map[string]any)
			if cb["type"] == "tool_use" {
				a.ToolName, a.ToolID = cb["name"].(string), cb["id"].(string)
			}
		case "content_block_delta":
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				a.Text += d["text"].(string)
			case "input_json_delta":
				partial.WriteString(d["partial_json"].(string))
			default:
				t.Errorf("unknown delta %v", d)
			}
		case "message_delta":
			a.StopReason = e.Data["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	if partial.Len() > 0 {
		if err := json.Unmarshal([]byte(partial.String()), &a.ToolInput); err != nil {
			t.Fatalf("tool input %q: %v", partial.String(), err)
		}
	}
	return a
}

var fakeTools = []map[string]any{{"name": "Bash", "input_schema": map[string]any{"type": "object"}}}

func toolResult(id string) map[string]any {
	return map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}
}

func TestFakeAPIScript(t *testing.T) {
	f := NewFakeAPI(t,
		ToolUse("Bash", map[string]any{"command": "echo héllo wörld, a long enough command to be split in chunks"}),
		ToolUse("Write", map[string]any{"file_path": "/x", "content": "y"}),
		Text("all done — ✓"),
	)
	url := f.URL + "/v1/messages?beta=true"
	user := map[string]any{"role": "user", "content": "hi"}

	// Step 0: no tool results yet.
	resp := post(t, url, map[string]any{"model": "m", "stream": true, "tools": fakeTools, "messages": []any{user}})
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	a := assemble(t, readSSE(t, resp.Body))
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_delta",
		"content_block_stop", "message_delta", "message_stop"}
	if strings.Join(a.Events, ",") != strings.Join(want, ",") {
		t.Errorf("events %v, want %v", a.Events, want)
	}
	if a.ToolName != "Bash" || a.StopReason != "tool_use" || !strings.HasPrefix(a.ToolID, "toolu_") {
		t.Errorf("step 0: %+v", a)
	}
	if a.ToolInput["command"] != "echo héllo wörld, a long enough command to be split in chunks" {
		t.Errorf("step 0 input %v", a.ToolInput)
	}

	// Step 1: one tool result, in a list of blocks.
	msgs := []any{user,
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "a", "name": "Bash", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{toolResult("a")}},
	}
	a = assemble(t, readSSE(t, post(t, url, map[string]any{"model": "m", "stream": true, "tools": fakeTools, "messages": msgs}).Body))
	if a.ToolName != "Write" || a.ToolInput["file_path"] != "/x" {
		t.Errorf("step 1: %+v", a)
	}

	// Step 2: two results merged into one message count as two.
	msgs = []any{user, map[string]any{"role": "user", "content": []any{toolResult("a"), toolResult("b"),
		map[string]any{"type": "text", "text": "tool_result"}}}}
	a = assemble(t, readSSE(t, post(t, url, map[string]any{"model": "m", "stream": true, "tools": fakeTools, "messages": msgs}).Body))
	if a.Text != "all done — ✓" || a.StopReason != "end_turn" || a.ToolName != "" {
		t.Errorf("step 2: %+v", a)
	}

	// Past the script: a default final text, so runs always end.
	msgs = []any{user, map[string]any{"role": "user", "content": []any{toolResult("a"), toolResult("b"), toolResult("c")}}}
	a = assemble(t, readSSE(t, post(t, url, map[string]any{"model": "m", "stream": true, "tools": fakeTools, "messages": msgs}).Body))
	if a.Text != DefaultFinalText || a.StopReason != "end_turn" {
		t.Errorf("past the end: %+v", a)
	}

	// A side call without tools, not streamed, gets a short JSON message.
	resp = post(t, url, map[string]any{"model": "haiku", "max_tokens": 1, "messages": []any{user}})
	var m struct {
		Type, Role, Model string
		StopReason        string `json:"stop_reason"`
		Content           []struct{ Type, Text string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "message" || m.Role != "assistant" || m.Model != "haiku" || m.StopReason != "end_turn" ||
		len(m.Content) != 1 || m.Content[0].Text != SideText {
		t.Errorf("non-streaming side call: %+v", m)
	}

	// A side call without tools, streamed.
	a = assemble(t, readSSE(t, post(t, url, map[string]any{"model": "m", "stream": true, "messages": []any{user}}).Body))
	if a.Text != SideText || a.StopReason != "end_turn" {
		t.Errorf("streamed side call: %+v", a)
	}

	reqs := f.Requests()
	if len(reqs) != 6 {
		t.Fatalf("recorded %d requests, want 6", len(reqs))
	}
	steps := []int{0, 1, 2, 3, -1, -1}
	for i, r := range reqs {
		if r.Seq != i+1 || r.Path != "/v1/messages" || r.RawQuery != "beta=true" || r.Step != steps[i] {
			t.Errorf("request %d: seq %d path %s?%s step %d", i, r.Seq, r.Path, r.RawQuery, r.Step)
		}
	}
	if n := len(f.ToolRequests()); n != 4 {
		t.Errorf("ToolRequests: %d, want 4", n)
	}
	if n := len(f.FirstToolRequestBodies()); n != 1 {
		t.Errorf("FirstToolRequestBodies: %d, want 1", n)
	}
	if !bytes.Equal(f.FirstToolRequestBody(), reqs[0].Body) {
		t.Errorf("FirstToolRequestBody is not the first request's body")
	}
}

func TestFakeAPIOtherEndpoints(t *testing.T) {
	f := NewFakeAPI(t)
	resp := post(t, f.URL+"/v1/messages/count_tokens?beta=true", map[string]any{"model": "m", "messages": []any{}})
	var ct struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || resp.StatusCode != 200 || ct.InputTokens <= 0 {
		t.Errorf("count_tokens: %d %v %+v", resp.StatusCode, err, ct)
	}
	resp, err := http.Get(f.URL + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("models: %v %v", err, resp)
	}
	resp.Body.Close()
	resp, err = http.Head(f.URL + "/api/hello")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("hello: %v %v", err, resp)
	}
	resp, err = http.Get(f.URL + "/nope")
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("unknown path: %v %v", err, resp)
	}
	resp.Body.Close()
	resp = post(t, f.URL+"/v1/messages", "not an object")
	if resp.StatusCode != 400 {
		t.Errorf("bad body: %d", resp.StatusCode)
	}
	want := []string{"POST /v1/messages/count_tokens?beta=true", "GET /v1/models", "HEAD /api/hello", "GET /nope", "POST /v1/messages"}
	if got := f.Paths(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("paths %v, want %v", got, want)
	}
	f.Close()
	f.Close() // idempotent
}

func TestRequestText(t *testing.T) {
	body := `{"system":[{"type":"text","text":"SYS"}],"messages":[
		{"role":"user","content":[{"type":"text","text":"hello \u003cmneme-context\u003e"}]},
		{"role":"system","content":"SessionStart hook additional context: X"},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"RESULT"}]}]}]}`
	got := RequestText([]byte(body))
	for _, s := range []string{"SYS\n", "hello <mneme-context>\n", "SessionStart hook additional context: X\n", "RESULT\n"} {
		if !strings.Contains(got, s) {
			t.Errorf("RequestText lacks %q:\n%s", s, got)
		}
	}
}

func TestSplitChunks(t *testing.T) {
	s := strings.Repeat("aé✓😀", 30)
	parts := splitChunks(s, 7)
	if strings.Join(parts, "") != s {
		t.Fatal("chunks don't add up")
	}
	for _, p := range parts {
		if !utf8.ValidString(p) || len(p) > 7 {
			t.Errorf("bad chunk %q", p)
		}
	}
	if got := splitChunks("", 5); len(got) != 1 || got[0] != "" {
		t.Errorf("empty: %q", got)
	}
}
