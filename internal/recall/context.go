package recall

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/failsig"
	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// Footer is the last line of every injected block: how to get details.
const Footer = "Details: run `mneme search <words>`, or `mneme show <id>` for an observation by its #id."

// section is a titled list of whole lines, in priority order.
type section struct {
	title string
	items []string
	// ids are the memories of the items, when they are memories; shown
	// is how many of the items render put in.
	ids   []int64
	shown int
}

// SessionContext builds the <mneme-context> block for a starting session. It
// returns "" when injection is off for the project or nothing is known yet.
func (b *Builder) SessionContext(ctx context.Context, req capture.ContextRequest) (string, error) {
	pol := b.policy()
	inj := pol.Settings.Injection
	if slices.Contains(inj.DisabledProjects, req.Project) || pol.ProjectExcluded(req.Project) {
		return "", nil
	}
	budget := BudgetBytes(inj.MaxInjectTokens)
	if budget == 0 {
		return "", nil
	}
	secs, err := b.sections(ctx, req, budget*pol.Settings.Memory.BudgetShare/100, cleaner{pol})
	if err != nil {
		return "", err
	}
	out := render(req.Project, secs, budget, cleaner{pol}.redact)
	if req.SessionID != 0 {
		// The memories Claude now has in its context are not hinted
		// again on this session's prompts (Related).
		for _, sec := range secs {
			if len(sec.ids) > 0 {
				b.injected.add(req.SessionID, sec.ids[:sec.shown])
			}
		}
	}
	return out, nil
}

// render fills the budget with whole lines, section by section in priority
// order, and stops at the first item that does not fit: nothing of lower
// priority is ever shown in place of something more important. A section's
// title goes in only with its first item. The result is at most budget
// bytes, or "" when no item fits. Each line is redacted just before it is
// measured. Each section's shown is set to how many of its items went in.
func render(project string, secs []section, budget int, redact func(string) string) string {
	header := "# mneme: memory of project " + cleaner{}.text(project, 80)
	fixed := len(OpenTag) + 1 + len(header) + 1 + len(Footer) + 1 + len(CloseTag)
	left := budget - fixed
	var lines []string
fill:
	for i := range secs {
		s := &secs[i]
		titled := false
		for _, item := range s.items {
			item = redact(item)
			cost := len(item) + 1
			if !titled {
				cost += len(s.title) + 2 // a blank line, then the title
			}
			if cost > left {
				break fill
			}
			if !titled {
				lines = append(lines, "", s.title)
				titled = true
			}
			lines = append(lines, item)
			left -= cost
			s.shown++
		}
	}
	if len(lines) == 0 {
		return ""
	}
	var out strings.Builder
	out.Grow(budget)
	out.WriteString(OpenTag + "\n" + header + "\n")
	for _, l := range lines {
		out.WriteString(l + "\n")
	}
	out.WriteString(Footer + "\n" + CloseTag)
	return out.String()
}

