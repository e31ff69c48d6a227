// Package transcript backfills mneme from the transcripts Claude Code
// keeps under ~/.claude/projects: it reads them line by line (a line cap
// keeps memory bounded), rebuilds the hook events each session would have
// fired (SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure,
// Stop, SessionEnd) with their original times, and hands them to a Sink in
// session order. The worker's capture pipeline then stores them exactly as
// it stores live hook events, so privacy, policy, importance, compression
// and summaries apply alike, and the ids Claude Code gave (session_id,
// prompt_id, tool_use_id) make a second import, or one of a session also
// captured live, change nothing.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/shape"
)

// DefaultMaxLine is the longest transcript line read; a longer one is
// skipped with a message, never held in memory.
const DefaultMaxLine = 16 << 20

// Event is one hook event rebuilt from a transcript.
type Event struct {
	Name    string // hookwire.SessionStart, …
	Payload shape.Payload
}

// Time is when the event happened.
func (e *Event) Time() time.Time {
	if e.Payload.MnemeTime == nil {
		return time.Time{}
	}
	return *e.Payload.MnemeTime
}

// line is what is read of one transcript line.
type line struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	SessionID        string          `json:"sessionId"`
	UUID             string          `json:"uuid"`
	Cwd              string          `json:"cwd"`
	Timestamp        string          `json:"timestamp"`
	PromptID         string          `json:"promptId"`
	PermissionMode   string          `json:"permissionMode"`
	IsMeta           bool            `json:"isMeta"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          *message        `json:"message"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
	Attachment       *struct {
		Type      string `json:"type"`
		HookName  string `json:"hookName"`
		HookEvent string `json:"hookEvent"`
	} `json:"attachment"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is one element of a message's content list.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Problem is a line that could not be used.
type Problem struct {
	File string
	Line int // 0: the file as a whole
	Msg  string
}

func (p Problem) String() string {
	if p.Line == 0 {
		return p.File + ": " + p.Msg
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
}

// fileParser turns one transcript file into events.
type fileParser struct {
	path     string
	opts     *Options
	emit     func(*Event) error
	problem  func(Problem)
	sessions map[string]*session
	order    []*session
	lineNo   int
	bad      int // lines that are not JSON
}

// maxBadLines: a file whose first lines are all not JSON is not a
// transcript (a binary file named .jsonl), and is left after them.
const maxBadLines = 10

// session is what the parser knows of one session of the file.
type session struct {
	id       string
	cwd      string
	path     string
	source   string
	mode     string
	skip     bool // filtered out (--project)
	resolved bool // skip was decided
	started  bool // SessionStart was emitted
	main     bool // a line of the main conversation was read (not only a subagent's)
	promptID string
	inTurn   bool // a prompt started a turn not yet stopped
	lastText string
	lastAt   time.Time
	first    time.Time // the earliest timestamp of the session
	seen     time.Time // the latest timestamp of the session
	pending  map[string]toolUse
}

type toolUse struct {
	name  string
	input json.RawMessage
	at    time.Time
}

// errLineTooLong marks a line longer than the cap.
var errLineTooLong = errors.New("line too long")

// readLine reads the next line of r into buf (reused), up to max bytes;
// a longer line is read to its end and dropped (errLineTooLong, with its
// length). It returns io.EOF after the last line.
func readLine(r *bufio.Reader, buf []byte, max int) ([]byte, int, error) {
	buf = buf[:0]
	n := 0
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if n <= max {
			if len(buf)+len(chunk) > cap(buf) {
				// Double, rather than append's 1.25 for large slices,
				// which allocates four times the line on the way.
				grown := make([]byte, len(buf), min(max, 2*(len(buf)+len(chunk))))
				copy(grown, buf)
				buf = grown
			}
			buf = append(buf, chunk...)
		}
		switch {
		case err == nil:
			if n > max {
				return buf[:0], n, errLineTooLong
			}
			return buf, n, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if n == 0 {
				return buf, 0, io.EOF
			}
			if n > max {
				return buf[:0], n, errLineTooLong
			}
			return buf, n, nil // a last line without newline
		default:
			return buf, n, err
		}
	}
}

// parse reads r to its end, emitting events as they complete. done
// reports bytes read, for progress.
func (fp *fileParser) parse(r io.Reader, modTime time.Time, done func(int)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	max := fp.opts.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	for {
		raw, n, err := readLine(br, buf, max)
		buf = raw[:0]
		if cap(buf) > 1<<20 {
			buf = nil // a long line's buffer is not kept for the short ones
		}
		if n > 0 {
			fp.lineNo++
			done(n)
		}
		if errors.Is(err, errLineTooLong) {
			fp.problem(Problem{fp.path, fp.lineNo, fmt.Sprintf("line of %d bytes is longer than the %d-byte limit: skipped", n, max)})
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fp.problem(Problem{fp.path, fp.lineNo + 1, "read: " + err.Error()})
			break
		}
		if err := fp.line(bytes.TrimSpace(raw)); err != nil {
			return err
		}
		if fp.bad == fp.lineNo && fp.bad >= maxBadLines {
			fp.problem(Problem{fp.path, 0, fmt.Sprintf("not a transcript (its first %d lines are not JSON): skipped", fp.bad)})
			break
		}
	}
	return fp.finish(modTime)
}

// line handles one line; only a Sink error is returned.
func (fp *fileParser) line(raw []byte) error {
	if len(raw) == 0 || otherType(raw) {
		return nil
	}
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		if !json.Valid(raw) {
			fp.bad++
		}
		fp.problem(Problem{fp.path, fp.lineNo, "not a transcript line: " + shortJSONError(err)})
		return nil
	}
	switch l.Type {
	case "user", "assistant", "attachment", "system":
	default:
		return nil // queue operations, request blobs, summaries, costs
	}
	if l.SessionID == "" {
		return nil
	}
	if len(l.SessionID) > 256 {
		fp.problem(Problem{fp.path, fp.lineNo, "session id longer than 256 bytes: skipped"})
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, l.Timestamp)
	if err != nil {
		fp.problem(Problem{fp.path, fp.lineNo, fmt.Sprintf("no valid timestamp (%q): skipped", shape.Truncate(l.Timestamp, 40))})
		return nil
	}
	s := fp.session(&l)
	if at.After(s.seen) {
		s.seen = at
	}
	if s.first.IsZero() || at.Before(s.first) {
		s.first = at
	}
	if l.PermissionMode != "" {
		s.mode = l.PermissionMode
	}
	if !l.IsSidechain && (l.Type == "user" || l.Type == "assistant") {
		s.main = true
	}
	switch l.Type {
	case "attachment":
		return fp.attachment(s, &l, at)
	case "system":
		if l.Subtype == "stop_hook_summary" && !l.IsSidechain {
			return fp.stop(s, at)
		}
		return nil
	case "assistant":
		return fp.assistant(s, &l, at)
	}
	return fp.user(s, &l, at)
}

// otherType reports a line that names, as its first member, a type the
// import does not read (request blobs, queue operations, costs: a third of
// a transcript's bytes); it is passed over without being decoded.
func otherType(raw []byte) bool {
	rest, ok := bytes.CutPrefix(raw, []byte(`{"type":"`))
	if !ok {
		return false
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 {
		return false
	}
	switch string(rest[:i]) {
	case "user", "assistant", "attachment", "system":
		return false
	}
	return true
}

func (fp *fileParser) session(l *line) *session {
	s := fp.sessions[l.SessionID]
	if s == nil {
		s = &session{id: l.SessionID, path: fp.path, pending: map[string]toolUse{}}
		fp.sessions[l.SessionID] = s
		fp.order = append(fp.order, s)
	}
	if s.cwd == "" && l.Cwd != "" {
		s.cwd = l.Cwd
	}
	return s
}

// attachment notes the source of SessionStart hooks: the first names the
// session's source; a later resume, clear or compact is an event of its own.
func (fp *fileParser) attachment(s *session, l *line, at time.Time) error {
	a := l.Attachment
	if a == nil || a.HookEvent != hookwire.SessionStart || a.Type != "hook_success" && a.Type != "hook_additional_context" {
		return nil
	}
	src, ok := strings.CutPrefix(a.HookName, hookwire.SessionStart+":")
	if !ok || src == "" {
		return nil
	}
	if !s.started {
		if s.source == "" {
			s.source = src
		}
		return nil
	}
	if src == "startup" || src == s.source {
		return nil
	}
	s.source = src
	return fp.send(s, hookwire.SessionStart, at, func(p *shape.Payload) { p.Source = src })
}

func (fp *fileParser) assistant(s *session, l *line, at time.Time) error {
	if l.Message == nil || len(l.Message.Content) == 0 || l.Message.Content[0] != '[' {
		return nil
	}
	var blocks []block
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		fp.problem(Problem{fp.path, fp.lineNo, "assistant content is not a list of blocks: skipped"})
		return nil
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			if b.ID != "" && b.Name != "" {
				s.pending[b.ID] = toolUse{name: b.Name, input: b.Input, at: at}
			}
		case "text":
			if !l.IsSidechain && strings.TrimSpace(b.Text) != "" {
				s.lastText, s.lastAt = b.Text, at
			}
		}
	}
	return nil
}

