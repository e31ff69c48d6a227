package app_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/transcript"
)

// TestImportJob: the viewer's import runs one at a time; stopped (as at
// shutdown) it ends early, and started again it stores the rest, nothing
// twice.
func TestImportJob(t *testing.T) {
	const sessions = 120
	srv := testutil.NewServer(t, testutil.WithTranscripts(t, sessions, "a0"))
	job := srv.Import

	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	if err := job.Start(); !errors.Is(err, transcript.ErrRunning) {
		t.Errorf("a second start: %v, want ErrRunning", err)
	}
	job.Stop()
	if st := job.State(); st.Running || st.Stats == nil {
		t.Fatalf("after Stop: %+v", st)
	}

	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for job.State().Running {
		if time.Now().After(deadline) {
			t.Fatal("the import did not finish within 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := job.State(); st.Error != "" || st.Stats.Sessions != sessions {
		t.Errorf("second run: %+v", st)
	}
	c, err := srv.Store.Counts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Sessions != sessions || c.Prompts != sessions || c.Observations != 4*sessions {
		t.Errorf("stored %+v", c)
	}
	pre, err := job.Scan(t.Context())
	if err != nil || pre.Known != sessions || pre.Stats.Sessions != sessions {
		t.Errorf("scan after the import: known %d of %d, %v", pre.Known, pre.Stats.Sessions, err)
	}
}
