package recall

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/models"
)

// fileCandidates is how many of a file's newest observations the gate
// looks at to pick its few lines.
const fileCandidates = 50

// FileContext answers the file gate (PreToolUse) for a file Claude is about
// to read or edit: at most fileRecallCount one-line memories of it from
// earlier sessions, by priority (failures that touched it and whether a
// later change fixed them, session summaries naming it, its last changes),
// each with its #id and age, within fileRecallTokens, wrapped in
// <mneme-context>. A memory whose file changed since it was recorded is
// marked "(changed since)", one whose file is gone "(file gone since)":
// the gate is about the file as it is now, and an old failure of a
// changed file is still worth a line. Each file is answered once per
// session; "" when the gate is off, the file was answered already or
// nothing is known of it.
func (b *Builder) FileContext(ctx context.Context, req capture.FileRequest) (string, error) {
	pol := b.policy()
	inj := pol.Settings.Injection
	if !inj.FileRecallEnabled || inj.FileRecallCount <= 0 || inj.FileRecallTokens <= 0 || req.Path == "" ||
		slices.Contains(inj.DisabledProjects, req.Project) || pol.ProjectExcluded(req.Project) ||
		pol.ExcludedBy(req.Cwd, "", []string{req.Path}) != "" {
		return "", nil // a file the privacy rules exclude gets nothing, not even summaries naming it
	}
	if !b.given.reserve(req.ClaudeSessionID, req.Path) {
		return "", nil
	}
	text, err := b.fileContext(ctx, req, inj.FileRecallCount, BudgetBytes(inj.FileRecallTokens), cleaner{pol})
	if err != nil || text == "" {
		b.given.release(req.ClaudeSessionID, req.Path)
	}
	return text, err
}

func (b *Builder) fileContext(ctx context.Context, req capture.FileRequest, count, budget int, c cleaner) (string, error) {
	mems, err := b.Store.FileMemories(ctx, req.Project, req.Path, req.SessionID, fileCandidates)
	if err != nil {
		return "", err
	}
	var sums []models.SummaryMention
	if match := FTSPhrase(filepath.Base(req.Path)); match != "" {
		if sums, err = b.Store.SummariesMentioning(ctx, req.Project, match, req.SessionID, 3); err != nil {
			return "", err
		}
	}
	memos, err := b.Store.Memories(ctx, models.MemoryFilter{Project: req.Project, States: []string{models.MemoryCurrent}, File: req.Path, Limit: count})
	if err != nil {
		return "", err
	}
	if len(mems) == 0 && len(sums) == 0 && len(memos) == 0 {
		return "", nil
	}
	now := b.now()
	check := filestate.NewChecker()
	mark := func(m models.FileMemory) string {
		switch check.Status(filestate.Of(m.State)) {
		case filestate.Changed:
			return ", changed since"
		case filestate.Gone:
			return ", file gone since"
		}
		return ""
	}
	var lines []string
	for i, m := range mems { // newest first
		if m.Success {
			continue
		}
		fix := "not fixed"
		for _, later := range mems[:i] {
			if later.Success && later.Kind == models.KindFileChange {
				fix = fmt.Sprintf("fixed by #%d", later.ID) // the last one seen is the nearest
			}
		}
		lines = append(lines, fmt.Sprintf("- #%d %s [FAILED, %s] (%s%s)", m.ID, c.text(m.Title, 200), fix, Age(now, m.CreatedAt), mark(m)))
	}
	// The decisions, constraints and causes in force that name the file.
	for _, m := range memos {
		if pol := b.policy(); pol.Settings.Memory.KindEnabled(m.Kind) {
			lines = append(lines, memoryLine(m, check, c, memoryWho{person: capture.PersonFrom(ctx), now: now, age: Age(now, m.CreatedAt)}))
		}
	}
	base := filepath.Base(req.Path)
	summarized := false
	for _, s := range sums { // the newest that names the file in one of these parts
		if summarized {
			break
		}
		// The part of the summary that names the file: a decision first
		// (what was merely looked at says nothing the gate does not).
		for _, part := range []struct{ label, text string }{
			{"learned", s.Learned}, {"done", s.Completed}, {"next", s.NextSteps},
		} {
			if strings.Contains(part.text, base) {
				lines = append(lines, fmt.Sprintf("- a session summary, %s: %s (%s)", part.label, c.text(part.text, 200), Age(now, s.CreatedAt)))
				summarized = true
				break
			}
		}
	}
	for _, m := range mems {
		if m.Success && m.Kind == models.KindFileChange {
			lines = append(lines, fmt.Sprintf("- #%d %s (%s%s)", m.ID, c.text(m.Title, 200), Age(now, m.CreatedAt), mark(m)))
		}
	}
	if len(lines) > count {
		lines = lines[:count]
	}
	name := req.Path
	if req.Cwd != "" && strings.HasPrefix(name, strings.TrimRight(req.Cwd, "/")+"/") {
		name = strings.TrimPrefix(name, strings.TrimRight(req.Cwd, "/")+"/")
	}
	header := "mneme: memory of file " + c.text(name, 160) + " from earlier sessions (`mneme show <id>` for details):"
	return renderLines(header, lines, budget, c.redact), nil
}

