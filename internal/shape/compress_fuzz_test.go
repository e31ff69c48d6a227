package shape

import (
	"github.com/mneme-dev/mneme/internal/testutil/fixtures"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCompress checks the storage bounds of Compress and Window on
// arbitrary text: valid UTF-8 out, no NUL bytes, at most capBytes bytes and
// at most HeadLines+TailLines+1 lines.
func FuzzCompress(f *testing.F) {
	for _, line := range fixtures.Lines(f) {
		f.Add(string(line), uint16(1024))
	}
	f.Add(strings.Repeat("line\n", 500), uint16(600))
	f.Add("\xff\xfe\x00abc\x00", uint16(512))
	f.Add(strings.Repeat("é", 3000), uint16(513))
	f.Fuzz(func(t *testing.T, s string, capBytes uint16) {
		c := int(capBytes)%(64<<10) + 512
		out := Compress(Window(s), c)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out: %q", out)
		}
		if strings.ContainsRune(out, 0) {
			t.Fatal("NUL byte kept")
		}
		if len(out) > c {
			t.Fatalf("%d bytes out, cap %d", len(out), c)
		}
		if n := strings.Count(out, "\n"); n > HeadLines+TailLines+2 {
			t.Fatalf("%d lines out", n)
		}
		if w := Window(s); len(w) > 2*windowBytes+64 {
			t.Fatalf("Window kept %d bytes", len(w))
		}
	})
}
