package fullexport

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// Checking a full export's session before it is restored: its rows are
// written back as they are (models.Tx.Restore), so a value capture would never
// store must not get in either. A prompt counter near the integers' end
// made the session's next prompt fail (an overflow the database answers
// with a float), and with it, through the hook's spool, every event
// behind it. So every value is checked against what capture stores:
// ranges, enums, times. (A prompt number above the counter, which would
// collide with the session's next prompt, moves the counter up instead:
// see Restore.)

// observationKinds are the kinds capture stores.
var observationKinds = map[string]bool{
	models.KindBash: true, models.KindTest: true, models.KindFileChange: true, models.KindRead: true, models.KindSearch: true, models.KindWeb: true,
	models.KindAgent: true, models.KindMCP: true, models.KindFailure: true, models.KindExcluded: true, models.KindToolUse: true,
}

// commandKinds are the values of Observation.CommandKind.
var commandKinds = map[string]bool{"": true, models.CommandTest: true, models.CommandShell: true, models.CommandUnclassified: true}

// summaryKinds are the kinds of summary.
var summaryKinds = map[string]bool{models.SummaryTurn: true, models.SummaryIntermediate: true, models.SummaryFinal: true}

// memorySources are where a memory may come from.
var memorySources = map[string]bool{models.SourceAnswer: true, models.SourcePrompt: true, models.SourceSummary: true, models.SourceClaude: true, models.SourceUser: true}

// maxMemoryNames bounds the files, identifiers and terms of a restored
// memory (extraction keeps a few dozen).
const maxMemoryNames = 1000

// sessionStatuses are a session's statuses ("" is taken as active).
var sessionStatuses = map[string]bool{"": true, models.StatusActive: true, models.StatusCompleted: true}

// restoreEarliest is the earliest time a restored row may carry (a clock
// reset to the epoch is possible; before it, not).
var restoreEarliest = time.Unix(0, 0).UTC()

// restoreClockSkew is how far past now a restored time may be (a machine
// whose clock ran ahead).
const restoreClockSkew = 366 * 24 * time.Hour

// Check tells whether the session r may be restored, as of now: nil, or an error
// matching models.ErrInvalid that names the first field refused, as
// "prompts[2].number" (the export's own JSON names), its value and what it
// must be.
func Check(r *models.RestoreRows, now time.Time) error {
	c := rowChecker{latest: now.Add(restoreClockSkew)}
	s := &r.Session
	c.ok(s.ClaudeSessionID != "", "session.claudeSessionId", "", "is missing")
	c.ok(sessionStatuses[s.Status], "session.status", s.Status, "must be active or completed")
	c.count("session.promptCounter", int64(s.PromptCounter), 0, models.MaxPromptCounter)
	c.time("session.startedAt", s.StartedAt)
	if s.EndedAt != nil {
		c.time("session.endedAt", *s.EndedAt)
	}
	for i := range r.Prompts {
		p := &r.Prompts[i]
		f := fmt.Sprintf("prompts[%d].", i)
		c.count(f+"number", int64(p.Number), 1, models.MaxPromptCounter)
		c.time(f+"createdAt", p.CreatedAt)
	}
	for i := range r.Observations {
		o := &r.Observations[i]
		f := fmt.Sprintf("observations[%d].", i)
		c.count(f+"promptNumber", int64(o.PromptNumber), 0, models.MaxPromptCounter)
		c.ok(observationKinds[o.Kind], f+"kind", o.Kind, "is not a kind of observation")
		c.ok(commandKinds[o.CommandKind], f+"commandKind", o.CommandKind, "must be test, shell or empty")
		c.ok(o.Importance >= 0 && o.Importance <= 1, f+"importance", o.Importance, "must be between 0 and 1")
		c.ok(o.DurationMS >= 0, f+"durationMs", o.DurationMS, "must not be negative")
		c.time(f+"createdAt", o.CreatedAt)
	}
	for i := range r.Summaries {
		m := &r.Summaries[i]
		f := fmt.Sprintf("summaries[%d].", i)
		c.ok(summaryKinds[m.Kind], f+"kind", m.Kind, "must be turn, intermediate or final")
		c.count(f+"promptNumber", int64(m.PromptNumber), 0, models.MaxPromptCounter)
		c.ok(m.InputTokens >= 0, f+"inputTokens", m.InputTokens, "must not be negative")
		c.ok(m.OutputTokens >= 0, f+"outputTokens", m.OutputTokens, "must not be negative")
		c.ok(m.CostUSD >= 0 && !math.IsInf(m.CostUSD, 0), f+"costUsd", m.CostUSD, "must not be negative")
		c.time(f+"createdAt", m.CreatedAt)
	}
	c.memories(r.Memories)
	return c.err
}

