package hooks

import (
	"github.com/mneme-dev/mneme/hooks/edge"
	"github.com/mneme-dev/mneme/internal/privacy"
)

// Event names as Claude Code sends them in hook_event_name.
const (
	SessionStart       = edge.SessionStart
	UserPromptSubmit   = edge.UserPromptSubmit
	PostToolUse        = edge.PostToolUse
	PostToolUseFailure = edge.PostToolUseFailure
	Stop               = edge.Stop
	SessionEnd         = edge.SessionEnd
)

// ContinueJSON is Continue() marshalled, for paths that must not fail.
const ContinueJSON = edge.ContinueJSON

// Spool is the on-disk queue the hook writes while the worker is down and
// the worker replays when it starts.
type Spool = edge.Spool

// PermanentError marks an event the worker refused for good (a 4xx).
type PermanentError = edge.PermanentError

// EventName turns "post-tool-use" (or "PostToolUse") into "PostToolUse".
func EventName(slug string) (string, bool) { return edge.EventName(slug) }

// EventSlug turns "PostToolUse" into "post-tool-use".
func EventSlug(name string) string { return edge.EventSlug(name) }

// Slugs lists the event slugs accepted by `mneme hook` and the ingest route.
func Slugs() []string { return edge.Slugs() }

// StripTags removes every <private>, <mneme-context>, <claude-mem-context>
// and <system-reminder> block from s, content included (see
// privacy.StripTags).
func StripTags(s string) string { return privacy.StripTags(s) }
