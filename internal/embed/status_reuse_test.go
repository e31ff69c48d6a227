package embed

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// TestStatusReusesSlowCountsOfLargeStores: a count of a large store is
// reused for statusReuse times as long as it took; a small store's is
// never reused, so a row just stored counts at once.
func TestStatusReusesSlowCountsOfLargeStores(t *testing.T) {
	t.Parallel()
	s, err := models.Open(filepath.Join(t.TempDir(), "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	ix := &Indexer{Store: s, Client: &Client{Model: "m"}}
	for _, c := range []struct {
		name              string
		total             int64
		age, took         time.Duration
		wantDone, wantAll int64
	}{
		{"large, fresh: reused", 2 * statusReuseRows, time.Second, 100 * time.Millisecond, 7, 2 * statusReuseRows},
		{"large, older than its reuse: counted", 2 * statusReuseRows, 6 * time.Second, 100 * time.Millisecond, 0, 0},
		{"small, fresh: counted", 10, time.Millisecond, time.Second, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ix.counted.done, ix.counted.total, ix.counted.at, ix.counted.took = 7, c.total, time.Now().Add(-c.age), c.took
			st, err := ix.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Done != c.wantDone || st.Total != c.wantAll {
				t.Fatalf("status %d/%d, want %d/%d", st.Done, st.Total, c.wantDone, c.wantAll)
			}
		})
	}
}
