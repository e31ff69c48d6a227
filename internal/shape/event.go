package shape

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// Event is a hook payload cleaned at the door: every string of it has been
// through the privacy pipeline once, by Policy.CleanEvent, its only
// constructor. Its fields are unexported and read through methods, so code
// below the door is handed cleaned values or nothing: a function that
// takes an *Event cannot be given a raw Payload. What the event names
// outside its payload (the git project of its cwd, the last message of its
// transcript) is read through the Event too, and cleaned by the same
// policy before it is returned.
//
// An Event does not change once made, so its write may read it on the
// writer's goroutine. The zero Event holds nothing and is not usable.
type Event struct {
	p       Payload // cleaned, every string of it
	pol     *Policy // the settings it was cleaned with, and is shaped with
	person  string  // who captured it: "" for the worker's owner
	outside Outside // reads what the event names outside its payload

	// What cleaning removed, kept as facts rather than as raw values.
	promptPrivate bool   // the prompt was not empty and cleaning emptied it
	transcript    string // the transcript path as received: read, never stored
	noMessage     bool   // no last_assistant_message was sent
}

// Outside reads, on the worker's machine, what an event names outside its
// payload. Its answers are raw: Event cleans them before anyone sees them.
type Outside interface {
	// Project is the git project and branch of directory cwd.
	Project(cwd string) hookwire.Project
	// LastAssistantMessage is the text of a transcript's last assistant
	// message, "" when it cannot be read.
	LastAssistantMessage(transcriptPath string) string
}

// CleanEvent is the door of the worker: it returns raw as an Event with
// every string field cleaned, identifiers by CleanID, tool input and
// response value by value (privacy.Redactor.CleanJSON), and the rest, text
// and names alike (cwd, transcript path, source, tool name, project…), by
// Clean, so that nothing is cut before it was redacted. person is who
// captured the event (capture.WithPerson; "" for the worker's owner), and
// outside reads what the event names on this machine (nil reads nothing).
// raw itself is left as it was.
func (p *Policy) CleanEvent(raw *Payload, person string, outside Outside) *Event {
	c := *raw
	c.SessionID = p.CleanID(raw.SessionID)
	c.PromptID = p.CleanID(raw.PromptID)
	c.ToolUseID = p.CleanID(raw.ToolUseID)
	for _, f := range []*string{&c.TranscriptPath, &c.Cwd, &c.HookEventName, &c.PermissionMode, &c.Source, &c.Prompt,
		&c.ToolName, &c.Error, &c.LastAssistantMessage, &c.Reason, &c.Project, &c.MnemeProject, &c.MnemeBranch} {
		*f = p.Clean(*f)
	}
	c.ToolInput = p.Redactor.CleanJSON(raw.ToolInput)
	c.ToolResponse = p.Redactor.CleanJSON(raw.ToolResponse)
	if outside == nil {
		outside = nowhere{}
	}
	return &Event{p: c, pol: p, person: person, outside: outside,
		promptPrivate: c.Prompt == "" && raw.Prompt != "",
		transcript:    raw.TranscriptPath,
		noMessage:     raw.LastAssistantMessage == "",
	}
}

// Payload is a copy of the cleaned payload (its JSON fields share their
// bytes with e: read them, never write to them).
func (e *Event) Payload() Payload { return e.p }

// Policy is the policy e was cleaned with; shape e's rows with it.
func (e *Event) Policy() *Policy { return e.pol }

// Person is who captured the event: a team member's name, "" for the
// worker's owner.
func (e *Event) Person() string { return e.person }

// OnThisMachine reports whether the paths e names (its transcript, its
// cwd, the files of its tools) are this machine's, and the worker may open
// them: only for events of the worker's owner (its socket or its secret,
// which may already run programs as this user). A person's events come
// from their own machine; the worker opens none of their paths, and their
// hook sends what it read there itself (hookwire.AddRemoteFacts).
func (e *Event) OnThisMachine() bool { return e.person == "" }

// SessionID is Claude Code's session id, cleaned.
func (e *Event) SessionID() string { return e.p.SessionID }

// PromptID is the id of the prompt the event belongs to, cleaned.
func (e *Event) PromptID() string { return e.p.PromptID }

// Cwd is the session's working directory, cleaned.
func (e *Event) Cwd() string { return e.p.Cwd }

// TranscriptPath is the transcript's path, cleaned (the stored one).
func (e *Event) TranscriptPath() string { return e.p.TranscriptPath }

// Source is how a session started: startup, resume, clear or compact.
func (e *Event) Source() string { return e.p.Source }

// Prompt is the user's prompt, cleaned whole (not yet windowed).
func (e *Event) Prompt() string { return e.p.Prompt }

