package outcome

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBashTitle(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name, cmd, output string
		success, isTest   bool
		want              string
	}{
		{"no output", "true", "", true, false, "Ran `true`: exit 0"},
		{"test, nothing countable", "make test", "all good?", true, true, "Ran `make test`: all good?"},
		{"test, no output", "make test", "", true, true, "Ran `make test`: passed"},
		{"failure without output", "false", "Exit code 1", false, false, "`false` failed: exit 1"},
		{"failure without exit line", "false", "boom: error", false, false, "`false` failed: boom: error"},
		{"file contents are no outcome", "cat go.mod", "module x\n\ngo 1.22", true, false, "Ran `cat go.mod`: exit 0"},
		{"a warning is no outcome", "make", "built\nwarning: unused", true, false, "Ran `make`: built"},
		{"rules and blanks skipped", "./run", "did 3 things\n\n=====\n", true, false, "Ran `./run`: did 3 things"},
		{"colour codes dropped", "./run", "\x1b[32mok: 4 jobs\x1b[0m", true, false, "Ran `./run`: ok: 4 jobs"},
		{"go subtest named, not its parent", "go test ./x", "Exit code 1\n--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/b (0.00s)\nFAIL", false, true, "`go test ./x`: 1 failed: TestA/b (exit 1)"},
		{"many names listed up to three", "go test ./...", "Exit code 1\n--- FAIL: TestA\n--- FAIL: TestB\n--- FAIL: TestC\n--- FAIL: TestD\nFAIL", false, true, "`go test ./...`: 4 failed: TestA, TestB, TestC, … (exit 1)"},
		{"a long line is cut, the exit kept", "./x", "Exit code 3\nerror " + long, false, false, "`./x`: error " + long[:120-len("`./x`: error ")-len(" (exit 3)")-1] + "… (exit 3)"},
		{"an error chain keeps its cause", "./x", "Exit code 1\nopen config: read " + long[:90] + ": permission denied", false, false, "`./x`: open config: read … permission denied (exit 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BashTitle(tt.cmd, tt.output, tt.success, tt.isTest, "")
			if got != tt.want {
				t.Errorf("title\n got %q\nwant %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > TitleRunes {
				t.Errorf("%d runes", n)
			}
		})
	}
}

func BenchmarkBashTitle(b *testing.B) {
	var out strings.Builder
	out.WriteString("Exit code 1\n")
	for i := 0; i < 2000; i++ {
		out.WriteString("some log line that says nothing in particular 12345\n")
	}
	out.WriteString("--- FAIL: TestLast (0.00s)\nFAIL\n")
	s := out.String()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		BashTitle("go test ./...", s, false, true, "")
	}
}
