package shape

import (
	"strings"
	"testing"
)

// A title read again from what storage keeps of a huge output is the
// title made at ingest.
func TestBashTitleHugeOutput(t *testing.T) {
	var b strings.Builder
	b.WriteString("Exit code 1\n")
	for i := 0; i < 100000; i++ {
		b.WriteString("=== RUN   TestMany\n")
	}
	b.WriteString("--- FAIL: TestLast (0.00s)\nFAIL\nFAIL\tgithub.com/x/y\t0.1s\n")
	title := bashOutcomeTitle("go test ./...", b.String(), false, true)
	if title != "`go test ./...`: 1 failed: TestLast (exit 1)" {
		t.Fatalf("title %q", title)
	}
	if again := bashOutcomeTitle("go test ./...", Compress(Window(b.String()), 0), false, true); again != title {
		t.Fatalf("from the stored output %q, at ingest %q", again, title)
	}
}