// sections gathers the candidate lines in priority order:
//  1. after compact, the session's own recent work;
//  2. the memories in force (decisions, constraints, causes, todos),
//     within memShare bytes;
//  3. the latest sessions, from their summaries (or first prompt and last
//     answer when there is none yet);
//  4. unresolved failures;
//  5. what sessions learned and files changed (and, for a session from
//     before memories existed, the decisions of its last answer);
//  6. the most important other observations.
//
// The observations are the newest inj.Observations distinct ones: routine
// calls that repeat a newer one with other numbers are folded into it
// (foldRoutine), so a long run of them does not push older failures,
// decisions and changes out.
//
// After resume, only what happened since the session was last active.
func (b *Builder) sections(ctx context.Context, req capture.ContextRequest, memShare int, c cleaner) ([]section, error) {
	inj := c.p.Settings.Injection
	st := b.Store
	var since time.Time
	if req.Source == "resume" && req.SessionID != 0 {
		t, err := st.LastActive(ctx, req.SessionID)
		if err != nil {
			return nil, err
		}
		since = t
	}
	var secs []section
	if req.Source == "compact" && req.SessionID != 0 {
		own, err := b.ownWork(ctx, req.SessionID, inj.Observations, c)
		if err != nil {
			return nil, err
		}
		secs = append(secs, own)
	}
	mems, err := b.memoriesSection(ctx, req.Project, req.Person, memShare, c)
	if err != nil {
		return nil, err
	}
	secs = append(secs, mems)

	sessions, err := st.RecentSessions(ctx, req.Project, req.SessionID, since, inj.Sessions)
	if err != nil {
		return nil, err
	}
	var sums map[int64]models.Summary
	if inj.IncludeSummaries {
		if sums, err = st.LatestSummaries(ctx, sessionIDs(sessions)); err != nil {
			return nil, err
		}
	}
	firsts, err := st.FirstPrompts(ctx, sessionIDs(sessions))
	if err != nil {
		return nil, err
	}
	// A session that produced memories is said by them; one from before
	// memories existed gets its last answer's decisions as before.
	withMems, err := st.SessionsWithMemories(ctx, sessionIDs(sessions))
	if err != nil {
		return nil, err
	}
	sessSec := section{title: "## Recent sessions"}
	decisions := section{title: "## Decisions and files changed"}
	for _, s := range sessions {
		line := sessionLine(s, sums[s.ID], firsts[s.ID], c)
		if line != "" {
			sessSec.items = append(sessSec.items, line)
		}
		day := " (" + s.StartedAt.Format(time.DateOnly) + ")"
		if !withMems[s.ID] {
			for _, d := range decisionsOf(s.LastAssistantMessage, line, c) {
				decisions.items = append(decisions.items, "- "+d+day)
			}
		}
		if sum, ok := sums[s.ID]; ok && sum.Learned != "" {
			decisions.items = append(decisions.items, "- "+c.text(sum.Learned, 300)+day)
		}
	}

	var obs []models.Observation
	like := map[int64]int{}
	if inj.Observations > 0 {
		if obs, err = st.RecallObservations(ctx, models.RecallFilter{
			Project: req.Project, ExcludeSession: req.SessionID, Since: since, Limit: inj.Observations * foldWindow,
		}); err != nil {
			return nil, err
		}
		obs, like = foldRoutine(obs, inj.Observations)
	}
	status, err := b.fileStatus(ctx, obsIDs(obs))
	if err != nil {
		return nil, err
	}
	failed := unresolvedFailures(obs)
	failSec := section{title: "## Unresolved failures"}
	listed := map[int64]bool{}
	// A failure seen again (the same signature: the same test, the same
	// error) is one line, its newest, with how many more.
	sigLine, again := map[string]int{}, map[int]int{}
	for _, o := range failed {
		listed[o.ID] = true
		if i, ok := sigLine[o.Signature]; ok && o.Signature != "" {
			again[i]++
			continue
		}
		sigLine[o.Signature] = len(failSec.items)
		failSec.items = append(failSec.items, obsLine(named(o), c)+changedMark(status[o.ID]))
	}
	for i, n := range again {
		failSec.items[i] += fmt.Sprintf(" +%d like it", n)
	}
	cwd := st.ProjectCwd(ctx, req.Project)
	decisions.items = append(decisions.items, filesChanged(obs, status, cwd, c)...)

	notable := section{title: "## Notable recent activity"}
	rest := make([]models.Observation, 0, len(obs))
	for _, o := range obs {
		// Failures fixed later stay worth knowing ("it failed, then this
		// fixed it"); successful file changes are already listed above.
		if !listed[o.ID] && (o.Kind != models.KindFileChange || !o.Success) {
			rest = append(rest, o)
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Importance > rest[j].Importance })
	for _, o := range rest {
		line := obsLine(o, c) + changedMark(status[o.ID])
		if !o.Success {
			line = strings.Replace(line, " [FAILED] (", " [failed, fixed later] (", 1)
		}
		if n := like[o.ID]; n > 0 {
			line += fmt.Sprintf(" +%d like it", n)
		}
		notable.items = append(notable.items, line)
	}
	return append(secs, sessSec, failSec, decisions, notable), nil
}

// ownWork is the compacted session's own recent work: its latest prompts
// and its most recent observations, newest first.
func (b *Builder) ownWork(ctx context.Context, sessionID int64, limit int, c cleaner) (section, error) {
	sec := section{title: "## This session before compaction"}
	prompts, err := b.Store.LatestPrompts(ctx, sessionID, 3)
	if err != nil {
		return sec, err
	}
	for _, p := range prompts {
		if t := c.text(p.Text, 300); t != "" {
			sec.items = append(sec.items, fmt.Sprintf("- prompt %d: %s", p.Number, t))
		}
	}
	if limit > 0 {
		obs, err := b.Store.RecallObservations(ctx, models.RecallFilter{SessionID: sessionID, Limit: limit})
		if err != nil {
			return sec, err
		}
		for _, o := range obs {
			sec.items = append(sec.items, obsLine(o, c))
		}
	}
	return sec, nil
}

func obsIDs(obs []models.Observation) []int64 {
	ids := make([]int64, len(obs))
	for i, o := range obs {
		ids[i] = o.ID
	}
	return ids
}