// PromptPrivate reports that the prompt was wholly private: it was not
// empty, and cleaning left nothing of it.
func (e *Event) PromptPrivate() bool { return e.promptPrivate }

// ToolInput is the tool's input, cleaned value by value.
func (e *Event) ToolInput() json.RawMessage { return e.p.ToolInput }

// Reason is why a session ended, cleaned.
func (e *Event) Reason() string { return e.p.Reason }

// Imported reports an event rebuilt from a transcript by `mneme import`.
func (e *Event) Imported() bool { return e.p.MnemeImport }

// BoundTime keeps the time e claims (mneme_time) within the window a
// replayed event may claim, around now, the time the worker received it:
// from hookwire.MaxReplayAge before it (an event rebuilt by `mneme import`
// from an older transcript may be older) to hookwire.MaxClockSkew after.
// A claim outside it is replaced by now, and returned with ok false.
func (e *Event) BoundTime(now time.Time) (claimed time.Time, ok bool) {
	t := e.p.MnemeTime
	if t == nil || t.IsZero() {
		return time.Time{}, true
	}
	if t.After(now.Add(hookwire.MaxClockSkew)) || !e.p.MnemeImport && t.Before(now.Add(-hookwire.MaxReplayAge)) {
		claimed = *t
		e.p.MnemeTime = &now
		return claimed, false
	}
	return time.Time{}, true
}

// When is when the event happened: the spooled time of a replayed event,
// else now.
func (e *Event) When(now func() time.Time) time.Time {
	if t := e.p.MnemeTime; t != nil && !t.IsZero() {
		return t.UTC()
	}
	return now()
}

// Project is the project and branch of e's session, cleaned like every
// stored string (a repository or branch name may hold a secret). For the
// owner's event it is what Outside finds for the cleaned cwd (the
// directory on disk when cleaning left it as it was; a path with a secret
// in it gives the base name of its cleaned form, never a part of the
// secret that a '/' cut off). For a person's event nothing is looked up:
// it is what their hook found on their machine (mneme_project, else cwd's
// base name) and their branch (mneme_branch). A project the payload names
// (compatible routes), else the user's alias for the longest prefix of
// cwd, names it instead.
func (e *Event) Project() hookwire.Project {
	p, cwd := &e.p, e.p.Cwd
	var proj hookwire.Project
	switch {
	case e.OnThisMachine():
		proj = e.outside.Project(cwd)
	case p.MnemeProject != "":
		proj = hookwire.Project{Name: p.MnemeProject, Branch: p.MnemeBranch}
	default:
		proj = hookwire.Project{Name: baseName(cwd), Branch: p.MnemeBranch}
	}
	switch {
	case p.Project != "":
		proj.Name = p.Project
	default:
		if name := aliasFor(e.pol.Settings.Capture.ProjectAliases, cwd); name != "" {
			proj.Name = name
		}
	}
	proj.Name, proj.Branch, proj.Root = e.pol.Clean(proj.Name), e.pol.Clean(proj.Branch), ""
	return proj
}

// baseName is the project of a directory nothing is known of: its base
// name, "unknown" for none.
func baseName(cwd string) string {
	if cwd == "" {
		return "unknown"
	}
	return filepath.Base(cwd)
}

// nowhere is the Outside that reads nothing: a project is its directory's
// base name, a transcript has no message.
type nowhere struct{}

func (nowhere) Project(cwd string) hookwire.Project           { return hookwire.Project{Name: baseName(cwd)} }
func (nowhere) LastAssistantMessage(transcript string) string { return "" }

// aliasFor returns the project name the user gave the longest path prefix
// of cwd, matched at a directory boundary ("/src/a" covers "/src/a/b" but
// not "/src/ab"), or "" when none covers it.
func aliasFor(aliases map[string]string, cwd string) string {
	best, name := -1, ""
	for prefix, n := range aliases {
		prefix = strings.TrimRight(prefix, "/")
		if prefix == "" || n == "" || len(prefix) <= best {
			continue
		}
		if cwd == prefix || strings.HasPrefix(cwd, prefix+"/") {
			best, name = len(prefix), n
		}
	}
	return name
}

// LastAssistantMessage is the turn's last assistant message as stored:
// the payload's, or, when the payload has none and the transcript is on
// this machine, the transcript's (read at the path as received; a path the
// hook redacted cannot be read), cleaned whole, then windowed and
// compressed to the output cap.
func (e *Event) LastAssistantMessage() string {
	msg := Window(e.p.LastAssistantMessage)
	if e.noMessage && e.transcript != "" && e.OnThisMachine() {
		msg = e.pol.CleanLong(e.outside.LastAssistantMessage(e.transcript))
	}
	return Compress(msg, e.pol.Settings.Capture.OutputCapBytes)
}
