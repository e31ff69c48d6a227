//go:build unix

// Package e2e runs the real Claude Code CLI against a loopback fake of the
// Anthropic Messages API, so that end-to-end tests can drive scripted tool
// calls through Claude Code and observe the hooks it fires.
//
// The pieces are:
//   - FakeAPI: an HTTP server on 127.0.0.1 that answers POST /v1/messages
//     with a scripted sequence of tool calls and a final text, streamed as
//     Server-Sent Events exactly like the real API, and records every request;
//   - RunClaude: runs the Claude Code binary headless (claude -p) with a clean
//     environment, a temporary HOME and a bounded lifetime;
//   - small helpers to build a temporary HOME, a git project and the
//     settings.json hooks block.
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Step is one scripted model turn: either a single tool call (Tool is set)
// or a final text answer (Tool is empty).
type Step struct {
	// Tool is the name of the tool to call, e.g. "Bash", "Write", "Edit".
	// Empty means this step is a final text answer.
	Tool string
	// Input is the tool input, serialised as the tool_use block's input.
	Input map[string]any
	// Text is the assistant text. For a tool step it is sent as a text block
	// before the tool_use block when non-empty; for a final step it is the
	// whole answer.
	Text string
}

// ToolUse returns a step in which the model calls tool name with input.
func ToolUse(name string, input map[string]any) Step {
	return Step{Tool: name, Input: input}
}

// Text returns a final step in which the model answers s and ends its turn.
func Text(s string) Step {
	return Step{Text: s}
}

// IsTool reports whether the step is a tool call.
func (s Step) IsTool() bool { return s.Tool != "" }

// DefaultFinalText is answered for tool-carrying requests past the end of
// the script, so that a run always terminates.
const DefaultFinalText = "Done (fake API: script exhausted)."

// SideText is the text answered to model requests that carry no tools
// (Claude Code's auxiliary calls, e.g. title or topic detection).
const SideText = "ok"

// Request is one HTTP request received by the fake.
type Request struct {
	// Seq is the 1-based arrival order.
	Seq int
	// Time is when the request arrived.
	Time time.Time
	// Method is the HTTP method.
	Method string
	// Path is the URL path without the query, e.g. "/v1/messages".
	Path string
	// RawQuery is the URL query, e.g. "beta=true".
	RawQuery string
	// Header is a copy of the request headers.
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// SessionID is Claude Code's session id from the
	// X-Claude-Code-Session-Id header: the session_id its hooks receive.
	SessionID string

	// The fields below are only set for POST /v1/messages.

	// Model is the requested model.
	Model string
	// Stream reports whether the request asked for SSE streaming.
	Stream bool
	// HasTools reports whether the request carried a non-empty tools list,
	// i.e. whether it is a main-loop (scripted) request.
	HasTools bool
	// ToolResults is the number of tool_result blocks across all messages.
	ToolResults int
	// Step is the script index answered (-1 for requests without tools).
	Step int
	// AfterToolResult reports whether the last user message carries a
	// tool_result block: the model is answering a tool's result, not a
	// new prompt (messages with role "system" are not counted).
	AfterToolResult bool
	// ToolName and ToolUseID are the tool_use block the fake answered with,
	// empty when it answered text. Together over Requests they are every
	// tool call the fake asked for.
	ToolName, ToolUseID string
}

// IsMessages reports whether r is a POST to the Messages endpoint.
func (r Request) IsMessages() bool {
	return r.Method == http.MethodPost && r.Path == "/v1/messages"
}

// FakeAPI is a loopback fake of the Anthropic Messages API that follows a
// script. The step answered to a request that carries tools is the number of
// tool_result blocks in its messages, so retries and Claude Code's merging of
// consecutive tool results into one message don't derail the script. Each
// tool step must therefore produce exactly one tool_use block.
//
// All methods are safe for concurrent use.
type FakeAPI struct {
	// URL is the base URL to pass as ANTHROPIC_BASE_URL,
	// e.g. "http://127.0.0.1:41234".
	URL string

	steps      []Step
	answer     func(Request) Step
	dropBodies bool
	srv        *http.Server
	ln         net.Listener
	logf       func(format string, args ...any)

	mu     sync.Mutex
	reqs   []Request
	closed bool
	done   chan struct{}
}

