package views

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// ObservationView is one tool call as the viewer shows it.
type ObservationView struct {
	ID, SessionID int64
	Project       string
	PromptNumber  int
	Tool          string
	Kind          string
	Title         string
	Input         string
	Output        string
	Files         []string
	Success       bool
	Importance    float64
	DurationMS    int64
	ExcludedBy    string
	At            time.Time
	// SessionTitle names the session in the row's context line (the
	// feed); "" shows its number.
	SessionTitle string
	// FileStatus is each file's status now by path (fresh, changed, gone,
	// unknown), when known: changed and gone ones get a badge.
	FileStatus map[string]string
	// SeenBefore is the earlier failure of the project this one was seen
	// as (same signature, another session) and its fix; nil for none.
	SeenBefore *SeenBeforeView
}

// SeenBeforeView is an earlier failure with the same signature and the
// call that fixed it (FixedByID 0: not fixed in its session).
type SeenBeforeView struct {
	ID, SessionID int64
	At            time.Time
	FixedByID     int64
	FixedBy       string
}

// PromptView is one user prompt.
type PromptView struct {
	ID, SessionID int64
	Project       string
	Number        int
	Text          string
	At            time.Time
	SessionTitle  string // as ObservationView's
}

// SummaryView is a turn, intermediate or final summary.
type SummaryView struct {
	ID, SessionID int64
	Project       string
	PromptNumber  int
	Kind          string
	Request       string
	Investigated  string
	Learned       string
	Completed     string
	NextSteps     string
	Generator     string
	Note          string
	At            time.Time
	SessionTitle  string // as ObservationView's
}

// SessionMarkView marks a session starting or completing in the feed.
type SessionMarkView struct {
	SessionID int64
	Project   string
	Branch    string
	Source    string
	Completed bool
	Reason    string
	At        time.Time
	// SessionTitle is as ObservationView's.
	SessionTitle string
}

// FeedItem is one row of the feed: exactly one of its pointers is set.
// EventID is the event-log id the row was announced with (0 when unknown).
type FeedItem struct {
	EventID int64
	Obs     *ObservationView
	Prompt  *PromptView
	Summary *SummaryView
	Session *SessionMarkView
}

// FeedFilter is the feed's filter form. Kind, Tool and FailuresOnly narrow
// the feed to observations.
type FeedFilter struct {
	Project      string
	Kind         string
	Tool         string
	FailuresOnly bool
}

// Feed kinds that are not tool calls: the kind filter's "Prompts only" and
// "Summaries only".
const (
	FeedKindPrompt  = "prompt"
	FeedKindSummary = "summary"
)

// EventKinds is the one kind of row other than tool calls the filter keeps
// (prompts or summaries, as models.FeedQuery.Kinds), nil for any other.
func (f FeedFilter) EventKinds() []string {
	if f.Kind == FeedKindPrompt || f.Kind == FeedKindSummary {
		return []string{f.Kind}
	}
	return nil
}

// ObservationsOnly reports whether the filter narrows the feed to tool
// calls (a tool call's kind, a tool or failures; "Prompts only" and
// "Summaries only" win over the tool and failure boxes).
func (f FeedFilter) ObservationsOnly() bool {
	return f.EventKinds() == nil && (f.Kind != "" || f.Tool != "" || f.FailuresOnly)
}

// KindOption is one choice of the feed's kind filter: its value and what
// a person reads.
type KindOption struct {
	Value string
	Label string
}

// kindNames are the kind filter's words for the observation kinds
// (models.ObservationKinds); a kind without one shows as kindLabel.
var kindNames = map[string]string{
	"agent": "Subagents", "bash": "Shell commands", "excluded": "Hidden by privacy rules", "failure": "Failed tool calls",
	"file_change": "File changes", "mcp": "MCP tools", "read": "File reads", "search": "Searches", "test": "Test runs",
	"tool_use": "Other tool calls", "web": "Web fetches and searches",
}

