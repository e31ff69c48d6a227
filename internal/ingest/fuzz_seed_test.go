package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// fixtureLines returns the raw lines of the Claude Code fixtures
// (testdata/claude-code-2.1.330 at the repository root), the seed corpus of the fuzz
// targets.
func fixtureLines(tb testing.TB) [][]byte {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "claude-code-2.1.330")
	var out [][]byte
	for _, name := range []string{"session-basic.hooks.jsonl", "session-basic.transcript.jsonl"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatalf("fixture: %v", err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				out = append(out, bytes.Clone(line))
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "post-tool-use-failure.json")); err == nil {
		out = append(out, data)
	}
	return out
}
