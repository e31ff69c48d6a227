package app_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestEmbeddingsStateReadOnly: a worker serving its database read-only
// runs no indexer; health and the settings page say why (an error naming
// the read-only database), not "pending" forever, and search by meaning
// still answers from the vectors stored before.
func TestEmbeddingsStateReadOnly(t *testing.T) {
	pgtest.SkipOnPostgres(t, "the read-only fallback of a database file that cannot be written")
	fake := embedtest.New(32)
	defer fake.Close()
	first := testutil.NewServer(t, testutil.FastEmbed)
	enoughRoom(t, first.DataDir)
	first.SeedFixture(t)
	first.EnableEmbeddings(t, fake.URL, "m", 32)
	dir := first.DataDir
	first.Shutdown(5 * time.Second)

	readOnly(t, filepath.Join(dir, "mneme.db"))
	srv := testutil.NewServerIn(t, dir, testutil.FastEmbed)
	if !srv.ReadOnly() {
		t.Fatal("the worker did not notice it cannot write its database")
	}
	h := srv.EmbeddingsHealth(t)
	if h.State != "error" || !strings.Contains(h.LastError, "read-only") || h.Embedded == 0 {
		t.Errorf("embeddings health of a read-only worker: %+v, want an error saying read-only (and the vectors stored before counted)", h)
	}
	_, page := srv.Get(t, "/settings")
	if !strings.Contains(string(page), "open read-only, so no row can be embedded") {
		t.Error("the settings page does not say why nothing is embedded")
	}
	var res struct {
		Mode  string `json:"mode"`
		Items []any  `json:"items"`
	}
	srv.GetJSON(t, "/api/search?mode=semantic&q=anything", &res)
	if res.Mode != "semantic" || len(res.Items) == 0 {
		t.Errorf("search by meaning on a read-only worker: %+v", res)
	}
}