func sessionIDs(ss []models.Session) []int64 {
	ids := make([]int64, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	return ids
}

// sessionLine is one line per session: its date and what was asked, done
// and left to do, from the summary when there is one.
func sessionLine(s models.Session, sum models.Summary, first string, c cleaner) string {
	var parts []string
	if sum.ID != 0 {
		if t := c.text(sum.Request, 160); t != "" {
			parts = append(parts, "asked: "+t)
		}
		if t := c.text(sum.Completed, 200); t != "" {
			parts = append(parts, "done: "+t)
		}
		if t := c.text(sum.NextSteps, 160); t != "" {
			parts = append(parts, "next: "+t)
		}
	}
	if len(parts) == 0 {
		if t := c.text(first, 160); t != "" {
			parts = append(parts, "asked: "+t)
		}
		if t := c.text(s.LastAssistantMessage, 200); t != "" {
			parts = append(parts, "last answer: "+t)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "- " + s.StartedAt.UTC().Format("2006-01-02 15:04") + " — " + strings.Join(parts, " · ")
}

// obsLine is one observation on one line, with its id and date.
func obsLine(o models.Observation, c cleaner) string {
	mark := ""
	if !o.Success {
		mark = " [FAILED]"
	}
	return fmt.Sprintf("- #%d %s%s (%s)", o.ID, c.text(o.Title, 200), mark, o.CreatedAt.UTC().Format(time.DateOnly))
}

// named is failure o with its title naming what failed (the failing
// tests or the error's class, from its signature) when it does not yet:
// a title kept from before titles said what happened, or cut short.
func named(o models.Observation) models.Observation {
	class := failsig.ClassOf(o.Signature)
	if class == "" {
		return o
	}
	for _, name := range strings.Split(strings.TrimSuffix(class, ", …"), ", ") {
		if !strings.Contains(o.Title, name) {
			o.Title += " — " + class
			break
		}
	}
	return o
}

// failureKeys name what a later success must share to resolve a failure:
// the same Bash command, or the same program and subcommand with other
// flags or arguments (`go build ./...`, then `go build -o bin/app .`), or
// one of the same files.
func failureKeys(o models.Observation) []string {
	var keys []string
	if o.ToolName == "Bash" && strings.TrimSpace(o.Input) != "" {
		keys = append(keys, "cmd:"+strings.Join(strings.Fields(o.Input), " "))
		if f := shape.CommandFamily(o.Input); f != "" {
			keys = append(keys, "family:"+f)
		}
	}
	for _, f := range o.Files {
		keys = append(keys, "file:"+f)
	}
	return keys
}

// unresolvedFailures returns the failures of obs (newest first) that no
// later success of the same command or file followed, newest first.
func unresolvedFailures(obs []models.Observation) []models.Observation {
	resolved := map[string]bool{} // keys seen succeeding later (obs is newest first)
	var out []models.Observation
	for _, o := range obs {
		keys := failureKeys(o)
		if o.Success {
			for _, k := range keys {
				resolved[k] = true
			}
			continue
		}
		fixed := false
		for _, k := range keys {
			fixed = fixed || resolved[k]
		}
		if !fixed {
			out = append(out, o)
		}
	}
	return out
}

// filesChanged is one line per changed file: how often, the latest id.
// A file changed since its latest recorded change (outside mneme's view)
// is marked "changed since"; one that is gone is left out.
func filesChanged(obs []models.Observation, status map[int64]map[string]string, cwd string, c cleaner) []string {
	type agg struct {
		n      int
		latest models.Observation
	}
	var order []string
	seen := map[string]*agg{}
	for _, o := range obs { // newest first
		if o.Kind != models.KindFileChange || !o.Success {
			continue
		}
		for _, f := range o.Files {
			if a, ok := seen[f]; ok {
				a.n++
				continue
			}
			seen[f] = &agg{n: 1, latest: o}
			order = append(order, f)
		}
	}
	out := make([]string, 0, len(order))
	for _, f := range order {
		a := seen[f]
		name := f
		if cwd != "" && strings.HasPrefix(f, cwd+"/") {
			name = strings.TrimPrefix(f, cwd+"/")
		}
		mark := ""
		switch status[a.latest.ID][f] {
		case filestate.Gone:
			continue
		case filestate.Changed:
			mark = ", changed since"
		}
		out = append(out, fmt.Sprintf("- changed `%s` (%d×, latest #%d, %s%s)", c.text(name, 160), a.n, a.latest.ID,
			a.latest.CreatedAt.UTC().Format(time.DateOnly), mark))
	}
	return out
}
