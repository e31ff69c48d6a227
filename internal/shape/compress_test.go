package shape

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestCompressLines(t *testing.T) {
	tests := []struct {
		name    string
		lines   int
		omitted int // 0: unchanged
	}{
		{"short", 10, 0},
		{"exactly head+tail", HeadLines + TailLines, 0},
		{"one over", HeadLines + TailLines + 1, 1},
		{"many", 1000, 900},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := numberedLines(tt.lines)
			got := Compress(in, 1<<20)
			if tt.omitted == 0 {
				if got != in {
					t.Fatalf("%d lines must stay unchanged", tt.lines)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) != HeadLines+TailLines+1 {
				t.Fatalf("got %d lines, want %d", len(lines), HeadLines+TailLines+1)
			}
			if lines[0] != "line 1" || lines[HeadLines-1] != fmt.Sprintf("line %d", HeadLines) {
				t.Errorf("head: %q … %q", lines[0], lines[HeadLines-1])
			}
			if want := fmt.Sprintf("… %d lines omitted …", tt.omitted); lines[HeadLines] != want {
				t.Errorf("marker %q, want %q", lines[HeadLines], want)
			}
			if lines[HeadLines+1] != fmt.Sprintf("line %d", tt.lines-TailLines+1) || lines[len(lines)-1] != fmt.Sprintf("line %d", tt.lines) {
				t.Errorf("tail: %q … %q", lines[HeadLines+1], lines[len(lines)-1])
			}
			if Compress(in, 1<<20) != got {
				t.Error("Compress must be deterministic")
			}
		})
	}
	// Without a final newline the last line is kept too.
	in := strings.TrimSuffix(numberedLines(200), "\n")
	if got := Compress(in, 1<<20); !strings.HasSuffix(got, "line 199\nline 200") || !strings.Contains(got, "… 100 lines omitted …") {
		t.Errorf("no final newline: …%q", got[len(got)-40:])
	}
}

func TestCompressCap(t *testing.T) {
	const capBytes = 10 * 1024
	long := strings.Repeat("x", 50_000) // one line: the byte cap applies
	got := Compress(long, capBytes)
	if len(got) > capBytes {
		t.Fatalf("got %d bytes, cap %d", len(got), capBytes)
	}
	if !strings.Contains(got, "bytes omitted") || !strings.HasPrefix(got, "xxxx") || !strings.HasSuffix(got, "xxxx") {
		t.Errorf("expected head, marker and tail, got %q…", got[:60])
	}
	var omitted int
	i := strings.Index(got, "\n… ")
	fmt.Sscanf(got[i+len("\n… "):], "%d", &omitted)
	if kept := strings.Count(got, "x"); kept+omitted != len(long) {
		t.Errorf("marker says %d bytes omitted, but %d of %d were kept", omitted, kept, len(long))
	}
	// Lines long enough that 101 of them exceed the cap: both limits apply.
	wide := strings.Repeat(strings.Repeat("y", 300)+"\n", 500)
	if got := Compress(wide, capBytes); len(got) > capBytes || !strings.Contains(got, "bytes omitted") {
		t.Errorf("wide lines: %d bytes", len(got))
	}
	if got := Compress(long, 0); got != long {
		t.Error("cap 0 means no byte cap")
	}
}

func TestCompressRunes(t *testing.T) {
	// 3-byte runes: any cut point that is not a multiple of 3 would split one.
	for _, capBytes := range []int{512, 513, 514, 1000, 1001, 10 * 1024} {
		in := strings.Repeat("日本語", 20_000)
		got := Compress(in, capBytes)
		if !utf8.ValidString(got) {
			t.Fatalf("cap %d: cut inside a rune", capBytes)
		}
		if len(got) > capBytes {
			t.Fatalf("cap %d: got %d bytes", capBytes, len(got))
		}
	}
	emoji := strings.Repeat("🦀a", 10_000)
	if got := Compress(emoji, 777); !utf8.ValidString(got) || len(got) > 777 {
		t.Fatalf("emoji: valid=%v len=%d", utf8.ValidString(got), len(got))
	}
}

func TestCompressInvalidInput(t *testing.T) {
	in := "ok\xff\xfebad\x00nul\x00end"
	got := Compress(in, 1024)
	if !utf8.ValidString(got) {
		t.Errorf("invalid UTF-8 must be repaired: %q", got)
	}
	if strings.ContainsRune(got, 0) {
		t.Errorf("NUL bytes must be removed: %q", got)
	}
	if got != "ok\uFFFDbadnulend" {
		t.Errorf("got %q", got)
	}
	big := strings.Repeat("\xff", 20_000)
	if got := Compress(big, 1024); !utf8.ValidString(got) || len(got) > 1024 {
		t.Errorf("invalid UTF-8 over the cap: valid=%v len=%d", utf8.ValidString(got), len(got))
	}
}

func TestWindow(t *testing.T) {
	if s := numberedLines(100); Window(s) != s {
		t.Error("small text must be returned unchanged")
	}
	huge := numberedLines(300_000) // ~4 MB, eight windows
	got := Window(huge)
	if len(got) > 2*windowBytes+100 {
		t.Fatalf("window of %d bytes is %d bytes", len(huge), len(got))
	}
	if !strings.HasPrefix(got, "line 1\nline 2\n") || !strings.HasSuffix(got, "line 300000\n") {
		t.Error("the window keeps the start and the end")
	}
	i := strings.Index(got, "… ")
	j := strings.Index(got, " lines omitted …")
	if i < 0 || j < i {
		t.Fatal("missing omission marker")
	}
	var omitted int
	fmt.Sscanf(got[i+len("… "):j], "%d", &omitted)
	kept := strings.Count(got, "\n") - 2 // the marker adds two newlines
	if omitted <= 0 || kept+omitted < 299_990 || kept+omitted > 300_000 {
		t.Errorf("kept %d + omitted %d lines, want about 300,000", kept, omitted)
	}
	// Every kept line is whole.
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if !strings.HasPrefix(l, "line ") && !strings.HasPrefix(l, "… ") {
			t.Fatalf("cut line %q", l)
		}
	}
	// Compress after Window still respects the cap and stays valid.
	if c := Compress(got, 10*1024); len(c) > 10*1024 || !utf8.ValidString(c) {
		t.Errorf("Compress(Window(huge)): %d bytes", len(c))
	}
}

func TestTruncateAndFirstLine(t *testing.T) {
	if got := Truncate("héllo world", 5); got != "héll…" {
		t.Errorf("Truncate = %q", got)
	}
	if got := Truncate("short", 10); got != "short" {
		t.Errorf("Truncate = %q", got)
	}
	if got := FirstLine("\n\n  first  \nsecond"); got != "first" {
		t.Errorf("FirstLine = %q", got)
	}
}

func BenchmarkCompress(b *testing.B) {
	in := Window(numberedLines(1_000_000))
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Compress(in, 10*1024)
	}
}