func (fp *fileParser) user(s *session, l *line, at time.Time) error {
	if l.Message == nil || len(l.Message.Content) == 0 {
		return nil
	}
	content := l.Message.Content
	var text string
	switch content[0] {
	case '"':
		if json.Unmarshal(content, &text) != nil {
			fp.problem(Problem{fp.path, fp.lineNo, "user content is not a string: skipped"})
			return nil
		}
	case '[':
		var blocks []block
		if json.Unmarshal(content, &blocks) != nil {
			fp.problem(Problem{fp.path, fp.lineNo, "user content is not a list of blocks: skipped"})
			return nil
		}
		results := 0
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results++
			}
		}
		if results > 0 {
			for _, b := range blocks {
				if b.Type != "tool_result" {
					continue
				}
				var structured json.RawMessage
				if results == 1 {
					structured = l.ToolUseResult
				}
				if err := fp.toolResult(s, l, b, structured, at); err != nil {
					return err
				}
			}
			return nil
		}
		// Each text block on its own: a reminder or the IDE's context
		// comes in a block of its own before the prompt's.
		var parts []string
		for _, b := range blocks {
			if b.Type != "text" {
				continue
			}
			if p, ok := promptText(b.Text); ok {
				parts = append(parts, p)
			}
		}
		text = strings.Join(parts, "\n")
	default:
		fp.problem(Problem{fp.path, fp.lineNo, "user content is neither text nor blocks: skipped"})
		return nil
	}
	if l.IsMeta || l.IsSidechain || l.IsCompactSummary {
		return nil
	}
	text, ok := promptText(text)
	if !ok {
		return nil
	}
	if err := fp.endTurn(s); err != nil {
		return err
	}
	id := l.PromptID
	if id == "" && l.UUID != "" {
		// Transcripts older than prompt ids: the line's own id makes a
		// second import of the prompt a replay.
		id = "line-" + l.UUID
	}
	s.promptID, s.lastText = id, ""
	err := fp.send(s, hookwire.UserPromptSubmit, at, func(p *shape.Payload) { p.Prompt = text })
	s.inTurn = true
	return err
}

