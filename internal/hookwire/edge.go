// Package hookwire is what the hook client (hooks) and the worker share,
// so that neither imports the other: the event names and their slugs, the
// neutral answer, the environment variables, the data directory's layout
// (the per-user secret and socket paths, private directories, file
// locks), the spool both sides read and write, and project identity (the
// client adds it to events bound for a team's worker; the worker resolves
// it for local ones), with the transcript tail both read, and what each
// binary says of its build (version.go).
//
// Like hooks, it imports only the standard library and internal/privacy,
// so the per-event hook process stays small (see cmd/mneme-hook's
// TestDependenciesStaySmall).
package hookwire

import (
	"os"
	"path/filepath"
	"strconv"
)

// Event names as Claude Code sends them in hook_event_name.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	// PreToolUse is the read-only file gate: before a Read or an edit,
	// mneme answers with what it remembers of the file. Nothing is stored,
	// spooled or started for it.
	PreToolUse = "PreToolUse"
	Stop       = "Stop"
	SessionEnd = "SessionEnd"
)

// eventSlugs maps the URL / CLI form of each event to Claude Code's name.
var eventSlugs = map[string]string{
	"session-start":         SessionStart,
	"user-prompt-submit":    UserPromptSubmit,
	"post-tool-use":         PostToolUse,
	"post-tool-use-failure": PostToolUseFailure,
	"pre-tool-use":          PreToolUse,
	"stop":                  Stop,
	"session-end":           SessionEnd,
}

// EventName turns "post-tool-use" (or "PostToolUse") into "PostToolUse".
func EventName(slug string) (string, bool) {
	if name, ok := eventSlugs[slug]; ok {
		return name, true
	}
	for _, name := range eventSlugs {
		if name == slug {
			return name, true
		}
	}
	return "", false
}

// EventSlug turns "PostToolUse" into "post-tool-use".
func EventSlug(name string) string {
	for slug, n := range eventSlugs {
		if n == name {
			return slug
		}
	}
	return ""
}

// Slugs lists the event slugs accepted by `mneme hook` and the ingest route.
func Slugs() []string {
	return []string{"session-start", "user-prompt-submit", "post-tool-use", "post-tool-use-failure", "pre-tool-use", "stop", "session-end"}
}

// ContinueJSON is the neutral answer, go on and show nothing, for paths that
// must not fail (hooks.Continue is the same answer as a value).
const ContinueJSON = `{"continue":true,"suppressOutput":true}`

// RemoteSpoolDir is the spool, in the data directory, of the events meant
// for a remote worker (MNEME_URL): apart from the local worker's.
const RemoteSpoolDir = "spool-remote"

// DefaultPort is the worker's port unless MNEME_PORT or --port says otherwise.
const DefaultPort = 37777

// Environment variables the hook reads.
const (
	EnvPort    = "MNEME_PORT"         // the worker's port
	EnvDataDir = "MNEME_DATA_DIR"     // the data directory
	EnvToken   = "MNEME_TOKEN"        // the worker's secret instead of <data>/secret (see Secret); with MNEME_URL, a person's API token
	EnvURL     = "MNEME_URL"          // a remote (team) worker: the hook posts there instead of the socket
	EnvDebug   = "MNEME_DEBUG"        // diagnostics on stderr
	EnvNoStart = "MNEME_NO_AUTOSTART" // never start the worker
)

// EnvSummarizer is set in the environment of the `claude -p` run by mneme's
// own summarizer. A hook that sees it records nothing, so a summary never
// captures itself.
const EnvSummarizer = "MNEME_SUMMARIZER"

// DefaultDataDir is ~/.mneme, or .mneme when there is no home directory.
func DefaultDataDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ".mneme"
	}
	return filepath.Join(home, ".mneme")
}

// EnvOr is the environment variable key, or def when it is unset or empty.
func EnvOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// EnvInt is the environment variable key as an integer, or def when it is
// unset or not a number.
func EnvInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return v
	}
	return def
}
