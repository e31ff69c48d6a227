// Package shape is the pure shaping of one hook payload: the payload of
// each Claude Code lifecycle event as the worker decodes it, the JSON a
// hook must print, the privacy policy (tag stripping, exclusion,
// redaction), and the deterministic description, classification and
// compression of a tool call into the fields of its row. It stores
// nothing: internal/capture is the service that turns a hook event into
// rows (through shape) and commits them.
//
// A payload is cleaned once, at the door: Policy.CleanEvent turns the
// decoded Payload into an Event, every string of it through the privacy
// pipeline, and every shaper (Describe, Event.Observation, Event.Project,
// Event.LastAssistantMessage) takes the Event, whose fields nothing
// outside this package can set. internal/archtest keeps it so.
//
// What the short-lived hook process itself runs (event names, redaction
// at the edge, the spool and the thin client) is the leaf package hooks,
// which imports no database code; event names are used from
// internal/hookwire.
package shape

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// Payload is the union of the fields Claude Code sends to any hook. Fields
// that an event does not carry stay zero. tool_input and tool_response vary
// per tool and are kept raw.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	HookEventName  string `json:"hook_event_name,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
	PromptID       string `json:"prompt_id,omitempty"`

	// hookwire.SessionStart
	Source string `json:"source,omitempty"`
	// hookwire.UserPromptSubmit
	Prompt string `json:"prompt,omitempty"`
	// hookwire.PostToolUse, hookwire.PostToolUseFailure
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	DurationMS   int64           `json:"duration_ms,omitempty"`
	Error        string          `json:"error,omitempty"`
	IsInterrupt  bool            `json:"is_interrupt,omitempty"`
	// hookwire.Stop
	StopHookActive       bool   `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// hookwire.SessionEnd
	Reason string `json:"reason,omitempty"`

	// Project names the project explicitly. Claude Code never sends it; the
	// compatibility routes of other memory tools do.
	Project string `json:"project,omitempty"`
	// MnemeProject and MnemeBranch are the project and git branch that
	// a person's hook found for cwd on their own machine (a team worker
	// opens no path a person's event names: hookwire.AddRemoteFacts). The
	// worker uses them only for persons' events; for its owner's it looks
	// for itself.
	MnemeProject string `json:"mneme_project,omitempty"`
	MnemeBranch  string `json:"mneme_branch,omitempty"`
	// MnemeTime is when the event really happened, added by the spool so a
	// replayed event keeps its original time.
	MnemeTime *time.Time `json:"mneme_time,omitempty"`
	// MnemeImport marks an event rebuilt from a transcript by `mneme
	// import`: it is stored like any other, but no context is built for
	// it (nobody reads the answer).
	MnemeImport bool `json:"mneme_import,omitempty"`
}

// DecodeError is returned by Decode for input that is not a valid payload.
type DecodeError struct{ Msg string }

func (e *DecodeError) Error() string { return e.Msg }

// Decode parses a hook payload for the given event and checks the fields the
// event cannot do without.
func Decode(event string, body []byte) (*Payload, error) {
	var p Payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, &DecodeError{Msg: "malformed JSON: " + jsonProblem(err)}
	}
	if p.SessionID == "" {
		return nil, &DecodeError{Msg: "missing session_id"}
	}
	if len(p.SessionID) > 256 {
		return nil, &DecodeError{Msg: "session_id is too long"}
	}
	if (event == hookwire.PostToolUse || event == hookwire.PostToolUseFailure) && p.ToolName == "" {
		return nil, &DecodeError{Msg: "missing tool_name"}
	}
	if p.HookEventName == "" {
		p.HookEventName = event
	}
	return &p, nil
}

func jsonProblem(err error) string {
	switch e := err.(type) {
	case *json.SyntaxError:
		return fmt.Sprintf("%s (at byte %d)", e.Error(), e.Offset)
	case *json.UnmarshalTypeError:
		return fmt.Sprintf("field %q must be %s, not %s", e.Field, e.Type, e.Value)
	}
	return err.Error()
}

// Output is the JSON a hook prints on stdout for Claude Code.
type Output struct {
	Continue           *bool               `json:"continue,omitempty"`
	SuppressOutput     bool                `json:"suppressOutput,omitempty"`
	HookSpecificOutput *HookSpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// HookSpecificOutput carries additional context for hookwire.SessionStart and
// hookwire.UserPromptSubmit.
type HookSpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// Continue is the neutral answer: go on, show nothing.
func Continue() Output {
	t := true
	return Output{Continue: &t, SuppressOutput: true}
}

// WithContext answers with additional context for Claude, or with Continue
// when there is none.
func WithContext(event, text string) Output {
	if text == "" {
		return Continue()
	}
	return Output{HookSpecificOutput: &HookSpecificOutput{HookEventName: event, AdditionalContext: text}}
}
