package recall

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/models"
)

// Failures seen before (issue #35): a failure whose signature
// (internal/failsig) an earlier failure of the project had, in another
// session, is answered at once with when that was, whether and how it was
// fixed (the call that redid it successfully, the files changed in
// between, by the summaries' own reading: summarize.Tracker) and the root
// cause remembered then.

// seenCandidates is how many earlier failures of a signature are read:
// the newest fixed one among them is told.
const seenCandidates = 5

// fixWindow bounds the calls read after the earlier failures, in their
// sessions, to learn whether and how they were fixed: all candidates
// together, so a lookup costs at most this many rows.
const fixWindow = 300

// DefaultFailureBudget is how long the failure hint waits for its lookup
// (the related-memory hint's semantic budget, the same mechanism): past
// it, the hook answers without the hint.
const DefaultFailureBudget = 100 * time.Millisecond

// Seen is an earlier failure with the same signature and what came of it.
type Seen struct {
	// Earlier is the failure told: the newest fixed one among the newest
	// few, else the newest.
	Earlier models.Observation
	// Count is how many earlier failures were read (at most
	// seenCandidates).
	Count   int
	Fixed   bool
	FixedBy models.Observation
	// Changes are the file changes between Earlier and its fix (at most
	// five), in order.
	Changes []models.Observation
	// Cause is the root cause remembered in Earlier's session, from its
	// turn on; nil when none is in force.
	Cause *models.Memory
}

// SeenBefore is the newest failure of project with signature stored
// before observation before (0: any) outside session exclude, with what
// came of it; nil when there is none.
func SeenBefore(ctx context.Context, store *models.Store, project, signature string, before, exclude int64) (*Seen, error) {
	earlier, err := store.EarlierFailures(ctx, project, signature, before, exclude, seenCandidates)
	if err != nil || len(earlier) == 0 {
		return nil, err
	}
	var first *Seen
	rows := fixWindow
	for i, e := range earlier {
		if i == 3 || i > 0 && rows <= 0 {
			break // the fix of an older one is seldom the one to tell
		}
		seen, err := fixOf(ctx, store, e, &rows)
		if err != nil {
			return nil, err
		}
		seen.Count = len(earlier)
		if seen.Fixed {
			first = seen
			break
		}
		if first == nil {
			first = seen
		}
	}
	if first.Cause, err = causeOf(ctx, store, first); err != nil {
		return nil, err
	}
	return first, nil
}

// fixOf reads what came of failure e in its session: summarize.Tracker's
// reading of the calls after it, read a few at a time (a fix comes soon
// after its failure, or is seldom found), at most *rows of them, which it
// counts down.
func fixOf(ctx context.Context, store *models.Store, e models.Observation, rows *int) (*Seen, error) {
	t := summarize.Tracker{Max: 1}
	failed := e
	failed.Success = false // a call that succeeded but reported failing tests
	t.Add(failed)
	seen := &Seen{Earlier: e}
	after := e.ID
	for _, n := range []int{20, 80, 200} {
		if n = min(n, *rows); n <= 0 {
			break
		}
		later, err := store.SessionObservationsAfter(ctx, e.SessionID, after, n)
		if err != nil {
			return nil, err
		}
		*rows -= len(later)
		for _, o := range later {
			t.Add(o)
			if f := t.Failures[0]; f.Fixed {
				seen.Fixed, seen.FixedBy = true, f.FixedBy
				return seen, nil
			}
			if o.Success && o.Kind == models.KindFileChange && len(seen.Changes) < 5 {
				seen.Changes = append(seen.Changes, o)
			}
			after = o.ID
		}
		if len(later) < n {
			break
		}
	}
	seen.Changes = nil
	return seen, nil
}

// causeOf is the root cause in force remembered in the session of
// s.Earlier from its turn on (up to its fix's), nearest first.
func causeOf(ctx context.Context, store *models.Store, s *Seen) (*models.Memory, error) {
	mems, err := store.Memories(ctx, models.MemoryFilter{Project: s.Earlier.Project, SessionID: s.Earlier.SessionID,
		Kinds: []string{models.MemoryCause}, States: []string{models.MemoryCurrent}, Limit: 20})
	if err != nil {
		return nil, err
	}
	last := int(^uint(0) >> 1)
	if s.Fixed {
		last = s.FixedBy.PromptNumber
	}
	var best *models.Memory
	for i, m := range mems {
		if m.PromptNumber < s.Earlier.PromptNumber || m.PromptNumber > last {
			continue
		}
		if best == nil || m.PromptNumber < best.PromptNumber {
			best = &mems[i]
		}
	}
	return best, nil
}