func (fp *fileParser) toolResult(s *session, l *line, b block, structured json.RawMessage, at time.Time) error {
	use, ok := s.pending[b.ToolUseID]
	if !ok {
		fp.problem(Problem{fp.path, fp.lineNo, fmt.Sprintf("tool result %s without its tool call: skipped", shape.Truncate(b.ToolUseID, 60))})
		return nil
	}
	delete(s.pending, b.ToolUseID)
	// The line names the prompt it answers (a subagent's lines name the
	// prompt that started the subagent).
	promptID := s.promptID
	if l.PromptID != "" {
		promptID = l.PromptID
		if !l.IsSidechain {
			s.promptID = promptID
		}
	}
	name := hookwire.PostToolUse
	if b.IsError {
		name = hookwire.PostToolUseFailure
	}
	input := use.input
	if len(input) == 0 || !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	dur := at.Sub(use.at).Milliseconds()
	if dur < 0 {
		dur = 0
	}
	return fp.send(s, name, at, func(p *shape.Payload) {
		p.ToolName, p.ToolInput, p.ToolUseID, p.DurationMS, p.PromptID = use.name, input, b.ToolUseID, dur, promptID
		if b.IsError {
			p.Error = resultText(b.Content)
			p.IsInterrupt = strings.Contains(p.Error, "[Request interrupted by user")
			return
		}
		if len(structured) > 0 && structured[0] == '{' {
			p.ToolResponse = structured
		} else if len(b.Content) > 0 {
			p.ToolResponse = b.Content
		}
	})
}

