package forget_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/forget"
	"github.com/mneme-dev/mneme/internal/fullexport"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/benchdb"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// TestForgetFigures measures forgetting, backup and the full export on a
// synthetic database (MNEME_BENCH_ROWS observations, default 100,000
// here) plus one big session of 10,000 tool calls and their events. It only runs with
// MNEME_FORGET_FIGURES=1: the figures go to the README.
func TestForgetFigures(t *testing.T) {
	if os.Getenv("MNEME_FORGET_FIGURES") == "" {
		t.Skip("set MNEME_FORGET_FIGURES=1 to measure")
	}
	if os.Getenv("MNEME_BENCH_ROWS") == "" {
		t.Setenv("MNEME_BENCH_ROWS", "100000")
	}
	db := benchdb.Build(t, benchdb.Rows(t))
	dir := t.TempDir()
	path := filepath.Join(dir, "mneme.db")
	src, err := models.Open(filepath.Join(db.Dir, "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.BackupTo(context.Background(), path) // a copy to change
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := models.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.Now().UTC()
	calls := make([]models.Observation, 10000)
	for i := range calls {
		calls[i] = models.Observation{PromptNumber: 1 + i/100, Title: fmt.Sprintf("Ran `go test ./pkg%d`: ok", i),
			Output: fmt.Sprintf("ok pkg%d 0.%03ds\n", i, i%1000), Success: true, CreatedAt: now}
	}
	big := testutil.RecordSession(t, s, "big", calls)
	s.FlushSearchIndex(ctx)
	s.CheckpointTruncate()
	size := func() int64 { fi, _ := os.Stat(path); return fi.Size() }
	t.Logf("database: %d observations + a 10,000-call session, %.1f MB", db.Observations, float64(size())/1e6)

	var one int64
	modelstest.Row(t, s, []any{&one}, `SELECT MIN(id) FROM observations`)
	start := time.Now()
	out, err := forget.Do(ctx, s, models.ForgetObservation, one, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("forget one observation: %s in all, of which scrub %d ms (FTS optimize, VACUUM, WAL truncate)", time.Since(start).Round(time.Millisecond), out.Scrub.TookMS)

	// Meanwhile, a write every 10 ms, as ingest would: how long does one
	// wait, and does any fail?
	stop := make(chan struct{})
	done := make(chan struct{})
	var worst time.Duration
	var writes, failed int
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			begin := time.Now()
			err := s.Writer.Do(ctx, func(tx *models.Tx) error {
				o := models.Observation{SessionID: 1, Project: "p", ToolName: "Bash", Kind: "bash", Title: fmt.Sprintf("during %d", i), Success: true, CreatedAt: time.Now()}
				_, err := tx.InsertObservation(&o)
				return err
			})
			writes++
			if err != nil {
				failed++
			}
			worst = max(worst, time.Since(begin))
		}
	}()
	start = time.Now()
	out, err = forget.Do(ctx, s, models.ForgetSession, big, "")
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("writes meanwhile: %d, %d failed, the slowest waited %s", writes, failed, worst.Round(time.Millisecond))
	t.Logf("forget the 10,000-call session: %s in all, of which scrub %d ms; %+v", time.Since(start).Round(time.Millisecond), out.Scrub.TookMS, out.Deleted)

	backup := filepath.Join(t.TempDir(), "b.db")
	start = time.Now()
	fc, err := s.BackupTo(ctx, backup)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("backup (VACUUM INTO + integrity_check): %s, %.1f MB (database %.1f MB)", time.Since(start).Round(time.Millisecond), float64(fc.Bytes)/1e6, float64(size())/1e6)

	start = time.Now()
	n, err := fullexport.Write(ctx, s, io.Discard, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("export --all: %s for %+v", time.Since(start).Round(time.Millisecond), n)
}