// CheckMemories tells whether memories stated outside any session (the
// full export's top-level memories) may be restored, as Check does for a
// session's rows.
func CheckMemories(ms []models.ExportMemory, now time.Time) error {
	c := rowChecker{latest: now.Add(restoreClockSkew)}
	for i := range ms {
		c.ok(ms[i].Project != "", fmt.Sprintf("memories[%d].project", i), "", "is missing")
	}
	c.memories(ms)
	return c.err
}

// memories checks restored memories' fields.
func (c *rowChecker) memories(ms []models.ExportMemory) {
	for i := range ms {
		m := &ms[i]
		f := fmt.Sprintf("memories[%d].", i)
		c.ok(models.ValidMemoryKind(m.Kind), f+"kind", m.Kind, "must be decision, constraint, cause or todo")
		c.ok(models.ValidMemoryState(m.State), f+"state", m.State, "must be current, superseded, done, retired, proposed or noted")
		c.ok(m.Speaker == "" || models.ValidSpeaker(m.Speaker), f+"speaker", m.Speaker, "must be user, claude, quoted or teammate")
		c.ok(memorySources[m.Source], f+"source", m.Source, "must be answer, prompt, summary, claude or user")
		c.count(f+"promptNumber", int64(m.PromptNumber), 0, models.MaxPromptCounter)
		c.ok(strings.TrimSpace(m.Text) != "", f+"text", "", "is empty")
		c.ok(len(m.Text) <= models.MaxMemoryText, f+"text", len(m.Text), fmt.Sprintf("bytes is over %d", models.MaxMemoryText))
		c.ok(len(m.OriginalText) <= models.MaxMemoryText, f+"originalText", len(m.OriginalText), fmt.Sprintf("bytes is over %d", models.MaxMemoryText))
		c.ok(len(m.Files)+len(m.Idents)+len(m.Terms) <= maxMemoryNames, f+"files", len(m.Files)+len(m.Idents)+len(m.Terms),
			fmt.Sprintf("files, idents and terms are over %d", maxMemoryNames))
		c.time(f+"createdAt", m.CreatedAt)
		if !m.UpdatedAt.IsZero() {
			c.time(f+"updatedAt", m.UpdatedAt)
		}
	}
}

// rowChecker keeps the first refusal.
type rowChecker struct {
	latest time.Time
	err    error
}

func (c *rowChecker) ok(cond bool, field string, value any, must string) {
	if cond || c.err != nil {
		return
	}
	if s, isString := value.(string); isString {
		value = fmt.Sprintf("%q", s)
	}
	c.err = fmt.Errorf("%w: %s %v %s", models.ErrInvalid, field, value, must)
}

func (c *rowChecker) count(field string, n, lo, hi int64) {
	c.ok(n >= lo && n <= hi, field, n, fmt.Sprintf("is out of range (%d to %d)", lo, hi))
}

func (c *rowChecker) time(field string, t time.Time) {
	if c.err == nil && t.IsZero() {
		c.err = fmt.Errorf("%w: %s is missing", models.ErrInvalid, field)
		return
	}
	if c.err == nil && (t.Before(restoreEarliest) || t.After(c.latest)) {
		c.err = fmt.Errorf("%w: %s %s is not a time mneme could have recorded", models.ErrInvalid, field, t.Format(time.RFC3339))
	}
}