// resultText is the text of a tool result's content: a string, or the
// text blocks of a list.
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// stop ends the current turn with a Stop event carrying the last thing
// Claude said in it.
func (fp *fileParser) stop(s *session, at time.Time) error {
	if !s.inTurn {
		return nil
	}
	s.inTurn = false
	msg := s.lastText
	return fp.send(s, hookwire.Stop, at, func(p *shape.Payload) { p.LastAssistantMessage = msg })
}

// endTurn stops a turn that had no Stop line (an interrupted turn, or a
// transcript from before stop hook summaries), at its last answer.
func (fp *fileParser) endTurn(s *session) error {
	if !s.inTurn {
		return nil
	}
	at := s.lastAt
	if at.IsZero() {
		at = s.seen
	}
	return fp.stop(s, at)
}

// finish closes every session of the file, its open turn and its end,
// unless the transcript changed within Options.ActiveWithin: a session
// still running, whose turn and end its hooks will report.
func (fp *fileParser) finish(modTime time.Time) error {
	active := fp.opts.now().Sub(modTime) < fp.opts.ActiveWithin
	for _, s := range fp.order {
		if active {
			continue
		}
		for id, use := range s.pending {
			fp.problem(Problem{fp.path, 0, fmt.Sprintf("tool call %s (%s) has no result: skipped", shape.Truncate(id, 60), use.name)})
		}
		if err := fp.endTurn(s); err != nil {
			return err
		}
		// A subagent's transcript does not end its session.
		if !s.started || !s.main {
			continue
		}
		if err := fp.send(s, hookwire.SessionEnd, s.seen, func(p *shape.Payload) { p.Reason = EndReason }); err != nil {
			return err
		}
	}
	return nil
}

// EndReason is the reason of the SessionEnd an import gives a session
// whose transcript ended.
const EndReason = "imported"

// send emits one event of s (after its SessionStart, the first time),
// unless s is filtered out or the event is older than Options.Since.
func (fp *fileParser) send(s *session, name string, at time.Time, fill func(*shape.Payload)) error {
	if !s.resolved {
		s.resolved = true
		s.skip = fp.opts.Project != "" && fp.opts.projectOf(s.cwd) != fp.opts.Project
	}
	if s.skip || at.Before(fp.opts.Since) {
		return nil
	}
	// A subagent's transcript starts no session: its session started
	// in the main transcript.
	if !s.started && name != hookwire.SessionStart && s.main {
		s.started = true
		src := s.source
		if src == "" {
			src = "startup"
		}
		// The session started at its first line, or at Since for an
		// import that leaves out what came before.
		from := s.first
		if from.Before(fp.opts.Since) || from.After(at) {
			from = at
		}
		if err := fp.send(s, hookwire.SessionStart, from, func(p *shape.Payload) { p.Source = src }); err != nil {
			return err
		}
	}
	s.started = true
	t := at.UTC()
	ev := &Event{Name: name, Payload: shape.Payload{
		SessionID: s.id, TranscriptPath: s.path, Cwd: s.cwd, HookEventName: name,
		MnemeTime: &t, MnemeImport: true,
	}}
	if name != hookwire.SessionStart {
		ev.Payload.PromptID = s.promptID
	}
	if name != hookwire.SessionStart && name != hookwire.SessionEnd {
		ev.Payload.PermissionMode = s.mode
	}
	if name == hookwire.Stop {
		// Without a message the worker would read the transcript's
		// tail, which is another turn's.
		ev.Payload.TranscriptPath = ""
	}
	fill(&ev.Payload)
	return fp.emit(ev)
}

func shortJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q must be %s, not %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}

// PromptText is a transcript's user-role text as a prompt: system blocks
// inside it cut out, and false when Claude Code or its tools wrote it (a
// task notification, a slash command's record or output, a bash-mode
// line, hook output, a caveat, an interruption marker, …).
func PromptText(text string) (string, bool) { return promptText(text) }