// renderLines wraps header and as many whole lines as fit in budget bytes
// (in order, stopping at the first that does not) in <mneme-context>; ""
// when none fits.
func renderLines(header string, lines []string, budget int, redact func(string) string) string {
	header = redact(header)
	left := budget - (len(OpenTag) + 1 + len(header) + 1 + len(CloseTag))
	var out strings.Builder
	n := 0
	for _, l := range lines {
		l = redact(l)
		if len(l)+1 > left {
			break
		}
		if n == 0 {
			out.WriteString(OpenTag + "\n" + header + "\n")
		}
		out.WriteString(l + "\n")
		left -= len(l) + 1
		n++
	}
	if n == 0 {
		return ""
	}
	out.WriteString(CloseTag)
	return out.String()
}

// Age says how long ago t was, in the largest whole unit: "just now",
// "5m ago", "3h ago", "2d ago".
func Age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}

// FTSPhrase is name as an FTS5 phrase of its letter and digit runs
// ("notes.md" → `"notes md"`), or "" when it has none.
func FTSPhrase(name string) string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	if len(words) == 0 {
		return ""
	}
	return `"` + strings.Join(words, " ") + `"`
}

// given remembers, per session, what was given it: the files the gate
// answered (so each is answered once), the memories its context held
// (so the prompt hints do not repeat them). It is this worker's: after a
// restart, or for a session another replica served (team mode),
// something may be given a second time. It is bounded: past
// maxGivenSessions sessions, or maxGivenItems items of one, it starts
// afresh.
type given[S, K comparable] struct {
	mu sync.Mutex
	m  map[S]map[K]bool
}

const (
	maxGivenSessions = 4096
	maxGivenItems    = 10000
)

// set is session's set, made (and the bounds kept) if need be; the
// caller holds mu.
func (g *given[S, K]) set(session S) map[K]bool {
	if g.m == nil || len(g.m) >= maxGivenSessions {
		g.m = map[S]map[K]bool{}
	}
	items := g.m[session]
	if items == nil || len(items) >= maxGivenItems {
		items = map[K]bool{}
		g.m[session] = items
	}
	return items
}

// reserve marks k as given to session and reports whether it was not
// already; release undoes it when nothing was given after all.
func (g *given[S, K]) reserve(session S, k K) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	items := g.set(session)
	if items[k] {
		return false
	}
	items[k] = true
	return true
}

func (g *given[S, K]) release(session S, k K) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.m[session], k)
}

// add marks ks as given to session.
func (g *given[S, K]) add(session S, ks []K) {
	if len(ks) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	items := g.set(session)
	for _, k := range ks {
		items[k] = true
	}
}

// all is what session was given, in no order.
func (g *given[S, K]) all(session S) []K {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []K
	for k := range g.m[session] {
		out = append(out, k)
	}
	return out
}

// fileStatus is filestate.Statuses over the builder's store.
func (b *Builder) fileStatus(ctx context.Context, ids []int64) (map[int64]map[string]string, error) {
	return filestate.Statuses(ctx, b.Store, ids)
}

// changedMark is " (changed since)" when one of the files changed or is
// gone since the memory was recorded, else "".
func changedMark(files map[string]string) string {
	for _, st := range files {
		if filestate.Stale(st) {
			return " (changed since)"
		}
	}
	return ""
}
