package summarize

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mneme-dev/mneme/models"
)

// MaxObservations bounds how many observations one summary reads: the most
// important and most recent ones of a very long session.
const MaxObservations = 1000

// outputExcerpt is how much of each stored output a summary reads.
const outputExcerpt = 1500

// Input is what a summary is made from: the session, the prompts and
// observations in scope and the last assistant message. A turn summary sees
// one prompt and its tool calls; an intermediate or final summary sees the
// whole session so far.
type Input struct {
	Session      models.Session
	Kind         string
	PromptNumber int
	Prompts      []models.Prompt
	Observations []models.Observation // in order; Output holds an excerpt
	// LastAssistantMessage is Claude's last answer, when it belongs to the
	// scope (a turn summary of an older turn does not get a later answer).
	LastAssistantMessage string
	// Omitted counts observations left out to stay within MaxObservations.
	Omitted int
}

// LastUserMessage is the text of the last prompt in scope.
func (in *Input) LastUserMessage() string {
	if len(in.Prompts) == 0 {
		return ""
	}
	return in.Prompts[len(in.Prompts)-1].Text
}

// LoadInput reads what a summary of the session needs. For a turn, only
// promptNumber's prompt and observations; otherwise the whole session.
func LoadInput(ctx context.Context, store *models.Store, sessionID int64, kind string, promptNumber int) (*Input, error) {
	sess, err := store.SessionByID(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	in := &Input{Session: *sess, Kind: kind, PromptNumber: promptNumber}
	turn := kind == models.SummaryTurn && promptNumber > 0
	n := 0
	if turn {
		n = promptNumber
	}
	work, err := store.LoadSummaryWork(ctx, sessionID, n, outputExcerpt, MaxObservations)
	if err != nil {
		return nil, err
	}
	in.Prompts, in.Observations, in.Omitted = work.Prompts, work.Observations, work.Omitted
	// Session.LastAssistantMessage is the newest answer; it belongs to this
	// scope unless a later prompt has been asked since.
	if !turn || sess.PromptCounter <= promptNumber {
		in.LastAssistantMessage = sess.LastAssistantMessage
	}
	if turn && promptNumber == 0 {
		in.PromptNumber = sess.PromptCounter
	}
	return in, nil
}

// rel shows path relative to the session's directory when it is inside it.
func (in *Input) rel(path string) string {
	cwd := in.Session.Cwd
	if cwd == "" || !filepath.IsAbs(path) {
		return path
	}
	if r, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// Digest renders the input as compact text for an LLM: the prompts, one
// line per tool call (with the error of each failure), and the last answer,
// within maxBytes. Everything in it is stored data, already redacted.
func Digest(in *Input, maxBytes int) string {
	var b strings.Builder
	s := in.Session
	fmt.Fprintf(&b, "Project: %s", s.Project)
	if s.GitBranch != "" {
		fmt.Fprintf(&b, " (branch %s)", s.GitBranch)
	}
	fmt.Fprintf(&b, "\nScope: %s summary", in.Kind)
	if in.Kind == models.SummaryTurn {
		fmt.Fprintf(&b, " of prompt %d", in.PromptNumber)
	}
	b.WriteString("\n")
	byPrompt := map[int][]models.Observation{}
	var orphan []models.Observation
	known := map[int]bool{}
	for _, p := range in.Prompts {
		known[p.Number] = true
	}
	for _, o := range in.Observations {
		if known[o.PromptNumber] {
			byPrompt[o.PromptNumber] = append(byPrompt[o.PromptNumber], o)
		} else {
			orphan = append(orphan, o)
		}
	}
	writeObs := func(o models.Observation) {
		status := ""
		if !o.Success {
			status = " [FAILED]"
		}
		fmt.Fprintf(&b, "  - %s%s\n", o.Title, status)
		if !o.Success {
			if reason := FailureReason(o.Output); reason != "" {
				fmt.Fprintf(&b, "    error: %s\n", reason)
			}
		}
	}
	for _, p := range in.Prompts {
		fmt.Fprintf(&b, "\nPrompt %d: %s\n", p.Number, clip(oneLine(p.Text), 1200))
		for _, o := range byPrompt[p.Number] {
			writeObs(o)
		}
	}
	if len(orphan) > 0 {
		b.WriteString("\nOther tool calls:\n")
		for _, o := range orphan {
			writeObs(o)
		}
	}
	if in.Omitted > 0 {
		fmt.Fprintf(&b, "\n(%d less important tool calls omitted)\n", in.Omitted)
	}
	if in.LastAssistantMessage != "" {
		fmt.Fprintf(&b, "\nClaude's last answer:\n%s\n", clip(in.LastAssistantMessage, 3000))
	}
	out := b.String()
	if len(out) > maxBytes {
		// Keep the head (the request) and the tail (the outcome).
		head := maxBytes * 2 / 3
		tail := maxBytes - head - 40
		start := len(out) - tail
		for start < len(out) && !runeStart(out[start]) {
			start++
		}
		out = clip(out, head) + "\n[… record shortened …]\n" + out[start:]
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
