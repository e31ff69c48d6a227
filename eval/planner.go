//go:build unix

package eval

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mneme-dev/mneme/e2e"
)

// MCP tool names under Claude Code (server "mneme").
const (
	ToolSearch          = "mcp__mneme__search"
	ToolGetObservations = "mcp__mneme__get_observations"
	// AllowedTools is --allowedTools for the next session.
	AllowedTools = ToolSearch + "," + ToolGetObservations
)

// maxFetched bounds the ids one get_observations call asks for: the top
// hits of the search before it.
const maxFetched = 3

// searchTokens is the maxTokens of each search: a model asks for a short
// index first.
const searchTokens = 400

// Planner scripts the next session's model: it reads the SessionStart
// context from the first request, and for each fact missing there it calls
// search with the fact's query (in the project), then get_observations for
// the top hits that search returned, then answers. It is an
// e2e.FakeOptions.Answer; decisions are kept per step, so a retried request
// gets the same answer.
type Planner struct {
	Scenario *Scenario
	// Final is the answer after the last tool call.
	Final string

	mu      sync.Mutex
	steps   []e2e.Step
	queue   []Fact
	context string
}

// idRe finds the #ids at the start of a search answer's rows.
var idRe = regexp.MustCompile(`(?m)^#(\d+)\s`)

// Answer picks the step answered to a tool-carrying request.
func (p *Planner) Answer(req e2e.Request) e2e.Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := req.ToolResults
	if n < len(p.steps) {
		return p.steps[n]
	}
	if n == 0 {
		p.context = e2e.MnemeContext(req.Body)
		p.queue = p.Scenario.Missing(p.context)
	}
	var next e2e.Step
	if last := len(p.steps) - 1; last >= 0 && p.steps[last].Tool == ToolSearch {
		if ids := searchIDs(lastToolResult(req.Body)); len(ids) > 0 {
			next = e2e.ToolUse(ToolGetObservations, map[string]any{"ids": ids})
		}
	}
	if next.Tool == "" && len(p.queue) > 0 {
		f := p.queue[0]
		p.queue = p.queue[1:]
		next = e2e.ToolUse(ToolSearch, map[string]any{
			"query": f.Query, "project": p.Scenario.Next.Project, "maxTokens": searchTokens,
		})
	}
	if next.Tool == "" {
		next = e2e.Text(p.Final)
	}
	// A step past the ones decided (n > len) cannot happen with one tool
	// call per step; pad so that the index stays the step number.
	for len(p.steps) < n {
		p.steps = append(p.steps, e2e.Text(p.Final))
	}
	p.steps = append(p.steps, next)
	return next
}

// Context is the SessionStart block the first request carried.
func (p *Planner) Context() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.context
}

// Calls counts the tool calls made so far.
func (p *Planner) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, s := range p.steps {
		if s.IsTool() {
			n++
		}
	}
	return n
}

// searchIDs returns up to maxFetched ids of a search answer, best first.
func searchIDs(answer string) []int64 {
	var ids []int64
	for _, m := range idRe.FindAllStringSubmatch(answer, -1) {
		id, err := strconv.ParseInt(m[1], 10, 64)
		if err == nil {
			ids = append(ids, id)
		}
		if len(ids) == maxFetched {
			break
		}
	}
	return ids
}

// ToolResults returns the text of every tool_result block of a request
// body, in order.
func ToolResults(body []byte) []string {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []string
	for _, m := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				out = append(out, contentText(b.Content))
			}
		}
	}
	return out
}

// lastToolResult is the text of the last tool_result block of a request.
func lastToolResult(body []byte) string {
	r := ToolResults(body)
	if len(r) == 0 {
		return ""
	}
	return r[len(r)-1]
}

// contentText is a tool_result's content as text: a string, or its text
// blocks joined by newlines.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}
