package mcp

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// bytesPerToken is how answers are measured against a token budget, as
// the injected context is: about 4 bytes per token.
const bytesPerToken = 4

// Token budgets of the listing tools.
const (
	defaultMaxTokens = 1000
	minMaxTokens     = 100
	maxMaxTokens     = 25000
)

// budget is an answer being written within a byte limit: whole lines
// only, so a row is in or out, never half.
type budget struct {
	b     strings.Builder
	limit int
	// reserve is kept free for the closing lines (how many more, what
	// next) that are written last.
	reserve int
}

func newBudget(maxTokens int) *budget {
	limit := maxTokens * bytesPerToken
	return &budget{limit: limit, reserve: min(400, limit/4)}
}

// add writes line if it fits in the budget less the reserve.
func (w *budget) add(line string) bool {
	if w.b.Len()+len(line)+1 > w.limit-w.reserve {
		return false
	}
	w.b.WriteString(line)
	w.b.WriteByte('\n')
	return true
}

// must writes line whatever the budget (headers and closing notes, which
// are short).
func (w *budget) must(line string) {
	w.b.WriteString(line)
	w.b.WriteByte('\n')
}

func (w *budget) String() string { return strings.TrimRight(w.b.String(), "\n") }

// readTokens checks a maxTokens argument: 0 means the default.
func readTokens(n int) (int, error) {
	switch {
	case n == 0:
		return defaultMaxTokens, nil
	case n < minMaxTokens || n > maxMaxTokens:
		return 0, fmt.Errorf("maxTokens must be from %d to %d (≈%d bytes per token), or left out for %d", minMaxTokens, maxMaxTokens, bytesPerToken, defaultMaxTokens)
	}
	return n, nil
}

// oneLine squeezes s onto one line of at most n bytes (whole runes), with
// "…" when cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return cut(s, n)
}

// cut shortens s to at most n bytes on a rune boundary, ending in "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(0, n-len("…"))
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// stamp is a row's time: local, to the minute.
func stamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }
