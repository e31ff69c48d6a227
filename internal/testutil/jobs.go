package testutil

import (
	"context"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// WaitJobs waits until no summary job is pending or running, polling,
// and fails the test after timeout.
func WaitJobs(tb testing.TB, store *models.Store, timeout time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		// One query for both: counted apart, a job going from running
		// back to pending (a retry) between the two counts was missed.
		n, err := store.CountJobs(context.Background(), models.JobPending, models.JobRunning)
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("summary jobs still queued after %s: %d pending or running (%v)", timeout, n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
