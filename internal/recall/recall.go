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
	"unicode"
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
	// Embed, when on, adds the prompt's nearest observations by meaning
	// to the related-memory hints, within EmbedBudget (default
	// DefaultEmbedBudget): an endpoint slower than that is not waited
	// for, the hints come from text alone and Log says so.
	Embed       *embed.Service
	EmbedBudget time.Duration
	// FailureBudget bounds the failure hint's lookup (default
	// DefaultFailureBudget): past it the hook answers without the hint.
	FailureBudget time.Duration
	Log           *slog.Logger

	given    given[string, string] // the files the gate answered, per Claude session
	injected given[int64, int64]   // the memories each session's context held
	hinted   given[int64, string]  // the failure signatures hinted, per session
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

// cleaner puts stored text on one line: format characters dropped
// (dropFormat), tags stripped, whitespace collapsed, our own tag name
// defused, and cut to n runes. Secrets are redacted later, line by line,
// only for the lines that make it into the budget (see render).
type cleaner struct{ p *shape.Policy }

func (c cleaner) text(s string, n int) string {
	if s == "" {
		return ""
	}
	s = dropFormat(s)
	s = privacy.StripTags(s)
	s = strings.Join(strings.Fields(s), " ")
	s = defuseTag(s)
	return cut(s, n)
}

// redact applies the current redaction rules to one finished line. The store
// holds text redacted with the rules of its capture time; a rule added since
// protects what is injected at once.
func (c cleaner) redact(line string) string {
	return c.p.Redactor.Redact(line)
}

// dropFormat drops the format characters of s (Unicode category Cf:
// zero-width spaces and joiners, BOM, bidirectional controls, soft
// hyphens, tag characters), which can hide a tag's name or text from the
// reader. A zero-width joiner or non-joiner between two runes past ASCII
// (an emoji sequence, Persian, Indic scripts) is kept: it is part of the
// text, and joins no letters of a tag.
func dropFormat(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	kept := 0 // s[kept:j] is to be written as it is
	for j := i; j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		if r < utf8.RuneSelf || !unicode.Is(unicode.Cf, r) || (r == '\u200c' || r == '\u200d') && joinsPastASCII(s, j, size) {
			j += size
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[kept:j])
		j += size
		kept = j
	}
	if kept == 0 {
		return s
	}
	b.WriteString(s[kept:])
	return b.String()
}

// joinsPastASCII reports whether the rune at s[j:j+size] stands between
// two runes past ASCII that are not format characters.
func joinsPastASCII(s string, j, size int) bool {
	before, _ := utf8.DecodeLastRuneInString(s[:j])
	after, _ := utf8.DecodeRuneInString(s[j+size:])
	for _, r := range []rune{before, after} {
		if r < utf8.RuneSelf || r == utf8.RuneError || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// defuseTag rewrites every spelling of "mneme-context" as "mneme context",
// so that stored text can never close (or open) the injected block early:
// in any letter case, and spelled with look-alikes as privacy.StripTags
// reads tags (compatibility forms by NFKC, such as fullwidth ＜/ｍｎｅｍｅ,
// any dash for the hyphen, such as U+2010, invisible runes inside). The
// rest of the text is kept as written.
func defuseTag(s string) string {
	return privacy.ReplaceTagName(s, "mneme-context", "mneme context")
}

// cut shortens s to at most n runes, marking the cut with an ellipsis.
func cut(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
