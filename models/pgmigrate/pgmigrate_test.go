package pgmigrate_test

import (
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models/pgmigrate"
)

// TestCopyStoreToStore copies a worker's store (the fixture session) into
// an empty store of the test's backend, then again: the first copy brings
// every session, prompt and observation, the second finds them all there.
// (cmd/mneme's TestMigrate covers SQLite → PostgreSQL through the command.)
func TestCopyStoreToStore(t *testing.T) {
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	testutil.WaitJobs(t, srv.Store, time.Minute) // the summary is written off the hook's path
	ctx := t.Context()
	want, err := srv.Store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want.Sessions == 0 || want.Observations == 0 {
		t.Fatalf("the fixture stored nothing: %+v", want)
	}
	dst := testutil.OpenStore(t, t.TempDir())
	defer dst.Close()

	var seen int64
	r, err := pgmigrate.Copy(ctx, srv.Store, dst, func(r pgmigrate.Result) { seen = r.Sessions })
	if err != nil {
		t.Fatal(err)
	}
	if r.Sessions != want.Sessions || seen != want.Sessions {
		t.Fatalf("copied %d sessions (progress saw %d), want %d", r.Sessions, seen, want.Sessions)
	}
	got, err := dst.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sessions != want.Sessions || got.Prompts != want.Prompts || got.Observations != want.Observations || got.Summaries != want.Summaries {
		t.Fatalf("target holds %+v, source %+v", got, want)
	}
	if r.Rows.New.Observations != want.Observations {
		t.Fatalf("new observations %d, want %d", r.Rows.New.Observations, want.Observations)
	}

	again, err := pgmigrate.Copy(ctx, srv.Store, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := again.Rows.New; n.Sessions+n.Prompts+n.Observations+n.Summaries != 0 || again.SettingsNew != 0 {
		t.Fatalf("second copy stored %+v and %d settings", n, again.SettingsNew)
	}
	if again.Rows.Existing.Observations != want.Observations {
		t.Fatalf("second copy found %d observations there, want %d", again.Rows.Existing.Observations, want.Observations)
	}
}
