package testutil

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/app"
)

// FixtureSessionID is the session of the fixture transcript and hooks.
const FixtureSessionID = "f0373ac4-95a4-4996-a7f7-2576f5e8c9ca"

// WriteTranscripts writes n copies of the fixture transcript (a real
// Claude Code 2.1.330 session: 1 prompt, 4 tool calls, 164 KB with its
// request blobs) under dir, laid out like ~/.claude/projects in 8 projects
// (notes-app-0 to notes-app-7), each copy with its own session, prompt and tool ids (tag,
// at most 8 hex digits, keeps them apart across calls) and dated an hour
// ago: sessions that ended. It returns the bytes written.
func WriteTranscripts(tb testing.TB, dir string, n int, tag string) int64 {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join(FixtureDir(tb), "session-basic.transcript.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	var total int64
	at := time.Now().Add(-time.Hour)
	for i := range n {
		sid := fmt.Sprintf("%08s-0000-4000-8000-%012d", tag, i)
		data := bytes.ReplaceAll(src, []byte(FixtureSessionID), []byte(sid))
		data = bytes.ReplaceAll(data, []byte("28fea2f0-86e8-4b02-8d46-09096ddbf3b5"), []byte("p-"+sid))
		data = bytes.ReplaceAll(data, []byte(`"toolu_0`), []byte(`"toolu_`+sid+`_0`))
		data = bytes.ReplaceAll(data, []byte("/home/dev/projects/notes-app"), fmt.Appendf(nil, "/home/dev/projects/notes-app-%d", i%8))
		sub := filepath.Join(dir, fmt.Sprintf("-proj-%d", i%8))
		if err := os.MkdirAll(sub, 0o700); err != nil {
			tb.Fatal(err)
		}
		path := filepath.Join(sub, sid+".jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			tb.Fatal(err)
		}
		os.Chtimes(path, at, at)
		total += int64(len(data))
	}
	return total
}

// WithTranscripts is an Option: the worker's import reads n copies of the
// fixture transcript (WriteTranscripts) from a temp dir.
func WithTranscripts(tb testing.TB, n int, tag string) Option {
	dir := filepath.Join(tb.TempDir(), "projects")
	WriteTranscripts(tb, dir, n, tag)
	return func(o *app.Options) { o.ImportDir = dir }
}
