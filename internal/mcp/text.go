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
	minMaxTokens     = 200
	maxMaxTokens     = 25000
)

// budget is an answer being written within a byte limit, whole lines
// only: a row is in or out, never half. The closing lines (how many more,
// what next) are written last, into room the rows left for them.
type budget struct {
	b     strings.Builder
	limit int
}

func newBudget(maxTokens int) *budget { return &budget{limit: maxTokens * bytesPerToken} }

// add writes line if it fits, leaving reserve bytes free for what must
// come after it.
func (w *budget) add(line string, reserve int) bool {
	if w.b.Len()+len(line)+1 > w.limit-reserve {
		return false
	}
	w.b.WriteString(line)
	w.b.WriteByte('\n')
	return true
}

// rows writes row(0), row(1), … up to n rows while they fit, leaving
// reserve bytes for the closing lines, and returns how many it wrote. The
// first row is always written, cut if it must be, so even a tiny budget
// shows something.
func (w *budget) rows(n, reserve int, row func(i int) (string, error)) (int, error) {
	for i := range n {
		line, err := row(i)
		if err != nil {
			return i, err
		}
		if i == 0 {
			w.addCut(line, reserve)
		} else if !w.add(line, reserve) {
			return i, nil
		}
	}
	return n, nil
}

// addCut writes line, cut to fit if it must (the first row of an answer
// is shown even under a tiny budget).
func (w *budget) addCut(line string, reserve int) {
	if room := w.limit - reserve - w.b.Len() - 1; len(line) > room {
		line = cut(line, max(room, 20))
	}
	w.must(line)
}

// must writes line whatever the budget (headers and closing notes, which
// the callers reserve room for).
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

// staleMark is "  [changed since]" for a record whose files changed or
// are gone since it was recorded (the API's stale), else "".
func staleMark(stale *bool) string {
	if stale != nil && *stale {
		return "  [changed since]"
	}
	return ""
}

// fileMark is how a file's status now (the API's fileStatus) is shown
// after its path: only a change or a removal is.
func fileMark(status string) string {
	switch status {
	case "changed":
		return " (changed since)"
	case "gone":
		return " (gone since)"
	}
	return ""
}