// KindOptions are the kind filter's tool-call choices for kinds, by label.
func KindOptions(kinds []string) []KindOption {
	out := make([]KindOption, 0, len(kinds))
	for _, k := range kinds {
		l, ok := kindNames[k]
		if !ok {
			l = kindLabel(k)
		}
		out = append(out, KindOption{Value: k, Label: l})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// Query encodes the filter as URL query parameters, plus extra pairs.
func (f FeedFilter) Query(extra ...string) string {
	v := url.Values{}
	if f.Project != "" {
		v.Set("project", f.Project)
	}
	if f.Kind != "" {
		v.Set("kind", f.Kind)
	}
	if f.Tool != "" {
		v.Set("tool", f.Tool)
	}
	if f.FailuresOnly {
		v.Set("failures", "1")
	}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return v.Encode()
}

// FeedPage is the live feed at /.
type FeedPage struct {
	Meta     PageMeta
	Filter   FeedFilter
	Projects []string
	Tools    []string
	// Kinds are the tool-call kinds the kind filter offers, after
	// "Prompts only" and "Summaries only".
	Kinds []KindOption
	Items []FeedItem
	// HasMore and NextOffset drive "load more".
	HasMore    bool
	NextOffset int
	// LastEventID is the newest event when the page was rendered: the live
	// stream resumes after it, so nothing falls between render and connect.
	LastEventID int64
	// Live is set on the first page: only it follows the stream.
	Live bool
	// FirstRun is set when memory holds nothing yet: the page says how to
	// connect Claude Code and what Import would bring in.
	FirstRun *FirstRun
}

// FirstRun is the feed's welcome while memory is empty.
type FirstRun struct {
	// Dir is where Import looks for Claude Code's transcripts; Files and
	// MB are what it would read there (Import is nil-safe: CanImport
	// false when the worker has no importer).
	Dir       string
	Files     int
	MB        int64
	CanImport bool
}

// SessionRow is one line of the session list.
type SessionRow struct {
	ID int64
	// Title names the session (models.Session.Title); "" until it has
	// one. TitleEdited says the user gave it.
	Title        string
	TitleEdited  bool
	Project      string
	Branch       string
	Status       string
	StartedAt    time.Time
	EndedAt      *time.Time
	Prompts      int
	ToolCalls    int
	Failures     int
	Observations int
	// CapturedBy is the person whose API token captured the session (team
	// mode); "" for the worker's owner.
	CapturedBy string
	// Outcome is the first line of what its latest summary says got done;
	// Files the files it changed, most edited first, and MoreFiles how
	// many more (models.SessionDigest).
	Outcome   string
	Files     []string
	MoreFiles int
}

// SessionCols are the optional columns of the session list: who captured
// each session (team mode), and the git branch when a listed session has
// one. Live rows are rendered with the page's columns.
type SessionCols struct {
	Person bool
	Branch bool
}

// Query encodes the columns for a live row's fragment URL.
func (c SessionCols) Query() string {
	v := url.Values{}
	if c.Person {
		v.Set("person_col", "1")
	}
	if c.Branch {
		v.Set("branch_col", "1")
	}
	return v.Encode()
}

// SessionsPage is the session list at /sessions.
type SessionsPage struct {
	Meta     PageMeta
	Project  string
	Projects []string
	// Person filters by who captured the sessions; Persons are the
	// choices (none outside team mode: the filter and column are hidden).
	Person     string
	Persons    []string
	Rows       []SessionRow
	Cols       SessionCols
	HasMore    bool
	Offset     int
	NextOffset int
	PrevOffset int
	// LastEventID is where the live stream resumes (see FeedPage); Live
	// is set on the first page, which adds new sessions at the top.
	LastEventID int64
	Live        bool
}

// Turn is one prompt of a session with what happened under it. Prompt is
// nil for activity before the first prompt (or under a private prompt).
type Turn struct {
	Number       int
	Prompt       *PromptView
	Observations []ObservationView
	Summaries    []SummaryView
	Failures     int
}

// SessionPage is one session's page at /sessions/:id: what happened
// (Story), then its timeline.
type SessionPage struct {
	// Memories are the memories the session produced.
	Memories     []models.Memory
	Story        Story
	LastEventID  int64 // where the live stream resumes (see FeedPage)
	Meta         PageMeta
	Session      SessionRow
	ClaudeID     string
	Cwd          string
	Source       string
	EndReason    string
	Turns        []Turn
	Final        []SummaryView
	Files        []FileTouch
	LastResponse string
}

// Story is "what happened" in a session, read before its timeline: the
// request and outcome from its summaries, the decisions and open items
// from its memories and its failures, fixed or not (the files it touched
// are SessionPage.Files).
type Story struct {
	// Summary is the summary the story is told from: the latest session
	// summary, else the latest turn summary; nil when there is none.
	Summary *SummaryView
	// Request is the summary's request, else the first prompt.
	Request   string
	Decisions []models.Memory
	OpenItems []models.Memory
	// ReplacedBy is what replaced each superseded decision of Decisions,
	// by the superseded one's id.
	ReplacedBy map[int64]models.Memory
	Failures   []FailureView
	// MoreFailures counts failures past Failures.
	MoreFailures int
}

// FailureView is a failed tool call of a session and whether a later
// call fixed it.
type FailureView struct {
	ObsID  int64
	Title  string
	Reason string
	Fixed  bool
	// FixedBy is the title of the call that fixed it.
	FixedBy   string
	FixedByID int64
}

// FileTouch is a file a session touched and how often.
type FileTouch struct {
	Path  string
	Count int
	// Status is the file's status now against the session's latest
	// record of it (fresh, changed, gone, unknown; "" when not known).
	Status string
}

// staleLabel is the badge text of a file status, "" for none: only a
// file that changed or is gone since it was recorded gets one.
func staleLabel(status string) string {
	switch status {
	case "changed":
		return "changed since"
	case "gone":
		return "gone since"
	}
	return ""
}

// Duration renders how long the session ran (or has been running).
func (r SessionRow) Duration() string {
	end := time.Now()
	if r.EndedAt != nil {
		end = *r.EndedAt
	}
	return humanDuration(end.Sub(r.StartedAt))
}

func humanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "–"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
	default:
		// A span of days reads in days ("157 h 16 min" does not).
		return fmt.Sprintf("%d d %d h", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// durationMS renders a tool call's duration.
func durationMS(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return humanDuration(time.Duration(ms) * time.Millisecond)
}

// importanceClass buckets importance for its badge.
func importanceClass(v float64) string {
	switch {
	case v >= 0.95:
		return "imp imp-high"
	case v >= 0.7:
		return "imp imp-mid"
	default:
		return "imp imp-low"
	}
}

// importanceLabel says in a word how much a call matters to its session's
// story: "key" (failures, edits), "notable"; nothing for the rest.
func importanceLabel(v float64) string {
	switch {
	case v >= 0.95:
		return "key"
	case v >= 0.7:
		return "notable"
	}
	return ""
}

// endReasonText says why a session ended as Claude Code's SessionEnd
// reason means it; "" for one that says nothing ("other").
func endReasonText(reason string) string {
	switch reason {
	case "", "other":
		return ""
	case "clear":
		return "ended by /clear"
	case "logout":
		return "ended at logout"
	case "prompt_input_exit":
		return "ended when Claude Code exited"
	}
	return "ended: " + strings.ReplaceAll(reason, "_", " ")
}

// generatorText says who wrote a summary: without a model, or which.
func generatorText(gen string) string {
	switch gen {
	case "heuristic":
		return "summarized without a model"
	case "claude-cli":
		return "summarized by Claude Code"
	case "anthropic-api":
		return "summarized by the Anthropic API"
	case "":
		return ""
	}
	return "summarized by " + gen
}

// memorySourceText says where a memory was read.
func memorySourceText(source string) string {
	switch source {
	case models.SourceAnswer:
		return "read from Claude's answer"
	case models.SourcePrompt:
		return "read from your prompt"
	case models.SourceSummary:
		return "read from a turn's summary"
	case models.SourceClaude:
		return "remembered by Claude (MCP)"
	case models.SourceUser:
		return "written by you"
	}
	return "from " + source
}

func sessionURL(id int64) string { return "/sessions/" + strconv.FormatInt(id, 10) }

// sessionObsURL is observation id's row on its session's page.
func sessionObsURL(session, id int64) string {
	return sessionURL(session) + "#obs-" + strconv.FormatInt(id, 10)
}

func itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func summaryLabel(kind string) string {
	switch kind {
	case "final":
		return "session summary"
	case "intermediate":
		return "interim summary"
	default:
		return "turn summary"
	}
}

func sessionMarkID(m SessionMarkView) string {
	if m.Completed {
		return "session-end-" + itoa(m.SessionID)
	}
	return "session-start-" + itoa(m.SessionID)
}

// searchPageURL is the search with the same form at another offset.
func searchPageURL(p SearchPage, offset int) string {
	v := url.Values{}
	for k, s := range map[string]string{"q": p.Q, "project": p.Project, "type": p.Type, "tool": p.Tool, "from": p.From, "to": p.To, "mode": p.Mode} {
		if s != "" {
			v.Set(k, s)
		}
	}
	v.Set("offset", itoa(offset))
	return "/search?" + v.Encode()
}

// kindLabel is an observation kind for people: "file_change" → "file change".
func kindLabel(kind string) string { return strings.ReplaceAll(kind, "_", " ") }

// sameWord reports whether a tool name only repeats its kind (Bash/bash).
func sameWord(tool, kind string) bool { return strings.EqualFold(tool, kind) }

// displayPath shortens an absolute path to start at the project's directory
// ("notes-app/notes.md") when the project's name is one of its segments; the
// full path stays in the title attribute.
func displayPath(project, path string) string {
	if project == "" {
		return path
	}
	if i := strings.LastIndex(path, "/"+project+"/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// ProjectPath is path as the viewer shows it in a project's context:
// from the project's directory on ("notes-app/notes.md", displayPath), and
// without that directory when the page is about that project only (inside
// is true: "notes.md").
func ProjectPath(project, path string, inside bool) string {
	p := displayPath(project, path)
	if inside && p != path {
		return strings.TrimPrefix(p, project+"/")
	}
	return p
}

// plural renders "1 prompt", "2 prompts".
func plural[T ~int | ~int64](n T, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

// baseName is the last element of a path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}

// pluralWord is the noun of plural alone: "prompt" for 1, else "prompts".
func pluralWord[T ~int | ~int64](n T, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// storySource says which summary a session's story is told from.
func storySource(s SummaryView) string {
	out := "from the " + summaryLabel(s.Kind)
	if g := generatorText(s.Generator); g != "" {
		out += ", " + g
	}
	return out + ","
}
