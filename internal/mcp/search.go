package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

const searchDescription = `Step 1 of 3 — search mneme's memory of earlier Claude Code sessions: tool calls (observations), prompts and session summaries, across projects.
Query syntax is SQLite FTS5: words (all must match), OR, NOT, "exact phrase", prefix*, column filters such as title:word; e.g. migrat* AND sqlite, "connection refused", auth NOT oauth.
With type=memory (and kind=decision|constraint|cause|todo), searches the memories kept instead: one row per memory, m<id>, date, kind, who said it (user, Claude, a teammate's name, or quoted: FILE), state (current, superseded by m<id>, done, retired, proposed: a teammate's awaiting the owner, noted: a quote, never in force) and text; as_of=YYYY-MM-DD (or an RFC 3339 time) keeps those that were in force then.
Answers one compact row per hit, best first, within maxTokens (≈4 bytes per token, default 1000):
  #<id>  <date time>  <kind>  <title>              a tool call; <id> is an observation id
  session s<N>  <date time>  prompt|summary  <text>  a prompt or summary of session sN
and says how many more matched and how to get them (offset).
mode=hybrid (the default when mneme has an embeddings endpoint) also finds rows by meaning, so a plain-language question works; mode=semantic by meaning alone; mode=text FTS5 only.
similar_to=#<id> (no query) lists the failures with the same signature as that failed call: the same failing test or error seen in other sessions, whatever the numbers, paths and times.
Next: timeline with anchor=<id> (or session=s<N>) to see what happened around a hit, then get_observations with only the ids worth reading in full. Do not fetch everything: rows are cheap, full records are not.`

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query     string `json:"query,omitempty" jsonschema:"FTS5 query: words (all must match), OR, NOT, \"exact phrase\", prefix*, title:word; required unless similar_to is given"`
	Project   string `json:"project,omitempty" jsonschema:"only this project (a repository's directory name); all projects when left out"`
	Type      string `json:"type,omitempty" jsonschema:"observation (tool calls), prompt or summary; all three when left out (or all); memory for the decisions, constraints, causes and todos kept"`
	Kind      string `json:"kind,omitempty" jsonschema:"with type memory: only decision, constraint, cause or todo"`
	Tool      string `json:"tool,omitempty" jsonschema:"only tool calls of this tool: Bash, Edit, Write, Read, …"`
	From      string `json:"from,omitempty" jsonschema:"only hits from this day on (YYYY-MM-DD, a UTC day, or an RFC 3339 time)"`
	To        string `json:"to,omitempty" jsonschema:"only hits up to this day, inclusive (YYYY-MM-DD, a UTC day, or an RFC 3339 time, exclusive)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"rows to fetch, 1 to 100 (default 20); maxTokens may show fewer"`
	Offset    int    `json:"offset,omitempty" jsonschema:"skip this many hits (paging: the answer says which offset comes next)"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"size limit of the answer in tokens (≈4 bytes each), 200 to 25000, default 1000"`
	Mode      string `json:"mode,omitempty" jsonschema:"hybrid (words and meaning, the default when semantic search is set up), text (FTS5 only, the default otherwise) or semantic (meaning only: plain-language questions)"`
	AsOf      string `json:"as_of,omitempty" jsonschema:"with type memory: only the memories in force at that time (YYYY-MM-DD: as that UTC day ended; or an RFC 3339 time), whatever their state now"`
	SimilarTo *ID    `json:"similar_to,omitempty" jsonschema:"#id of a failed tool call: instead of a text search, the failures with its signature (the same failing test or error, whatever the numbers, paths and times), newest first, in its project"`
}

