//go:build unix

package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Event is one hook event of a simulated Claude Code session: the slug of
// `mneme hook <slug>` / POST /api/hooks/<slug>, and Claude Code's JSON.
type Event struct {
	Slug string
	Body []byte
	// ToolUseID is set for tool events, so a test can check what was stored.
	ToolUseID string
	// Prompt is the 1-based prompt number the event belongs to.
	Prompt int
}

// SessionSpec shapes a simulated session.
type SessionSpec struct {
	SessionID string
	Cwd       string
	// Events is the total number of events, SessionStart and SessionEnd
	// included. Every fifth event after the start is a prompt, the rest are
	// tool calls and a Stop closing each turn.
	Events int
	// Transcript, when set, is the transcript_path sent with every event.
	Transcript string
	// Decorate may change each event's JSON object before it is encoded
	// (e.g. to plant secrets); i is the event's index.
	Decorate func(i int, slug string, m map[string]any)
}

// Session generates the events of one Claude Code session, shaped like the
// real payloads in testdata/claude-code-2.1.330: a SessionStart, prompts each followed by
// tool calls (Bash, Edit, Read, a failure now and then) and a Stop, and a
// SessionEnd.
func Session(spec SessionSpec) []Event {
	if spec.Events < 2 {
		spec.Events = 2
	}
	base := func(name string) map[string]any {
		m := map[string]any{
			"session_id": spec.SessionID, "cwd": spec.Cwd, "hook_event_name": name,
			"permission_mode": "default",
		}
		if spec.Transcript != "" {
			m["transcript_path"] = spec.Transcript
		} else {
			m["transcript_path"] = "/nonexistent/" + spec.SessionID + ".jsonl"
		}
		return m
	}
	var out []Event
	add := func(slug string, m map[string]any, toolUseID string, prompt int) {
		if spec.Decorate != nil {
			spec.Decorate(len(out), slug, m)
		}
		b, _ := json.Marshal(m)
		out = append(out, Event{Slug: slug, Body: b, ToolUseID: toolUseID, Prompt: prompt})
	}
	m := base("SessionStart")
	m["source"] = "startup"
	add("session-start", m, "", 0)
	prompt, promptID := 0, ""
	for i := 1; i < spec.Events-1; i++ {
		left := spec.Events - 1 - i
		switch {
		case prompt == 0 || (i%5 == 1 && left > 2):
			if prompt > 0 {
				m = base("Stop")
				m["prompt_id"] = promptID
				m["stop_hook_active"] = false
				m["last_assistant_message"] = fmt.Sprintf("Done with step %d.", prompt)
				add("stop", m, "", prompt)
				i++
			}
			prompt++
			promptID = fmt.Sprintf("%s-p%04d", spec.SessionID, prompt)
			m = base("UserPromptSubmit")
			m["prompt_id"] = promptID
			m["prompt"] = fmt.Sprintf("step %d: make the tests pass in package p%d", prompt, prompt)
			add("user-prompt-submit", m, "", prompt)
		default:
			id := fmt.Sprintf("toolu_%s_%05d", spec.SessionID, i)
			m = base("PostToolUse")
			m["prompt_id"] = promptID
			m["tool_use_id"] = id
			m["duration_ms"] = 12 + i%50
			switch i % 4 {
			case 0:
				m["tool_name"] = "Bash"
				m["tool_input"] = map[string]any{"command": fmt.Sprintf("go test ./p%d/...", i), "description": "run tests"}
				m["tool_response"] = map[string]any{"stdout": fmt.Sprintf("ok  \tp%d\t0.%03ds\n", i, i%1000), "stderr": "", "interrupted": false}
			case 1:
				m["tool_name"] = "Edit"
				file := fmt.Sprintf("%s/p%d/file%d.go", spec.Cwd, prompt, i)
				m["tool_input"] = map[string]any{"file_path": file, "old_string": "a := 1", "new_string": fmt.Sprintf("a := %d", i)}
				m["tool_response"] = map[string]any{"filePath": file, "structuredPatch": []any{}}
			case 2:
				m["tool_name"] = "Read"
				file := fmt.Sprintf("%s/p%d/read%d.go", spec.Cwd, prompt, i)
				m["tool_input"] = map[string]any{"file_path": file}
				m["tool_response"] = map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": "package p\n", "numLines": 1}}
			default:
				if i%12 == 3 {
					m["hook_event_name"] = "PostToolUseFailure"
					m["tool_name"] = "Bash"
					m["tool_input"] = map[string]any{"command": fmt.Sprintf("make lint-%d", i)}
					m["error"] = "Exit code 2\nlint failed"
					m["is_interrupt"] = false
					add("post-tool-use-failure", m, id, prompt)
					continue
				}
				m["tool_name"] = "Grep"
				m["tool_input"] = map[string]any{"pattern": fmt.Sprintf("func Test%d", i)}
				m["tool_response"] = map[string]any{"mode": "files_with_matches", "filenames": []string{"a_test.go"}, "numFiles": 1}
			}
			add("post-tool-use", m, id, prompt)
		}
	}
	m = base("SessionEnd")
	m["reason"] = "other"
	add("session-end", m, "", prompt)
	return out
}

