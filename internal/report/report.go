// Package report exports sessions as reports a person would send to a
// colleague: Markdown, JSON (the full structured data, with a schema
// version) or a self-contained HTML file that prints cleanly to PDF.
//
// One function, Export, serves the HTTP download and the CLI. It reads only
// stored data, which the privacy pipeline redacted before storage, and
// streams observations in batches so a session with 10,000 tool calls is
// never held in memory at once. The full export of everything, read back
// by `mneme import`, is internal/fullexport's.
package report

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

// SchemaVersion is the version of the JSON export's structure.
const SchemaVersion = 1

// Formats.
const (
	Markdown = "md"
	JSON     = "json"
	HTML     = "html"
)

// batchSize is how many observations are read per query.
const batchSize = 500

// Limits on the per-session aggregates (the timeline itself is unbounded).
const (
	maxFailures = 300
	maxTests    = 300
	maxFiles    = 1000
)

// ParseFormat checks a format name; empty means Markdown.
func ParseFormat(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "md", "markdown":
		return Markdown, nil
	case "json":
		return JSON, nil
	case "html":
		return HTML, nil
	}
	return "", fmt.Errorf("%w: format must be md, json or html, not %q", models.ErrInvalid, s)
}

// ContentType is the media type of a format.
func ContentType(format string) string {
	switch format {
	case JSON:
		return "application/json; charset=utf-8"
	case HTML:
		return "text/html; charset=utf-8"
	}
	return "text/markdown; charset=utf-8"
}

// Request says what to export.
type Request struct {
	// SessionIDs are the sessions, in order. For a project report use
	// SessionsSince.
	SessionIDs []int64
	Format     string
	// Title of the report; empty means the first prompt of the session.
	Title string
	// Progress, when set, is called with the observations written so far
	// and the total.
	Progress func(done, total int64)
	// Now is the generation time (tests pin it).
	Now time.Time
	// Location renders times (default UTC).
	Location *time.Location
	// Person is who the report is for ('' the owner): another person's
	// sessions are shown to them without their transcript path
	// (models.Session.HideFrom).
	Person string
}