func (s *Server) search(ctx context.Context, in SearchInput) (string, error) {
	if in.SimilarTo != nil {
		return s.similar(ctx, in)
	}
	if strings.TrimSpace(in.Query) == "" {
		return "", fmt.Errorf("query is empty: give words to search for, in FTS5 syntax (e.g. migrat* AND sqlite), or similar_to=#id of a failure")
	}
	maxTokens, err := readTokens(in.MaxTokens)
	if err != nil {
		return "", err
	}
	if in.Limit < 0 || in.Limit > 100 {
		return "", fmt.Errorf("limit must be from 1 to 100, or left out for 20")
	}
	if in.Offset < 0 {
		return "", fmt.Errorf("offset must be 0 or more")
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	if strings.EqualFold(strings.TrimSpace(in.Type), "all") {
		in.Type = ""
	}
	if strings.EqualFold(strings.TrimSpace(in.Type), models.SearchMemory) || in.Kind != "" {
		return s.searchMemories(ctx, in, limit, maxTokens)
	}
	if strings.TrimSpace(in.AsOf) != "" {
		return "", fmt.Errorf("as_of applies to memories: give type=memory with it")
	}
	q := url.Values{"q": {in.Query}, "limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"project": in.Project, "type": in.Type, "tool": in.Tool, "from": in.From, "to": in.To} {
		if v = strings.TrimSpace(v); v != "" {
			q.Set(k, v)
		}
	}
	if in.Offset > 0 {
		q.Set("offset", strconv.Itoa(in.Offset))
	}
	if m := strings.ToLower(strings.TrimSpace(in.Mode)); m != "" {
		q.Set("mode", m)
	}
	var res api.SearchResults
	if err := s.get(ctx, "/api/search?"+q.Encode(), &res); err != nil {
		return "", err
	}
	words := wordsNote(res.WordsError)
	if len(res.Items) == 0 {
		if in.Offset > 0 {
			return fmt.Sprintf("No more matches for %s past offset %d.%s", in.Query, in.Offset, words), nil
		}
		return fmt.Sprintf("No matches for %s%s. Try fewer words, OR, or prefix* forms.%s", in.Query, filters(in), words), nil
	}
	w := newBudget(maxTokens)
	order := "best first"
	if !res.Ranked {
		order = "newest first: too many matches to rank, narrow the query"
	}
	switch {
	case res.Mode == "text" && strings.EqualFold(strings.TrimSpace(in.Mode), "hybrid"):
		order += "; text only: the embeddings endpoint did not answer in time"
	case res.Mode == "hybrid" || res.Mode == "semantic":
		order += ", " + res.Mode
	}
	w.must(fmt.Sprintf("mneme search %s%s (%s):%s", oneLine(in.Query, 200), filters(in), order, words))
	footer := func(shown int) string {
		next := in.Offset + shown
		var more string
		switch {
		case shown < len(res.Items):
			more = fmt.Sprintf("… %d more fetched but over maxTokens=%d", len(res.Items)-shown, maxTokens)
			if res.HasMore {
				more += ", and more matches beyond"
			}
			more += fmt.Sprintf(": search again with offset=%d, or raise maxTokens.", next)
		case res.HasMore:
			more = fmt.Sprintf("… more matches: search again with offset=%d, or narrow the query.", next)
		default:
			more = fmt.Sprintf("%d match(es), all shown.", shown)
		}
		return more + "\n" + searchNext
	}
	reserve := len(footer(0)) + 8 // the numbers may grow by a few digits
	shown, _ := w.rows(len(res.Items), reserve, func(i int) (string, error) {
		return hitRow(res.Items[i], in.Project == ""), nil
	})
	w.must(footer(shown))
	return w.String(), nil
}

// similar is search with similar_to: the failures with the signature of
// that one, newest first, from /api/observations.
func (s *Server) similar(ctx context.Context, in SearchInput) (string, error) {
	if strings.TrimSpace(in.Query) != "" || in.Type != "" || in.Kind != "" || in.AsOf != "" || in.Mode != "" || in.From != "" || in.To != "" {
		return "", fmt.Errorf("similar_to lists failures by signature: give it alone (with project, tool, limit, offset, maxTokens), without query, type, kind, as_of, mode, from or to")
	}
	maxTokens, err := readTokens(in.MaxTokens)
	if err != nil {
		return "", err
	}
	if in.Limit < 0 || in.Limit > 100 || in.Offset < 0 {
		return "", fmt.Errorf("limit must be from 1 to 100 (default 20), offset 0 or more")
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	id := int64(*in.SimilarTo)
	q := url.Values{"similar_to": {strconv.FormatInt(id, 10)}, "limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(in.Offset)}}
	for k, v := range map[string]string{"project": in.Project, "tool": in.Tool} {
		if v = strings.TrimSpace(v); v != "" {
			q.Set(k, v)
		}
	}
	var page api.Page[models.Observation]
	if err := s.get(ctx, "/api/observations?"+q.Encode(), &page); err != nil {
		if isNotFound(err) {
			return "", fmt.Errorf("no observation #%d", id)
		}
		return "", err
	}
	w := newBudget(maxTokens)
	sig := ""
	for _, o := range page.Items {
		if o.ID == id {
			sig = o.Signature
		}
	}
	head := fmt.Sprintf("mneme failures like #%d, newest first", id)
	if sig != "" {
		head += " (signature: " + oneLine(sig, 200) + ")"
	}
	w.must(head + ":")
	shown, _ := w.rows(len(page.Items), 120, func(i int) (string, error) {
		o := page.Items[i]
		return hitRow(api.SearchResult{SearchHit: models.SearchHit{Type: models.SearchObservation, ID: o.ID, CreatedAt: o.CreatedAt, Kind: o.Kind,
			ToolName: o.ToolName, Title: o.Title, Success: o.Success}}, false) + "  session " + ref.Sess(o.SessionID), nil
	})
	switch {
	case shown < len(page.Items) || page.HasMore:
		w.must(fmt.Sprintf("… more: search again with similar_to=#%d offset=%d.\n%s", id, in.Offset+shown, searchNext))
	default:
		w.must(fmt.Sprintf("%d failure(s) with this signature, all shown.\n%s", shown, searchNext))
	}
	return w.String(), nil
}

// searchNext closes a search answer: the next steps.
const searchNext = "Next: timeline anchor=<#id> or session=s<N> for context; get_observations ids=[…] for full records."

// hitRow is one search hit on one line.
func hitRow(hit api.SearchResult, withProject bool) string {
	var b strings.Builder
	if hit.Type == models.SearchObservation {
		kind := hit.Kind
		if kind == "" {
			kind = hit.ToolName
		}
		fmt.Fprintf(&b, "#%d  %s  %s  %s", hit.ID, stamp(hit.CreatedAt), kind, oneLine(hit.Title, 160))
		if !hit.Success {
			b.WriteString("  [failed]")
		}
		b.WriteString(staleMark(hit.Stale))
	} else {
		text := snippetText(hit)
		if hit.Type == models.SearchSummary && hit.Kind != "" {
			text = hit.Kind + ": " + text
		}
		fmt.Fprintf(&b, "session %s  %s  %s  %s", ref.Sess(hit.SessionID), stamp(hit.CreatedAt), hit.Type, oneLine(text, 160))
	}
	if withProject && hit.Project != "" {
		b.WriteString("  (" + hit.Project + ")")
	}
	return b.String()
}

// snippetText is a prompt's or summary's matching fragment as plain text,
// else its title.
func snippetText(hit api.SearchResult) string {
	var b strings.Builder
	for _, p := range hit.SnippetParts {
		b.WriteString(p.Text)
	}
	if t := strings.TrimSpace(b.String()); t != "" {
		return t
	}
	return hit.Title
}

// filters describes a search's filters for its header.
func filters(in SearchInput) string {
	var parts []string
	for _, f := range []struct{ name, v string }{{"project", in.Project}, {"type", in.Type}, {"tool", in.Tool}, {"from", in.From}, {"to", in.To}} {
		if v := strings.TrimSpace(f.v); v != "" {
			parts = append(parts, f.name+"="+v)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, " ") + "]"
}

// call sends one request to the worker and decodes its answer into v.
func (s *Server) call(ctx context.Context, method, path string, body []byte, v any) error {
	raw, err := s.api.Do(ctx, method, path, body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("unexpected answer from the worker: %v", err)
	}
	return nil
}

// day is a date for rows that need no time.
func day(t time.Time) string { return t.Local().Format(time.DateOnly) }

// searchMemories is search limited to memories: one row per memory,
// m<id>, date, kind, who said it, state and text, best first; with
// as_of, those in force at that time.
func (s *Server) searchMemories(ctx context.Context, in SearchInput, limit, maxTokens int) (string, error) {
	q := url.Values{"q": {in.Query}, "limit": {strconv.Itoa(limit)}}
	if p := strings.TrimSpace(in.Project); p != "" {
		q.Set("project", p)
	}
	if k := strings.TrimSpace(in.Kind); k != "" {
		q.Set("kind", k)
	}
	if m := strings.ToLower(strings.TrimSpace(in.Mode)); m != "" {
		q.Set("mode", m)
	}
	asOf := strings.TrimSpace(in.AsOf)
	if asOf != "" {
		q.Set("as_of", asOf)
	}
	if in.Offset > 0 {
		q.Set("offset", strconv.Itoa(in.Offset))
	}
	var res api.MemoryResults
	if err := s.get(ctx, "/api/memories?"+q.Encode(), &res); err != nil {
		return "", err
	}
	when := ""
	if asOf != "" {
		when = " in force on " + oneLine(asOf, 40)
	}
	words := wordsNote(res.WordsError)
	if len(res.Items) == 0 {
		return fmt.Sprintf("No memories%s match %s. Try fewer words, OR, or prefix* forms.%s", when, in.Query, words), nil
	}
	w := newBudget(maxTokens)
	w.must(fmt.Sprintf("mneme memories%s matching %s (best first):%s", when, oneLine(in.Query, 200), words))
	footer := "Only current memories are in force; a superseded one names its replacement; proposed ones await the owner; noted ones are quotes."
	if asOf != "" {
		footer = "These were in force on " + oneLine(asOf, 40) + "; the state shown is today's."
	}
	if res.HasMore {
		footer = fmt.Sprintf("… more matches: search again with offset=%d. ", in.Offset+len(res.Items)) + footer
	}
	w.rows(len(res.Items), len(footer)+8, func(i int) (string, error) {
		m := res.Items[i]
		state := m.State
		if m.SupersededBy != 0 {
			state = "superseded by " + ref.Mem(m.SupersededBy)
		}
		proj := ""
		if in.Project == "" {
			proj = m.Project + "  "
		}
		return fmt.Sprintf("%s  %s  %s%s  %s  %s  %s", ref.Mem(m.ID), day(m.CreatedAt), proj, m.Kind, oneLine(voice(m), 60), state, oneLine(m.Text, 300)), nil
	})
	w.must(footer)
	return w.String(), nil
}

// wordsNote is the line that says a hybrid search's words could not be
// read (why is the API's wordsError), so its hits are by meaning alone;
// "" when they were read.
func wordsNote(why string) string {
	if why == "" {
		return ""
	}
	return "\nThe words part of the query could not be read: " + why + ". These are matches by meaning only; fix the words to match by words too."
}

// voice is who said m as Claude reads it: "user" (not "you": the reader
// is Claude), "Claude", a teammate's name, or "quoted: FILE".
func voice(m models.Memory) string {
	if m.Speaker == models.SpeakerUser {
		return "user"
	}
	return m.Voice()
}

const rememberDescription = `Keep a decision or a constraint in mneme's memory explicitly, so the next sessions of the project are given it at start (and Claude sees it before touching a file it names).
kind: decision (what was chosen, over what) or constraint (a rule the user or the project set, e.g. "never touch vendor/", "use pnpm, not npm"); text: one plain statement; files: the paths it is about, if any.
It is redacted like everything mneme stores, and marked as stated by Claude (with a teammate's token on a shared worker: as that teammate's, proposed until the owner accepts it). Answers the memory's #m<id>.`

// RememberInput is the remember tool's arguments.
type RememberInput struct {
	Project string   `json:"project,omitempty" jsonschema:"the project (a repository's directory name); the current directory's when left out"`
	Kind    string   `json:"kind" jsonschema:"decision or constraint"`
	Text    string   `json:"text" jsonschema:"the statement, one or two plain sentences"`
	Files   []string `json:"files,omitempty" jsonschema:"paths the statement is about"`
}

func (s *Server) remember(ctx context.Context, in RememberInput) (string, error) {
	if in.Kind != models.MemoryDecision && in.Kind != models.MemoryConstraint {
		return "", fmt.Errorf("kind must be decision or constraint")
	}
	if strings.TrimSpace(in.Text) == "" {
		return "", fmt.Errorf("text is empty: give the statement to keep")
	}
	project := strings.TrimSpace(in.Project)
	if project == "" {
		project = s.opts.Project
	}
	if project == "" {
		return "", fmt.Errorf("project is required (no current project known)")
	}
	body, err := json.Marshal(map[string]any{"project": project, "kind": in.Kind, "text": in.Text, "files": in.Files, "source": models.SourceClaude})
	if err != nil {
		return "", err
	}
	var m models.Memory
	if err := s.call(ctx, http.MethodPost, "/api/memories", body, &m); err != nil {
		return "", err
	}
	if m.State == models.MemoryProposed {
		return fmt.Sprintf("Kept as %s (%s of project %s, proposed: in force once the owner accepts it): %s", ref.Mem(m.ID), m.Kind, m.Project, oneLine(m.Text, 300)), nil
	}
	return fmt.Sprintf("Kept as %s (%s of project %s): %s", ref.Mem(m.ID), m.Kind, m.Project, oneLine(m.Text, 300)), nil
}
