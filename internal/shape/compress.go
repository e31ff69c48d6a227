package shape

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// Compression limits for stored tool input and output.
const (
	HeadLines = 50
	TailLines = 50
	// windowBytes bounds how much of a huge output is ever looked at: the
	// first and last windowBytes, cut at line ends, before redaction.
	windowBytes = 256 * 1024
)

// Window keeps the first and last windowBytes of s, cut at line boundaries,
// so that redaction and compression of a 50 MB output stay bounded. Text
// shorter than two windows is returned unchanged.
func Window(s string) string {
	if len(s) <= 2*windowBytes {
		return s
	}
	head := s[:windowBytes]
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i]
	}
	tail := s[len(s)-windowBytes:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	omitted := strings.Count(s[len(head):len(s)-len(tail)], "\n")
	return head + fmt.Sprintf("\n… %d lines omitted …\n", omitted) + tail
}

// Compress makes s fit for storage: at most HeadLines+TailLines lines (the
// first and the last, with "… N lines omitted …" between) and at most
// capBytes bytes, cut on rune boundaries. It is deterministic.
func Compress(s string, capBytes int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.ReplaceAll(s, "\x00", "")
	if n := strings.Count(s, "\n"); n >= HeadLines+TailLines+1 {
		lines := strings.SplitAfter(s, "\n")
		if last := lines[len(lines)-1]; last == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > HeadLines+TailLines {
			omitted := len(lines) - HeadLines - TailLines
			s = strings.Join(lines[:HeadLines], "") +
				fmt.Sprintf("… %d lines omitted …\n", omitted) +
				strings.Join(lines[len(lines)-TailLines:], "")
		}
	}
	if capBytes <= 0 || len(s) <= capBytes {
		return s
	}
	// Reserve room for the widest marker; the tail starts at the first rune
	// boundary at or after its cut, so head+marker+tail stays within the cap.
	half := (capBytes - len(fmt.Sprintf("\n… %d bytes omitted …\n", len(s)))) / 2
	if half < 0 {
		half = 0
	}
	head := s[:privacy.RuneStart(s, half)]
	j := len(s) - half
	for j < len(s) && !utf8.RuneStart(s[j]) {
		j++
	}
	tail := s[j:]
	return head + fmt.Sprintf("\n… %d bytes omitted …\n", len(s)-len(head)-len(tail)) + tail
}

// Truncate shortens s to at most n runes, adding an ellipsis.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// FirstLine returns the first non-empty line of s, trimmed.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
