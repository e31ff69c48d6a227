// Package summarize turns a turn or a whole session into a structured
// summary (request, investigated, learned, completed, next steps).
//
// Three summarizers exist: the heuristic one (the default: offline,
// deterministic, zero tokens), one that runs the user's own `claude -p`, and
// one that calls the Anthropic Messages API. A persisted queue in the worker
// runs them in the background with retries; a failed LLM summary falls back
// to the heuristic one and says so. LLM calls are recorded in the token
// ledger, and a daily token budget stops them when it is spent.
package summarize

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/memory"
	"github.com/mneme-dev/mneme/internal/memory/extract"
	"github.com/mneme-dev/mneme/models"
)

// Generator names, stored in Summary.Generator. They match the values of
// settings.summarizer.kind.
const (
	GenHeuristic = "heuristic"
	GenClaudeCLI = "claude-cli"
	GenAPI       = "anthropic-api"
)

// Summarizer produces a summary of what in describes.
type Summarizer interface {
	// Name is the generator name stored with the summary.
	Name() string
	// Summarize summarizes in. LLM summarizers report the tokens they used
	// in the result, even when they fail after the call.
	Summarize(ctx context.Context, in *Input) (Result, error)
}

// Result is a summary as a summarizer produced it.
type Result struct {
	Request      string
	Investigated string
	Learned      string
	Completed    string
	NextSteps    string
	Generator    string
	Note         string
	Model        string
	InputTokens  int64
	OutputTokens int64
	CostUSD      float64
	// Memories are the decisions, constraints, causes and todos an LLM
	// summarizer stated (nil when it gave none: the extractor reads the
	// answer instead).
	Memories []memory.Statement
}

// ErrMalformed is returned when an LLM answered something that is not the
// strict summary format. It is permanent (hookwire.ErrPermanent), as are a
// missing binary and a rejected API key: the queue does not retry them
// and falls back to the heuristic summary at once.
var ErrMalformed = hookwire.Permanent(errors.New("answer is not in the summary format"))

// fields are the labels of the strict output format, in order.
var fields = []string{"REQUEST", "INVESTIGATED", "LEARNED", "COMPLETED", "NEXT_STEPS"}

// FormatInstructions is the part of the prompt that fixes the output format.
const FormatInstructions = `Answer with exactly these labelled lines and nothing else, each label in capitals at the start of its line; each of the first five is followed by one to three plain sentences (no markdown, no bullet lists; write "none" when there is nothing to say):
REQUEST: what the user asked for
INVESTIGATED: what was examined or debugged, and why things failed
LEARNED: facts discovered that matter later (causes of failures, how the code works)
COMPLETED: what was actually done: files created or changed, tests run and their results
NEXT_STEPS: what remains to do, or "none"
MEMORIES: then, on the lines below this label, one line per statement worth carrying into later sessions, each beginning with its kind: "DECISION:" (what was chosen, over what), "CONSTRAINT:" (a rule the user or the project set), "CAUSE:" (the root cause of a failure) or "TODO:" (a next step left open); only what the record states, at most 8 lines; write "MEMORIES: none" when there is none`

// SystemPrompt is the instruction given to LLM summarizers.
const SystemPrompt = `You summarize one Claude Code coding session (or one turn of it) for the developer's future self and colleagues. Be concrete: name files, commands, test results and error causes from the record. Never invent facts that are not in the record. ` + FormatInstructions

// memoriesLabel opens the optional list of memories after the five
// fields: an answer without it keeps the extractor's reading.
const memoriesLabel = "MEMORIES"

// memoryLabels are the kinds a line of the memories list may begin with.
var memoryLabels = map[string]extract.Kind{
	"DECISION": extract.KindDecision, "DECISIONS": extract.KindDecision, "DECIDED": extract.KindDecision,
	"CONSTRAINT": extract.KindConstraint, "CONSTRAINTS": extract.KindConstraint, "RULE": extract.KindConstraint,
	"CAUSE": extract.KindCause, "ROOT CAUSE": extract.KindCause, "ROOT_CAUSE": extract.KindCause,
	"TODO": extract.KindTodo, "TO DO": extract.KindTodo, "TODOS": extract.KindTodo,
}

// maxStated bounds the memories kept from one answer.
const maxStated = extract.MaxPerAnswer

// statedMemory reads one line of the memories list ("- DECISION: use
// X", "**Cause:** …", "1. TODO — …"); false for any other line.
func statedMemory(line string) (memory.Statement, bool) {
	line = strings.TrimLeft(line, "*#-•0123456789.) \t")
	label, rest, ok := strings.Cut(line, ":")
	if !ok {
		label, rest, ok = strings.Cut(line, " — ")
	}
	if !ok {
		return memory.Statement{}, false
	}
	k, known := memoryLabels[strings.ToUpper(strings.Trim(label, "*_ \t"))]
	if !known {
		return memory.Statement{}, false
	}
	rest = strings.TrimSpace(strings.TrimLeft(rest, "*_ \t"))
	if strings.EqualFold(strings.TrimRight(rest, "."), "none") {
		return memory.Statement{}, false
	}
	m, ok := extract.Stated(k, rest)
	return memory.Statement{Memory: m, Source: models.SourceSummary}, ok
}