// NewFakeAPI starts a FakeAPI for a test with the given script. It is closed
// automatically when the test ends, every request is logged with t.Logf, and
// requests are dumped to $MNEME_E2E_DUMP if that is set.
func NewFakeAPI(t testing.TB, steps ...Step) *FakeAPI {
	t.Helper()
	f, err := startFakeAPI(t.Logf, steps)
	if err != nil {
		t.Fatalf("start fake API: %v", err)
	}
	t.Cleanup(f.Close)
	if dir := os.Getenv(DumpEnv); dir != "" {
		// A test with several fakes (one per Claude Code session) dumps
		// each into its own directory: <test>, <test>.2, <test>.3, ...
		d := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
		if n := dumpSeq(d); n > 1 {
			d += "." + strconv.Itoa(n)
		}
		t.Cleanup(func() {
			if err := f.Dump(d); err != nil {
				t.Logf("dump fake API requests: %v", err)
			} else {
				t.Logf("fake API requests dumped to %s", d)
			}
		})
	}
	return f
}

var dumpSeqs struct {
	sync.Mutex
	n map[string]int
}

// dumpSeq counts the fakes created so far with dump directory d.
func dumpSeq(d string) int {
	dumpSeqs.Lock()
	defer dumpSeqs.Unlock()
	if dumpSeqs.n == nil {
		dumpSeqs.n = map[string]int{}
	}
	dumpSeqs.n[d]++
	return dumpSeqs.n[d]
}

// DumpEnv names an environment variable: when set to a directory,
// NewFakeAPI dumps every request there (see Dump) at the end of the test.
const DumpEnv = "MNEME_E2E_DUMP"

// StartFakeAPI starts a FakeAPI on 127.0.0.1 with a random port. Callers
// must call Close.
func StartFakeAPI(steps ...Step) (*FakeAPI, error) {
	return startFakeAPI(func(string, ...any) {}, steps)
}

// FakeOptions configures StartFakeAPIWith.
type FakeOptions struct {
	// Steps is the script, as for StartFakeAPI.
	Steps []Step
	// Answer, when set, picks the step answered to every tool-carrying
	// request instead of Steps, e.g. to script several prompts of a resumed
	// session (see Request.AfterToolResult). Request.Step still counts the
	// tool_result blocks. It is called concurrently.
	Answer func(Request) Step
	// DropBodies keeps request bodies out of Requests, for long runs.
	DropBodies bool
	// Logf receives one line per request; nil discards them.
	Logf func(format string, args ...any)
}

// StartFakeAPIWith starts a FakeAPI configured by o on 127.0.0.1 with a
// random port. Callers must call Close.
func StartFakeAPIWith(o FakeOptions) (*FakeAPI, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return startFakeAPIOpts(o)
}

func startFakeAPI(logf func(string, ...any), steps []Step) (*FakeAPI, error) {
	return startFakeAPIOpts(FakeOptions{Steps: steps, Logf: logf})
}

func startFakeAPIOpts(o FakeOptions) (*FakeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &FakeAPI{
		URL:        "http://" + ln.Addr().String(),
		steps:      append([]Step(nil), o.Steps...),
		answer:     o.Answer,
		dropBodies: o.DropBodies,
		ln:         ln,
		logf:       o.Logf,
		done:       make(chan struct{}),
	}
	f.srv = &http.Server{
		Handler:           http.HandlerFunc(f.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(f.done)
		_ = f.srv.Serve(ln)
	}()
	return f, nil
}

// Close stops the server. It is idempotent.
func (f *FakeAPI) Close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := f.srv.Shutdown(ctx); err != nil {
		_ = f.srv.Close()
	}
	<-f.done
}

// Steps returns a copy of the script.
func (f *FakeAPI) Steps() []Step {
	return append([]Step(nil), f.steps...)
}

// Requests returns a copy of every request received so far, in arrival order.
func (f *FakeAPI) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Request, len(f.reqs))
	copy(out, f.reqs)
	return out
}

// Paths returns "METHOD /path?query" for every request received so far.
func (f *FakeAPI) Paths() []string {
	var out []string
	for _, r := range f.Requests() {
		p := r.Method + " " + r.Path
		if r.RawQuery != "" {
			p += "?" + r.RawQuery
		}
		out = append(out, p)
	}
	return out
}

