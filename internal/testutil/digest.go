package testutil

import (
	"fmt"

	"github.com/mneme-dev/mneme/internal/api"
)

// SessionDigest is what two records of one session must agree on, one
// line per fact: the session (project, cwd, source, status, last answer), each prompt (number,
// text) and each tool call (tool_use_id, tool, kind, title, success,
// importance, files), in order. Times, ids and end reasons are left out:
// an import and live capture of one run differ there.
func SessionDigest(d api.SessionDetail) []string {
	var out []string
	if s := d.Session; s != nil {
		out = append(out, fmt.Sprintf("session %s project=%s cwd=%s source=%s status=%s prompts=%d last=%q",
			s.ClaudeSessionID, s.Project, s.Cwd, s.Source, s.Status, s.PromptCounter, s.LastAssistantMessage))
	}
	for _, p := range d.Prompts {
		out = append(out, fmt.Sprintf("prompt %d %q", p.Number, p.Text))
	}
	for _, o := range d.Observations {
		id := ""
		if o.ToolUseID != nil {
			id = *o.ToolUseID
		}
		out = append(out, fmt.Sprintf("tool %s prompt=%d %s kind=%s %q success=%v importance=%.2f files=%v excluded=%q",
			id, o.PromptNumber, o.ToolName, o.Kind, o.Title, o.Success, o.Importance, o.Files, o.ExcludedBy))
	}
	return out
}