// SessionsSince lists the ids of project's sessions started at or after
// since, oldest first.
func SessionsSince(ctx context.Context, store *models.Store, project string, since time.Time) ([]int64, error) {
	return store.SessionIDsSince(ctx, project, since)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Filename is a good download name for a session report, e.g.
// mneme-notes-app-2026-11-21-1432-f0373ac4.md.
func Filename(s *models.Session, format string) string {
	id := s.ClaudeSessionID
	if len(id) > 8 {
		id = id[:8]
	}
	name := fmt.Sprintf("mneme-%s-%s-%s", s.Project, s.StartedAt.UTC().Format("2006-01-02-1504"), id)
	return strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-.") + "." + format
}

// ProjectFilename is the download name of a multi-session report.
func ProjectFilename(project string, since time.Time, format string) string {
	if project == "" {
		project = "all"
	}
	name := fmt.Sprintf("mneme-%s-since-%s", project, since.UTC().Format("2006-01-02"))
	return strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-.") + "." + format
}

// renderer writes one format.
type renderer interface {
	start(title string, multi bool) error
	session(s *sessionData) error // header, summaries
	prompt(p *models.Prompt, number int) error
	call(o *models.Observation) error
	endSession(s *sessionData, a *aggregates) error
	end() error
}

// Export writes the report of req.SessionIDs to w in req.Format.
func Export(ctx context.Context, store *models.Store, w io.Writer, req Request) error {
	format, err := ParseFormat(req.Format)
	if err != nil {
		return err
	}
	if len(req.SessionIDs) == 0 {
		return fmt.Errorf("%w: no session to export", models.ErrNotFound)
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if req.Location == nil {
		req.Location = time.UTC
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var r renderer
	switch format {
	case JSON:
		r = &jsonRenderer{w: bw, now: req.Now}
	case HTML:
		r = &htmlRenderer{w: bw, ctx: ctx, loc: req.Location, now: req.Now}
	default:
		r = &mdRenderer{w: bw, loc: req.Location, now: req.Now}
	}
	var total, done int64
	if req.Progress != nil {
		var err error
		if total, err = store.CountObservationsOf(ctx, req.SessionIDs); err != nil {
			return err
		}
		req.Progress(0, total)
	}
	multi := len(req.SessionIDs) > 1
	title := req.Title
	sessions := make([]*sessionData, 0, len(req.SessionIDs))
	for _, id := range req.SessionIDs {
		sd, err := loadSession(ctx, store, id, req.Location, req.Person)
		if err != nil {
			return err
		}
		sessions = append(sessions, sd)
	}
	if title == "" {
		title = sessions[0].title
		if multi {
			title = fmt.Sprintf("%d sessions of %s", len(sessions), sessions[0].sess.Project)
		}
	}
	if err := r.start(title, multi); err != nil {
		return err
	}
	for _, sd := range sessions {
		if err := r.session(sd); err != nil {
			return err
		}
		agg, err := walk(ctx, store, sd, r, format == JSON, func(n int) {
			done += int64(n)
			if req.Progress != nil {
				req.Progress(done, total)
			}
		})
		if err != nil {
			return err
		}
		if err := r.endSession(sd, agg); err != nil {
			return err
		}
	}
	if err := r.end(); err != nil {
		return err
	}
	return bw.Flush()
}

// sessionData is what is loaded up front for a session: the row, its
// prompts and summaries (small) and its counts.
type sessionData struct {
	sess      *models.Session
	title     string
	prompts   []models.Prompt
	summaries []models.Summary
	memories  []models.Memory // oldest first
	// replacedBy is what replaced each superseded memory of memories, by
	// the superseded one's id.
	replacedBy map[int64]models.Memory
	stats      models.SessionStats
	ledger     models.LedgerTotal
	loc        *time.Location
	person     string // who the report is for ("" for the owner)
}

func loadSession(ctx context.Context, store *models.Store, id int64, loc *time.Location, person string) (*sessionData, error) {
	s, err := store.SessionByID(ctx, id)
	if err != nil {
		return nil, err
	}
	s.HideFrom(person)
	sd := &sessionData{sess: s, loc: loc, person: person}
	if sd.prompts, err = store.PromptsOfSession(ctx, id); err != nil {
		return nil, err
	}
	if sd.summaries, err = store.SummariesOfSession(ctx, id); err != nil {
		return nil, err
	}
	if sd.memories, err = store.Memories(ctx, models.MemoryFilter{SessionID: id}); err != nil {
		return nil, err
	}
	slices.SortFunc(sd.memories, func(a, b models.Memory) int { return cmp.Compare(a.ID, b.ID) })
	var repl []int64
	for _, m := range sd.memories {
		if m.State == models.MemorySuperseded && m.SupersededBy != 0 {
			repl = append(repl, m.SupersededBy)
		}
	}
	if len(repl) > 0 {
		rs, err := store.Memories(ctx, models.MemoryFilter{IDs: repl})
		if err != nil {
			return nil, err
		}
		byID := map[int64]models.Memory{}
		for _, r := range rs {
			byID[r.ID] = r
		}
		sd.replacedBy = map[int64]models.Memory{}
		for _, m := range sd.memories {
			if r, ok := byID[m.SupersededBy]; ok && m.State == models.MemorySuperseded {
				sd.replacedBy[m.ID] = r
			}
		}
	}
	if err := store.CountsOfSession(ctx, id, &sd.stats); err != nil {
		return nil, err
	}
	if sd.ledger, err = store.LedgerOfSession(ctx, id); err != nil {
		return nil, err
	}
	sd.title = "Session " + shortID(s.ClaudeSessionID)
	switch {
	case s.Title != "":
		sd.title = s.Title
	case len(sd.prompts) > 0:
		sd.title = clip(oneLine(sd.prompts[0].Text), 90)
	}
	return sd, nil
}

// walk streams the session's observations in id order, interleaving the
// prompts, feeding the renderer and collecting the aggregates.
func walk(ctx context.Context, store *models.Store, sd *sessionData, r renderer, full bool, progress func(int)) (*aggregates, error) {
	agg := newAggregates(sd.sess)
	next := 0 // index of the next prompt to show
	current := -1
	// Markdown and HTML show titles; failures need the head of their
	// output for the reason. Only JSON carries inputs and outputs whole.
	err := store.EachObservationOf(ctx, sd.sess.ID, full, batchSize, func(batch []models.Observation) error {
		for i := range batch {
			o := &batch[i]
			if o.PromptNumber != current {
				// Show every prompt up to this call's, then its heading.
				for next < len(sd.prompts) && sd.prompts[next].Number <= o.PromptNumber {
					p := &sd.prompts[next]
					if err := r.prompt(p, p.Number); err != nil {
						return err
					}
					next++
				}
				if next == 0 || sd.prompts[next-1].Number != o.PromptNumber {
					if err := r.prompt(nil, o.PromptNumber); err != nil {
						return err
					}
				}
				current = o.PromptNumber
			}
			if err := r.call(o); err != nil {
				return err
			}
			agg.add(o)
		}
		progress(len(batch))
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	for ; next < len(sd.prompts); next++ {
		if err := r.prompt(&sd.prompts[next], sd.prompts[next].Number); err != nil {
			return nil, err
		}
	}
	return agg, nil
}

// memoryKindLabel is a memory kind as a report shows it: "Decision".
func memoryKindLabel(kind string) string {
	if kind == "" {
		return kind
	}
	return strings.ToUpper(kind[:1]) + kind[1:]
}

// memoryVoice is who said m as the report's reader (person, "" for the
// owner) reads it: "you" for the reader's own, "the owner" for the
// owner's in a teammate's report, else models.Memory.Voice ("Claude",
// "bob", "quoted: README.md").
func memoryVoice(m *models.Memory, person string) string {
	switch {
	case person == "":
	case m.Speaker == models.SpeakerUser:
		return "the owner"
	case m.Speaker == models.SpeakerTeammate && m.SpeakerRef == person:
		return "you"
	}
	return m.Voice()
}

// memoryDate is when m was made as a report dates it: "11-27" in the
// year of the session, else the whole date.
func (sd *sessionData) memoryDate(m *models.Memory) string {
	t := m.CreatedAt.In(sd.loc)
	if t.Year() == sd.sess.StartedAt.In(sd.loc).Year() {
		return t.Format("01-02")
	}
	return t.Format(time.DateOnly)
}

// memoryState is a memory's state as a report shows it: "current",
// "current, pinned".
func memoryState(m *models.Memory) string {
	if m.Pinned {
		return m.State + ", pinned"
	}
	return m.State
}

// replacedText says what replaced a superseded memory, "" when nothing
// stored did.
func (sd *sessionData) replacedText(m *models.Memory) string {
	r, ok := sd.replacedBy[m.ID]
	if !ok {
		return ""
	}
	return "replaced by " + ref.Mem(r.ID) + ": " + oneLine(r.Text)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// duration renders a session's length ("1 h 05 min", "3 min 12 s").
func duration(s *models.Session) string {
	if s.EndedAt == nil {
		return "still active"
	}
	d := s.EndedAt.Sub(s.StartedAt).Round(time.Second)
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d s", int(d.Seconds()))
}
