package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/transcript"
)

// benchTranscripts writes n copies of the fixture transcript (a real
// Claude Code 2.1.330 session: 1 prompt, 4 tool calls, 164 KB with its
// request blobs), each with its own session, prompt and tool ids, dated
// an hour ago, under dir; tag makes the ids unique across calls.
func benchTranscripts(tb testing.TB, dir string, n int, tag string) int64 {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join(testutil.FixtureDir(tb), "session-basic.transcript.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	var total int64
	at := time.Now().Add(-time.Hour)
	for i := range n {
		sid := fmt.Sprintf("%08x-0000-4000-8000-%012d", i, len(tag))
		sid = tag + sid[len(tag):]
		data := bytes.ReplaceAll(src, []byte("f0373ac4-95a4-4996-a7f7-2576f5e8c9ca"), []byte(sid))
		data = bytes.ReplaceAll(data, []byte("28fea2f0-86e8-4b02-8d46-09096ddbf3b5"), []byte("p-"+sid))
		data = bytes.ReplaceAll(data, []byte(`"toolu_0`), []byte(`"toolu_`+sid+`_0`))
		sub := filepath.Join(dir, fmt.Sprintf("-proj-%d", i%8))
		os.MkdirAll(sub, 0o700)
		path := filepath.Join(sub, sid+".jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			tb.Fatal(err)
		}
		os.Chtimes(path, at, at)
		total += int64(len(data))
	}
	return total
}

// rawParse is the baseline: every line of every file read and decoded
// into a small struct, nothing more.
func rawParse(tb testing.TB, dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			tb.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var l struct {
				Type      string          `json:"type"`
				SessionID string          `json:"sessionId"`
				Message   json.RawMessage `json:"message"`
			}
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				tb.Fatal(err)
			}
		}
		return nil
	})
}

// captureSink stores events in-process, as the viewer's import does.
type captureSink struct{ srv *testutil.Server }

func (s captureSink) Send(ctx context.Context, ev *transcript.Event) error {
	p := ev.Payload
	_, err := s.srv.Capture.Handle(ctx, ev.Name, &p)
	return err
}

// BenchmarkImport imports 100 real-shaped transcripts (100 sessions, 400
// tool calls, 16 MB) into a fresh worker per iteration: over the socket as
// `mneme import` does, and in-process as the viewer's import does, beside
// a same-run baseline of raw JSONL decoding and the dry run (parse only).
// Each reports sessions/s and observations/s.
func BenchmarkImport(b *testing.B) {
	const sessions = 100
	dir := b.TempDir()
	size := benchTranscripts(b, dir, sessions, "b")
	report := func(b *testing.B) {
		secs := b.Elapsed().Seconds()
		b.ReportMetric(float64(sessions*b.N)/secs, "sessions/s")
		b.ReportMetric(float64(4*sessions*b.N)/secs, "observations/s")
	}
	b.Run("raw-parse", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			rawParse(b, dir)
		}
		report(b)
	})
	b.Run("dry-run", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			st, err := transcript.Run(context.Background(), []string{dir}, transcript.Options{}, nil)
			if err != nil || st.Sessions != sessions {
				b.Fatalf("%+v %v", st.Counts, err)
			}
		}
		report(b)
	})
	imp := func(b *testing.B, sink func(*testutil.Server) transcript.Sink) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			srv := testutil.NewServer(b)
			s := sink(srv)
			b.StartTimer()
			st, err := transcript.Run(context.Background(), []string{dir}, transcript.Options{Workers: benchWorkers}, s)
			if err != nil || st.Sessions != sessions || st.Errors != 0 {
				b.Fatalf("%+v %v", st.Counts, err)
			}
		}
		b.StopTimer()
		report(b)
	}
	b.Run("socket", func(b *testing.B) {
		imp(b, func(srv *testutil.Server) transcript.Sink {
			s, err := newSocketSink(&globals{dataDir: srv.DataDir})
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
	b.Run("in-process", func(b *testing.B) {
		imp(b, func(srv *testutil.Server) transcript.Sink { return captureSink{srv} })
	})
}

var benchWorkers = 16
