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
		p, err1 := store.CountJobs(context.Background(), models.JobPending)
		r, err2 := store.CountJobs(context.Background(), models.JobRunning)
		if err1 == nil && err2 == nil && p+r == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("summary jobs still queued after %s: %d pending, %d running", timeout, p, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
