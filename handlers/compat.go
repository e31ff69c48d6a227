package handlers

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/shape"
)

// compatBody is the union of the bodies that claude-mem's and jikime-mem's
// hook scripts send. Both spell the session id several ways.
type compatBody struct {
	ContentSessionID string `json:"contentSessionId"`
	ClaudeSessionID  string `json:"claudeSessionId"`
	SessionID        string `json:"sessionId"`
	SessionIDSnake   string `json:"session_id"`
	Project          string `json:"project"`
	ProjectPath      string `json:"projectPath"`
	Cwd              string `json:"cwd"`
	Prompt           string `json:"prompt"`
	Content          string `json:"content"`
	Reason           string `json:"reason"`
	Source           string `json:"source"`

	ToolName     string          `json:"tool_name"`
	ToolNameC    string          `json:"toolName"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolInputC   json.RawMessage `json:"toolInput"`
	ToolResponse json.RawMessage `json:"tool_response"`
	ToolRespC    json.RawMessage `json:"toolResponse"`
	ToolUseID    string          `json:"tool_use_id"`

	LastUserMessage      string `json:"last_user_message"`
	LastAssistantMessage string `json:"last_assistant_message"`
}

// payload maps a compat body onto Claude Code's hook payload.
func (b *compatBody) payload(event, pathID string) (*shape.Payload, error) {
	id := first(pathID, b.ClaudeSessionID, b.ContentSessionID, b.SessionID, b.SessionIDSnake)
	if id == "" {
		return nil, badRequest("missing session id (claudeSessionId, contentSessionId or sessionId)")
	}
	p := &shape.Payload{
		SessionID:            id,
		HookEventName:        event,
		Cwd:                  first(b.Cwd, b.ProjectPath),
		Project:              b.Project,
		Source:               b.Source,
		Prompt:               first(b.Prompt, b.Content),
		ToolName:             first(b.ToolName, b.ToolNameC),
		ToolInput:            firstRaw(b.ToolInput, b.ToolInputC),
		ToolResponse:         firstRaw(b.ToolResponse, b.ToolRespC),
		ToolUseID:            b.ToolUseID,
		LastAssistantMessage: first(b.LastAssistantMessage, b.Content),
		Reason:               b.Reason,
	}
	if (event == hookwire.PostToolUse) && p.ToolName == "" {
		return nil, badRequest("missing tool_name")
	}
	return p, nil
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstRaw(rs ...json.RawMessage) json.RawMessage {
	for _, r := range rs {
		if len(r) > 0 && string(r) != "null" {
			// jikime-mem sends tool input as a JSON-encoded string.
			var s string
			if r[0] == '"' && json.Unmarshal(r, &s) == nil && json.Valid([]byte(s)) {
				return json.RawMessage(s)
			}
			return r
		}
	}
	return nil
}

// compat returns a handler that runs a compat body through the pipeline as
// event. With prompt-or-start set, a body carrying a prompt counts as
// UserPromptSubmit and one without as SessionStart (claude-mem's init).
func (h *Handler) compat(event string, promptOrStart bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var b compatBody
		if len(c.Body()) > 0 {
			if err := json.Unmarshal(c.Body(), &b); err != nil {
				return badRequest("malformed JSON: " + err.Error())
			}
		}
		ev := event
		if promptOrStart && first(b.Prompt, b.Content) != "" {
			ev = hookwire.UserPromptSubmit
		}
		// The path's id is unescaped (a %-escaped secret would escape
		// redaction) and copied: Fiber reuses the request's buffer.
		pathID, err := url.PathUnescape(c.Params("id"))
		if err != nil {
			return badRequest("malformed session id in the path")
		}
		p, err := b.payload(ev, strings.Clone(pathID))
		if err != nil {
			return err
		}
		if ev == hookwire.UserPromptSubmit && promptOrStart {
			// claude-mem's init also starts the session.
			if _, err := h.Capture.Handle(c.UserContext(), hookwire.SessionStart, p); err != nil {
				return err
			}
		}
		out, err := h.Capture.Handle(c.UserContext(), ev, p)
		if err != nil {
			return err
		}
		resp := fiber.Map{"success": true, "status": "ok", "sessionId": p.SessionID}
		if out.HookSpecificOutput != nil {
			resp["context"] = out.HookSpecificOutput.AdditionalContext
		}
		return c.JSON(resp)
	}
}

// Compat handlers for claude-mem's and jikime-mem's hook scripts.
func (h *Handler) CompatSessionInit() fiber.Handler     { return h.compat(hookwire.SessionStart, true) }
func (h *Handler) CompatObservation() fiber.Handler     { return h.compat(hookwire.PostToolUse, false) }
func (h *Handler) CompatSummarize() fiber.Handler       { return h.compat(hookwire.Stop, false) }
func (h *Handler) CompatSessionComplete() fiber.Handler { return h.compat(hookwire.SessionEnd, false) }
func (h *Handler) CompatSessionStart() fiber.Handler    { return h.compat(hookwire.SessionStart, false) }
func (h *Handler) CompatPrompt() fiber.Handler          { return h.compat(hookwire.UserPromptSubmit, false) }

// CompatProcessing acknowledges claude-mem's processing notification.
func (h *Handler) CompatProcessing(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"success": true, "status": "ok"})
}

// InjectContext serves claude-mem's GET /api/context/inject?project=: the
// context a new session of the project would receive, as markdown text.
func (h *Handler) InjectContext(c *fiber.Ctx) error {
	project := c.Query("project")
	if project == "" {
		return badRequest("missing project")
	}
	text, err := h.Capture.PreviewContext(c.UserContext(), project)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/markdown; charset=utf-8")
	return c.SendString(text)
}

// CompatContext serves jikime-mem's GET /api/context?limit=&project=.
func (h *Handler) CompatContext(c *fiber.Ctx) error {
	limit, err := intParam(c, "limit", 20, 1, 500)
	if err != nil {
		return err
	}
	text, err := h.Capture.PreviewContext(c.UserContext(), c.Query("project"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "context": text, "limit": limit})
}