// FailureHint answers a failure just stored (PostToolUseFailure, or a
// PostToolUse whose output reports failing tests) whose signature an
// earlier failure of the project had in another session: a few lines
// within failureHintTokens, wrapped in <mneme-context>, saying when it
// was seen, whether and how it was fixed, and the root cause remembered;
// "" when there is no such failure, the hint is off, or this session was
// told of this signature already. The lookup has FailureBudget: past it
// the answer is "" (the hook answers at once without the hint).
func (b *Builder) FailureHint(ctx context.Context, req capture.FailureRequest) (string, error) {
	pol := b.policy()
	inj := pol.Settings.Injection
	if inj.FailureHintTokens <= 0 || req.Signature == "" || slices.Contains(inj.DisabledProjects, req.Project) || pol.ProjectExcluded(req.Project) {
		return "", nil
	}
	if !b.hinted.reserve(req.SessionID, req.Signature) {
		return "", nil
	}
	budget := b.FailureBudget
	if budget <= 0 {
		budget = DefaultFailureBudget
	}
	text, err := within(ctx, budget, func(ctx context.Context) (string, error) {
		seen, err := SeenBefore(ctx, b.Store, req.Project, req.Signature, req.ObservationID, req.SessionID)
		if err != nil || seen == nil {
			return "", err
		}
		return b.seenText(*seen, req.Cwd, BudgetBytes(inj.FailureHintTokens), cleaner{pol}), nil
	})
	if err != nil || text == "" {
		b.hinted.release(req.SessionID, req.Signature)
	}
	if err != nil && b.Log != nil {
		b.Log.Warn("failure hint: no answer within its budget; the hook answers without it", "budget", budget, "err", err)
	}
	return text, nil
}

// within runs f with a deadline of budget and waits for it no longer:
// past it, it returns ctx's error and leaves f to finish on its own (its
// queries fail on the expired context).
func within[T any](ctx context.Context, budget time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// seenText is the hint's text for s, within budget bytes.
func (b *Builder) seenText(s Seen, cwd string, budget int, c cleaner) string {
	now := b.now()
	e := s.Earlier
	more := ""
	if s.Count > 1 {
		more = fmt.Sprintf(", %d times before", s.Count)
		if s.Count >= seenCandidates {
			more = fmt.Sprintf(", %d+ times before", s.Count)
		}
	}
	lines := []string{fmt.Sprintf("- #%d %s (%s%s)", e.ID, c.text(e.Title, 160), Age(now, e.CreatedAt), more)}
	if s.Fixed {
		fix := fmt.Sprintf("- fixed then by #%d %s", s.FixedBy.ID, c.text(s.FixedBy.Title, 120))
		if len(s.Changes) > 0 {
			var changed []string
			for _, o := range s.Changes {
				for _, f := range o.Files {
					changed = append(changed, fmt.Sprintf("%s (#%d)", c.text(relTo(f, cwd), 80), o.ID))
				}
			}
			fix += ", after changing " + strings.Join(changed[:min(len(changed), 3)], ", ")
		}
		lines = append(lines, fix)
	} else {
		lines = append(lines, "- not fixed in that session")
	}
	if m := s.Cause; m != nil {
		lines = append(lines, fmt.Sprintf("- root cause %s: %s", MemoryRef(m.ID), c.text(m.Text, 200)))
	}
	header := "mneme: this failure was seen before in this project (`mneme show <id>` for details):"
	return renderLines(header, lines, budget, c.redact)
}

// relTo is path relative to cwd when it is inside it.
func relTo(path, cwd string) string {
	if cwd = strings.TrimRight(cwd, "/"); cwd != "" && strings.HasPrefix(path, cwd+"/") {
		return strings.TrimPrefix(path, cwd+"/")
	}
	return path
}
