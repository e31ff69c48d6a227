// Package recall builds the context mneme gives Claude Code: the block
// injected at SessionStart (context.go) and the related-memory hints on
// UserPromptSubmit (related.go).
//
// Both read only the asking session's project, never excluded stubs, and run
// every line through the privacy rules in force before it leaves, so a rule
// added after a secret was captured already protects what is injected.
package recall

import (
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// OpenTag and CloseTag wrap everything mneme injects. privacy.StripTags removes
// such blocks on the way in, so injected text is never stored again.
const (
	OpenTag  = "<mneme-context>"
	CloseTag = "</mneme-context>"
)

// Builder builds context from the store with the settings in force. It
// implements capture.ContextBuilder.
type Builder struct {
	Store *models.Store
	// Policy is the compiled settings in force (capture.Service.Policy).
	Policy func() *shape.Policy
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Semantic, when on, adds the prompt's nearest observations by
	// meaning to the related-memory hints, within SemanticBudget (default
	// DefaultSemanticBudget): an endpoint slower than that is not waited
	// for, the hints come from text alone and Log says so.
	Semantic       *embed.Service
	SemanticBudget time.Duration
	Log            *slog.Logger

	given    given[string, string] // the files the gate answered, per Claude session
	injected given[int64, int64]   // the memories each session's context held
}

// BytesPerToken is the estimate mneme budgets with: about four bytes of
// text per token. Counting bytes rather than characters errs on the safe
// side for non-ASCII text.
const BytesPerToken = 4

// EstimateTokens estimates the tokens of s: its UTF-8 length divided by
// BytesPerToken, rounded up.
func EstimateTokens(s string) int { return (len(s) + BytesPerToken - 1) / BytesPerToken }

// BudgetBytes is the largest context, in bytes, that maxTokens allows: never
// more than models.MaxInjectBytes (Claude Code truncates beyond 10 KB).
func BudgetBytes(maxTokens int) int {
	if maxTokens <= 0 {
		return 0
	}
	return min(maxTokens*BytesPerToken, models.MaxInjectBytes)
}

func (b *Builder) policy() *shape.Policy {
	if b.Policy != nil {
		if p := b.Policy(); p != nil {
			return p
		}
	}
	return shape.NewPolicy(models.DefaultSettings())
}

func (b *Builder) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now().UTC()
}

// cleaner puts stored text on one line: tags stripped, whitespace
// collapsed, our own tag name defused, and cut to n runes. Secrets are
// redacted later, line by line, only for the lines that make it into the
// budget (see render).
type cleaner struct{ p *shape.Policy }

func (c cleaner) text(s string, n int) string {
	if s == "" {
		return ""
	}
	s = privacy.StripTags(s)
	s = strings.Join(strings.Fields(s), " ")
	if strings.Contains(strings.ToLower(s), "mneme-context") {
		s = defuseTag(s)
	}
	return cut(s, n)
}

// redact applies the current redaction rules to one finished line. The store
// holds text redacted with the rules of its capture time; a rule added since
// protects what is injected at once.
func (c cleaner) redact(line string) string {
	return c.p.Redactor.Redact(line)
}

// defuseTag rewrites any spelling of "mneme-context" so that stored text can
// never close (or open) the injected block early.
func defuseTag(s string) string {
	lower := strings.ToLower(s)
	var b strings.Builder
	for {
		i := strings.Index(lower, "mneme-context")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString("mneme context")
		s, lower = s[i+len("mneme-context"):], lower[i+len("mneme-context"):]
	}
}

// cut shortens s to at most n runes, marking the cut with an ellipsis.
func cut(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