// MessageRequests returns the POST /v1/messages requests received so far.
func (f *FakeAPI) MessageRequests() []Request {
	var out []Request
	for _, r := range f.Requests() {
		if r.IsMessages() {
			out = append(out, r)
		}
	}
	return out
}

// ToolRequests returns the /v1/messages requests that carried tools, i.e.
// Claude Code's main-loop requests that the script answers.
func (f *FakeAPI) ToolRequests() []Request {
	var out []Request
	for _, r := range f.MessageRequests() {
		if r.HasTools {
			out = append(out, r)
		}
	}
	return out
}

// ToolUseIDs returns the id of every tool_use block the fake answered so
// far, in order.
func (f *FakeAPI) ToolUseIDs() []string {
	var out []string
	for _, r := range f.Requests() {
		if r.ToolUseID != "" {
			out = append(out, r.ToolUseID)
		}
	}
	return out
}

// ToolRequestBodies returns the raw bodies of ToolRequests.
func (f *FakeAPI) ToolRequestBodies() [][]byte {
	var out [][]byte
	for _, r := range f.ToolRequests() {
		out = append(out, r.Body)
	}
	return out
}

// FirstToolRequestBodies returns the raw bodies of the tool-carrying requests
// that open a conversation (no tool_result yet, so script step 0). This is
// where SessionStart and UserPromptSubmit hook context shows up. There is one
// per claude run that reached the model, more if Claude Code retried.
func (f *FakeAPI) FirstToolRequestBodies() [][]byte {
	var out [][]byte
	for _, r := range f.ToolRequests() {
		if r.ToolResults == 0 {
			out = append(out, r.Body)
		}
	}
	return out
}

// FirstToolRequestBody returns the body of the first tool-carrying request,
// or nil if there was none.
func (f *FakeAPI) FirstToolRequestBody() []byte {
	b := f.FirstToolRequestBodies()
	if len(b) == 0 {
		return nil
	}
	return b[0]
}

// messagesRequest is the part of a Messages API request body the fake reads.
type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// countToolResults counts tool_result blocks across all messages (a message
// whose content is a plain string has none) and reports whether the last
// user message holds one.
func (m *messagesRequest) countToolResults() (n int, lastUser bool) {
	for _, msg := range m.Messages {
		if msg.Role == "user" {
			lastUser = false
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				n++
				if msg.Role == "user" {
					lastUser = true
				}
			}
		}
	}
	return n, lastUser
}

func (f *FakeAPI) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{
		Time:     time.Now(),
		Method:   r.Method,
		Path:     r.URL.Path,
		RawQuery: r.URL.RawQuery,
		Header:   r.Header.Clone(),
		Body:     body,
		Step:     -1,

		SessionID: r.Header.Get("X-Claude-Code-Session-Id"),
	}
	var mr messagesRequest
	var step Step
	if req.IsMessages() {
		if err := json.Unmarshal(body, &mr); err != nil {
			f.record(&req)
			writeError(w, http.StatusBadRequest, "invalid_request_error", "fake: bad JSON: "+err.Error())
			return
		}
		req.Model, req.Stream, req.HasTools = mr.Model, mr.Stream, len(mr.Tools) > 0
		req.ToolResults, req.AfterToolResult = mr.countToolResults()
		if req.HasTools {
			req.Step = req.ToolResults
		}
		step = f.stepFor(&req)
		if step.IsTool() {
			req.ToolName = step.Tool
			req.ToolUseID = fmt.Sprintf("toolu_e2e%02d_%s", req.Step+1, randHex(6))
		}
	}
	f.record(&req)

	switch {
	case req.IsMessages():
		f.answerMessages(w, &req, step)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		// Rough estimate, as the real endpoint returns.
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{}, "has_more": false, "first_id": nil, "last_id": nil})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/models/"):
		id := strings.TrimPrefix(r.URL.Path, "/v1/models/")
		writeJSON(w, http.StatusOK, map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"})
	case r.URL.Path == "/api/hello":
		// Connectivity preflight (HEAD), sent unless nonessential traffic
		// is disabled.
		writeJSON(w, http.StatusOK, map[string]any{"message": "hello"})
	default:
		writeError(w, http.StatusNotFound, "not_found_error", "fake: no such endpoint "+r.URL.Path)
	}
}

