package hooks

import (
	"encoding/json"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// GateBudget is how long the PreToolUse gate may keep a tool waiting: one
// attempt over the socket, no retry, no auto-start, no spool.
const GateBudget = 300 * time.Millisecond

// gateRequest is what the hook sends the worker for PreToolUse: the
// fields the gate needs and nothing else. A Write's content or an Edit's
// strings never leave the hook for a read-only lookup.
type gateRequest struct {
	SessionID     string    `json:"session_id"`
	Cwd           string    `json:"cwd,omitempty"`
	HookEventName string    `json:"hook_event_name,omitempty"`
	ToolName      string    `json:"tool_name"`
	ToolInput     gateInput `json:"tool_input"`
}

type gateInput struct {
	FilePath     string `json:"file_path,omitempty"`
	NotebookPath string `json:"notebook_path,omitempty"`
}

// gateAnswer is the only answer the hook prints for PreToolUse: context,
// and never a permission decision, whatever the worker said.
type gateAnswer struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// gate handles PreToolUse: it asks the worker what it remembers of the
// file the tool is about to touch, within GateBudget. The tool never
// waits on mneme beyond that: when the worker is down, slow or answers
// anything but context, the answer is the neutral Continue. Nothing is
// spooled (the event changes nothing) and no worker is started.
func (c *Client) gate(slug string, raw []byte) []byte {
	var req gateRequest
	if err := json.Unmarshal(raw, &req); err != nil || req.SessionID == "" || req.ToolName == "" {
		c.debugf("pre-tool-use: no usable payload: %v", err)
		return []byte(hookwire.ContinueJSON)
	}
	if req.ToolInput.FilePath == "" && req.ToolInput.NotebookPath == "" {
		return []byte(hookwire.ContinueJSON)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return []byte(hookwire.ContinueJSON)
	}
	resp, err := c.post(slug, c.redact(body), GateBudget)
	if err != nil {
		c.debugf("pre-tool-use: no answer from the worker: %v", err)
		return []byte(hookwire.ContinueJSON)
	}
	var ans gateAnswer
	if json.Unmarshal(resp, &ans) != nil || ans.HookSpecificOutput.AdditionalContext == "" {
		return []byte(hookwire.ContinueJSON)
	}
	ans.HookSpecificOutput.HookEventName = hookwire.PreToolUse
	out, err := json.Marshal(ans)
	if err != nil {
		return []byte(hookwire.ContinueJSON)
	}
	return out
}