// MaxField bounds each of the five fields of a stored summary.
const MaxField = 2000

// ParseStrict reads the strict five-label format. Every label must appear
// exactly once; a label's text runs until the next label. Anything else is
// ErrMalformed. Fields are not cut (see MaxField): the queue cuts them
// after the privacy pipeline has read them whole.
func ParseStrict(text string) (Result, error) {
	var r Result
	vals := map[string]*strings.Builder{}
	var cur *strings.Builder
	inMemories := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(strings.TrimLeft(line, "*#- "))
		label, rest, ok := cutLabel(trimmed)
		if ok && label == memoriesLabel {
			if inMemories || r.Memories != nil {
				return r, fmt.Errorf("%w: %s appears twice", ErrMalformed, label)
			}
			// Stated, the list replaces the extractor's reading, even
			// empty ("none").
			inMemories, cur, r.Memories = true, nil, []memory.Statement{}
			trimmed = rest
			ok = false
		}
		if inMemories && !ok {
			if st, isMemory := statedMemory(trimmed); isMemory && len(r.Memories) < maxStated {
				r.Memories = append(r.Memories, st)
			}
			continue // other lines of the list are not a field's
		}
		inMemories = false
		if ok {
			if vals[label] != nil {
				return r, fmt.Errorf("%w: %s appears twice", ErrMalformed, label)
			}
			cur = &strings.Builder{}
			vals[label] = cur
			cur.WriteString(strings.TrimSpace(rest))
			continue
		}
		if cur == nil {
			if trimmed != "" {
				return r, fmt.Errorf("%w: text before REQUEST", ErrMalformed)
			}
			continue
		}
		if trimmed != "" {
			if cur.Len() > 0 {
				cur.WriteByte(' ')
			}
			cur.WriteString(trimmed)
		}
	}
	get := func(label string) (string, error) {
		b := vals[label]
		if b == nil {
			return "", fmt.Errorf("%w: %s missing", ErrMalformed, label)
		}
		v := strings.TrimSpace(b.String())
		if strings.EqualFold(strings.TrimRight(v, "."), "none") {
			v = ""
		}
		return v, nil // cut to MaxField by the queue, once cleaned
	}
	var err error
	dst := []*string{&r.Request, &r.Investigated, &r.Learned, &r.Completed, &r.NextSteps}
	for i, f := range fields {
		if *dst[i], err = get(f); err != nil {
			return r, err
		}
	}
	if r.Request == "" && r.Completed == "" && r.Investigated == "" {
		return r, fmt.Errorf("%w: all fields empty", ErrMalformed)
	}
	return r, nil
}

func cutLabel(line string) (label, rest string, ok bool) {
	for _, f := range append(fields[:len(fields):len(fields)], memoriesLabel) {
		for _, alias := range []string{f, strings.ReplaceAll(f, "_", " ")} {
			if len(line) > len(alias) && strings.EqualFold(line[:len(alias)], alias) {
				after := strings.TrimLeft(line[len(alias):], "*")
				if strings.HasPrefix(after, ":") {
					return f, strings.TrimLeft(after[1:], "* "), true
				}
			}
		}
	}
	return "", "", false
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !runeStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// toSummary turns a result into the row to store.
func toSummary(r Result, in *Input) models.Summary {
	return models.Summary{
		SessionID: in.Session.ID, Project: in.Session.Project, PromptNumber: in.PromptNumber, Kind: in.Kind,
		Request: r.Request, Investigated: r.Investigated, Learned: r.Learned, Completed: r.Completed, NextSteps: r.NextSteps,
		LastUserMessage: clip(in.LastUserMessage(), 2000), LastAssistantMessage: clip(in.LastAssistantMessage, 4000),
		Generator: r.Generator, Note: r.Note,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD,
	}
}

// Rebuilder is how a forget writes anew the summaries made from what it
// deletes (models.SummaryRebuilder): heuristically, from what their scope
// still holds, whatever wrote them first. An LLM may have put anything of
// its input in its own words, so only a summary made again without the
// forgotten rows is known not to hold them.
func Rebuilder() *models.SummaryRebuilder {
	return &models.SummaryRebuilder{OutputBytes: outputExcerpt, Limit: MaxObservations, Build: rebuild}
}

// rebuild is Rebuilder's Build.
func rebuild(sess models.Session, old models.Summary, work *models.SummaryWork, answer string) (models.Summary, any) {
	in := &Input{Session: sess, Kind: old.Kind, PromptNumber: old.PromptNumber, Prompts: work.Prompts,
		Observations: work.Observations, Omitted: work.Omitted, LastAssistantMessage: answer}
	sum := toSummary(Heuristic{}.Build(in), in)
	for _, f := range []*string{&sum.Request, &sum.Investigated, &sum.Learned, &sum.Completed, &sum.NextSteps} {
		*f = clip(*f, MaxField)
	}
	note := "rebuilt after a forget"
	if sum.Note != "" {
		note = sum.Note + "; " + note
	}
	sum.ID, sum.Note, sum.CreatedAt = old.ID, note, old.CreatedAt
	return sum, SummaryEvent(&sum)
}