func (f *FakeAPI) record(req *Request) {
	f.mu.Lock()
	req.Seq = len(f.reqs) + 1
	stored := *req
	if f.dropBodies {
		stored.Body = nil
	}
	f.reqs = append(f.reqs, stored)
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return
	}
	extra := ""
	if req.IsMessages() {
		extra = fmt.Sprintf(" model=%s stream=%v tools=%v tool_results=%d step=%d bytes=%d",
			req.Model, req.Stream, req.HasTools, req.ToolResults, req.Step, len(req.Body))
	}
	f.logf("fakeapi #%d %s %s?%s%s", req.Seq, req.Method, req.Path, req.RawQuery, extra)
}

// stepFor returns the step answered to req.
func (f *FakeAPI) stepFor(req *Request) Step {
	if !req.HasTools {
		return Text(SideText)
	}
	if f.answer != nil {
		return f.answer(*req)
	}
	if req.Step < len(f.steps) {
		return f.steps[req.Step]
	}
	return Text(DefaultFinalText)
}

func (f *FakeAPI) answerMessages(w http.ResponseWriter, req *Request, step Step) {
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	var blocks []map[string]any
	if step.Text != "" || !step.IsTool() {
		blocks = append(blocks, map[string]any{"type": "text", "text": step.Text})
	}
	stop := "end_turn"
	if step.IsTool() {
		input := step.Input
		if input == nil {
			input = map[string]any{}
		}
		blocks = append(blocks, map[string]any{
			"type":  "tool_use",
			"id":    req.ToolUseID,
			"name":  step.Tool,
			"input": input,
		})
		stop = "tool_use"
	}
	msgID := "msg_e2e_" + randHex(8)
	usage := map[string]any{"input_tokens": len(req.Body)/4 + 1, "output_tokens": 1,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	w.Header().Set("request-id", "req_e2e_"+randHex(8))

	if !req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, chunk := range splitChunks(b["text"].(string), 40) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": chunk}})
			}
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			js, _ := json.Marshal(b["input"])
			for _, chunk := range splitChunks(string(js), 40) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": chunk}})
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// splitChunks splits s into pieces of at most n bytes, never splitting a
// UTF-8 sequence. An empty s yields one empty piece.
func splitChunks(s string, n int) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	for len(s) > 0 {
		i := n
		if i >= len(s) {
			i = len(s)
		} else {
			for i > 0 && (s[i]&0xC0) == 0x80 {
				i--
			}
			if i == 0 {
				i = n
			}
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"type": "error",
		"error": map[string]any{"type": typ, "message": msg}})
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return strings.Repeat("0", 2*n)
	}
	return hex.EncodeToString(b)
}

// BodiesContain reports whether any of bodies contains substr.
func BodiesContain(bodies [][]byte, substr string) bool {
	for _, b := range bodies {
		if bytes.Contains(b, []byte(substr)) {
			return true
		}
	}
	return false
}

// RequestText returns the human-readable text of a Messages API request
// body: the system prompt, then every message's text (string content, text
// blocks and tool_result contents), one per line, in order. JSON escaping
// is undone, so callers can search for "<mneme-context>" and newlines
// literally.
func RequestText(body []byte) string {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	var sb strings.Builder
	appendContent(&sb, req.System)
	for _, m := range req.Messages {
		appendContent(&sb, m.Content)
	}
	return sb.String()
}

// appendContent writes the text of a content value: a string or a list of
// blocks.
func appendContent(sb *strings.Builder, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		sb.WriteString(s)
		sb.WriteByte('\n')
		return
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		switch {
		case b.Type == "tool_result":
			appendContent(sb, b.Content)
		case b.Text != "":
			sb.WriteString(b.Text)
			sb.WriteByte('\n')
		}
	}
}

// Dump writes every recorded request into dir as NNN.json (the raw body)
// and NNN.headers (method, path and headers), for debugging a failing run.
func (f *FakeAPI) Dump(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range f.Requests() {
		var hb strings.Builder
		fmt.Fprintf(&hb, "%s %s?%s\n", r.Method, r.Path, r.RawQuery)
		keys := make([]string, 0, len(r.Header))
		for k := range r.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range r.Header[k] {
				fmt.Fprintf(&hb, "%s: %s\n", k, v)
			}
		}
		base := filepath.Join(dir, fmt.Sprintf("%03d", r.Seq))
		if err := os.WriteFile(base+".headers", []byte(hb.String()), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(base+".json", r.Body, 0o644); err != nil {
			return err
		}
	}
	return nil
}