// Client posts hook events over HTTP with keep-alive connections, like
// Claude Code's `type: "http"` hooks.
type Client struct {
	BaseURL string
	HTTP    *http.Client
	// Token, when set, is sent as the bearer token (the worker's secret).
	Token string
	// Path maps an event to the request path; nil uses mneme's native
	// /api/hooks/<slug>.
	Path func(ev Event) string
}

// NewClient returns a client for baseURL with a per-request timeout.
func NewClient(baseURL string, timeout time.Duration) *Client {
	return &Client{BaseURL: baseURL, HTTP: &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			MaxIdleConnsPerHost: 64,
			DialContext:         (&net.Dialer{Timeout: time.Second}).DialContext,
		},
	}}
}

// Post sends one event and returns the status and the time it took. A
// transport error is returned as err with status 0.
func (c *Client) Post(ctx context.Context, ev Event) (int, time.Duration, error) {
	path := "/api/hooks/" + ev.Slug
	if c.Path != nil {
		path = c.Path(ev)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+path, bytes.NewReader(ev.Body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	begin := time.Now()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, time.Since(begin), err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(begin), nil
}

// Outcome is what happened to one event of a burst.
type Outcome struct {
	Index   int
	Status  int
	Latency time.Duration
	Err     error
}

// Burst sends events from clients concurrent goroutines (event i goes to
// goroutine i%clients, which sends its share in order) and returns every
// outcome, indexed like events.
func (c *Client) Burst(ctx context.Context, events []Event, clients int) []Outcome {
	out := make([]Outcome, len(events))
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(events); i += clients {
				if ctx.Err() != nil {
					out[i] = Outcome{Index: i, Err: ctx.Err()}
					continue
				}
				st, lat, err := c.Post(ctx, events[i])
				out[i] = Outcome{Index: i, Status: st, Latency: lat, Err: err}
			}
		}(w)
	}
	wg.Wait()
	return out
}

// Stats summarises latencies.
type Stats struct {
	N                   int
	Mean, P50, P99, Max time.Duration
}

// Summarize computes the statistics of d (which it sorts).
func Summarize(d []time.Duration) Stats {
	if len(d) == 0 {
		return Stats{}
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	pct := func(p float64) time.Duration {
		i := int(p*float64(len(d)-1) + 0.5)
		return d[i]
	}
	return Stats{N: len(d), Mean: sum / time.Duration(len(d)), P50: pct(0.50), P99: pct(0.99), Max: d[len(d)-1]}
}

func (s Stats) String() string {
	return fmt.Sprintf("n=%d mean=%s p50=%s p99=%s max=%s", s.N, ms(s.Mean), ms(s.P50), ms(s.P99), ms(s.Max))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// Table prints rows as an aligned text table.
func Table(header []string, rows [][]string) string {
	width := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			if i < len(width) && len(c) > width[i] {
				width[i] = len(c)
			}
		}
	}
	var b strings.Builder
	line := func(r []string) {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			fmt.Fprintf(&b, "%-*s", width[i], c)
		}
		b.WriteString("\n")
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}
