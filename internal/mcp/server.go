// Package mcp is mneme's MCP server: tools that let Claude search and read
// the memory of past sessions through the worker's JSON API, never the
// database. Answers are compact text sized to a token budget, and every
// bad argument is a tool error with a message, never a protocol failure.
//
// The tools follow a three-step workflow that keeps the context small:
// search (an index of ids and titles), timeline (what happened around a
// hit), get_observations (full records, only for the ids that matter);
// recent_sessions says what the latest sessions of a project did.
package mcp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure the server.
type Options struct {
	// Version is reported to the client.
	Version string
	// Project is the project Claude Code runs in (from its working
	// directory): recent_sessions' default.
	Project string
	// MaxIDs caps get_observations' ids per call (default 20).
	MaxIDs int
	// Logger receives the SDK's diagnostics; nil discards them.
	Logger *slog.Logger
}

// Server holds the tools' state: the worker's API and the options.
type Server struct {
	api  API
	opts Options
}

// Tool names, as Claude Code shows them prefixed: mcp__mneme__search, …
const (
	ToolSearch          = "search"
	ToolTimeline        = "timeline"
	ToolGetObservations = "get_observations"
	ToolRecentSessions  = "recent_sessions"
	ToolRemember        = "remember"
)

// ToolNames are the server's tools, in the order it lists them.
var ToolNames = []string{ToolSearch, ToolTimeline, ToolGetObservations, ToolRecentSessions, ToolRemember}

const instructions = `mneme is the persistent memory of earlier Claude Code sessions: every prompt, tool call (with its result), failure and summary, stored locally and already redacted.
Use it in three steps, cheapest first:
1. search: an index of matching rows (#id, date, kind, title) within a token budget.
2. timeline: what happened around one hit (anchor=<#id>) or in one session (session=s<N>).
3. get_observations: the full records, only for the few #ids worth reading.
recent_sessions tells what the latest sessions of a project did.
search with type=memory finds the decisions, constraints, causes and todos kept; remember keeps a decision or constraint explicitly.`

// New builds the MCP server with its five tools over api.
func New(api API, opts Options) *sdk.Server {
	if opts.MaxIDs <= 0 {
		opts.MaxIDs = 20
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{api: api, opts: opts}
	srv := sdk.NewServer(&sdk.Implementation{Name: "mneme", Title: "mneme memory", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: opts.Logger})
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)}
	sdk.AddTool(srv, &sdk.Tool{Name: ToolSearch, Description: searchDescription, Annotations: readOnly, InputSchema: inputSchema[SearchInput]()}, textTool(s.search))
	sdk.AddTool(srv, &sdk.Tool{Name: ToolTimeline, Description: timelineDescription, Annotations: readOnly, InputSchema: inputSchema[TimelineInput]()}, textTool(s.timeline))
	sdk.AddTool(srv, &sdk.Tool{Name: ToolGetObservations, Description: s.getDescription(), Annotations: readOnly, InputSchema: inputSchema[GetObservationsInput]()}, textTool(s.getObservations))
	sdk.AddTool(srv, &sdk.Tool{Name: ToolRecentSessions, Description: recentDescription, Annotations: readOnly, InputSchema: inputSchema[RecentSessionsInput]()}, textTool(s.recentSessions))
	sdk.AddTool(srv, &sdk.Tool{Name: ToolRemember, Description: rememberDescription, Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(bool)}, InputSchema: inputSchema[RememberInput]()}, textTool(s.remember))
	return srv
}

// textTool adapts a tool that answers text: its error becomes the tool
// error's message (IsError), its text the one content block.
func textTool[In any](f func(context.Context, In) (string, error)) sdk.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		text, err := f(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
	}
}

// get calls the worker's API and decodes its JSON answer into v.
func (s *Server) get(ctx context.Context, path string, v any) error {
	return s.call(ctx, http.MethodGet, path, nil, v)
}

// isNotFound tells a 404 from the worker.
func isNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == http.StatusNotFound
}
