package report_test

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/report"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/testutil/racebuild"
	"github.com/mneme-dev/mneme/models"
)

// seedLarge stores a session with n observations of outBytes output each,
// straight through the store (ingesting 10,000 hooks over HTTP would only
// slow the test down).
func seedLarge(t testing.TB, store *models.Store, n, outBytes int) int64 {
	t.Helper()
	ctx := context.Background()
	var sid int64
	err := store.Writer.Do(ctx, func(tx *models.Tx) error {
		ref, err := tx.EnsureSession(&models.Session{ClaudeSessionID: "large-session", Project: "big", Cwd: "/src/big"})
		if err != nil {
			return err
		}
		sid = ref.ID
		for p := 1; p <= 20; p++ {
			if _, err := tx.RecordPrompt(sid, "big", fmt.Sprint("p", p), fmt.Sprintf("step %d of the migration", p), false, time.Now().UTC()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Repeat("x", outBytes-31) + " end of the output of this step."
	for start := 0; start < n; start += 1000 {
		err := store.Writer.Do(ctx, func(tx *models.Tx) error {
			for i := start; i < min(start+1000, n); i++ {
				o := &models.Observation{SessionID: sid, Project: "big", PromptNumber: 1 + i*20/n, ToolName: "Bash", Kind: models.KindBash,
					Title: fmt.Sprintf("Ran `make step-%d`: exit 0", i), Input: fmt.Sprintf("make step-%d", i), Output: out, Success: i%97 != 0,
					Files: []string{fmt.Sprintf("/src/big/f%d.go", i%50)}}
				if i%97 == 0 {
					o.Kind, o.Title = models.KindFailure, fmt.Sprintf("`make step-%d` failed: exit 2", i)
				}
				if _, err := tx.InsertObservation(o); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return sid
}

// heapWatch is a writer that samples the live heap every 2 MiB written:
// after a collection, so what it sees is what the export holds, not the
// garbage a late collection (a loaded machine) has yet to free.
type heapWatch struct {
	n, next, peak uint64
}

func (h *heapWatch) Write(p []byte) (int, error) {
	h.n += uint64(len(p))
	if h.n >= h.next {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.peak = max(h.peak, m.HeapAlloc)
		h.next = h.n + 2<<20
	}
	return len(p), nil
}

// TestExportLargeSessionStreams exports a session of 10,000 observations
// (about 40 MB of stored output) as JSON, which carries every output in
// full: the live heap must stay far below the size of the data, because
// observations are read in batches of 500 and written as they come.
func TestExportLargeSessionStreams(t *testing.T) {
	if testing.Short() || racebuild.Enabled {
		t.Skip("large export skipped in -short mode and under -race (it measures the heap; -race multiplies time and memory)")
	}
	srv := testutil.NewServer(t)
	sid := seedLarge(t, srv.Store, 10000, 4096)
	// Index the seeded rows now, so the background indexer is not at work
	// while the heap is watched.
	if err := srv.Store.FlushSearchIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	w := &heapWatch{}
	var calls int
	var last int64
	start := time.Now()
	err := report.Export(context.Background(), srv.Store, w, report.Request{SessionIDs: []int64{sid}, Format: "json",
		Progress: func(done, total int64) { calls++; last = done }})
	if err != nil {
		t.Fatal(err)
	}
	grew := int64(w.peak) - int64(base.HeapAlloc)
	t.Logf("json: %.1f MB written in %s; heap before %.1f MB, peak %.1f MB (+%.1f MB); %d progress calls",
		float64(w.n)/1e6, time.Since(start).Round(time.Millisecond), float64(base.HeapAlloc)/1e6, float64(w.peak)/1e6, float64(grew)/1e6, calls)
	if w.n < 40e6 {
		t.Fatalf("only %d bytes written", w.n)
	}
	if grew > int64(w.n)/3 {
		t.Errorf("heap grew by %d bytes while writing %d: the export is not streaming", grew, w.n)
	}
	if last != 10000 || calls < 20 {
		t.Errorf("progress: %d calls, last %d", calls, last)
	}
	// Markdown of the same session: one line per call.
	var md strings.Builder
	if err := report.Export(context.Background(), srv.Store, &md, report.Request{SessionIDs: []int64{sid}, Format: "md"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(md.String(), "· Bash · "); got != 10000 {
		t.Errorf("%d timeline lines, want 10000", got)
	}
}

// BenchmarkExportLarge measures exporting a 10,000-observation session.
func BenchmarkExportLarge(b *testing.B) {
	srv := testutil.NewServer(b)
	sid := seedLarge(b, srv.Store, 10000, 1024)
	for _, f := range []string{"md", "json", "html"} {
		b.Run(f, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := report.Export(context.Background(), srv.Store, io.Discard, report.Request{SessionIDs: []int64{sid}, Format: f}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
