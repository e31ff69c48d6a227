package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutMiddle(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		strings.Repeat("a", 10_000),
		strings.Repeat("é€😀", 2_000),
		"head\n" + strings.Repeat("ü", 5_000) + "\ntail",
	} {
		for _, n := range []int{100, 101, 102, 103, 1000, 4096} {
			got := cutMiddle(s, n)
			if len(got) > n || !utf8.ValidString(got) || !strings.Contains(got, " bytes cut …]") {
				t.Errorf("cutMiddle(%d bytes, %d) = %d bytes, valid %v", len(s), n, len(got), utf8.ValidString(got))
			}
			if s[:2] != got[:2] || s[len(s)-2:] != got[len(got)-2:] {
				t.Errorf("cutMiddle(…, %d) lost the head or the tail", n)
			}
		}
	}
	if got := cutMiddle("short", 100); got != "short" {
		t.Errorf("a short text was cut: %q", got)
	}
}
