package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/transcript"
)

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
	size := testutil.WriteTranscripts(b, dir, sessions, "b")
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
			st, err := transcript.Run(context.Background(), []string{dir}, transcript.Options{Workers: 1}, nil)
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

var benchWorkers = 32
