package recall

import (
	"context"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// fixture is a real store in a temp dir with helpers that write rows the way
// ingest would (through the writer), at chosen times.
type fixture struct {
	t     testing.TB
	store *models.Store
	st    models.Settings
	clock time.Time
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	// The matrix's backend (testutil.OpenStore's, which this package's
	// own tests cannot import: testutil builds workers, which use recall).
	url := ""
	if pgtest.OnPostgres() {
		url = pgtest.URL(t)
	}
	store, err := models.OpenURL(url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &fixture{t: t, store: store, st: models.DefaultSettings(), clock: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
}

func (f *fixture) builder() *Builder {
	pol := shape.NewPolicy(f.st)
	return &Builder{Store: f.store, Policy: func() *shape.Policy { return pol }}
}

// tick advances the fixture's clock by a minute and returns it.
func (f *fixture) tick() time.Time {
	f.clock = f.clock.Add(time.Minute)
	return f.clock
}

func (f *fixture) write(fn func(tx *models.Tx) error) {
	f.t.Helper()
	if err := f.store.Writer.Do(context.Background(), fn); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) session(project, claudeID, lastMsg string) int64 {
	f.t.Helper()
	s := models.Session{ClaudeSessionID: claudeID, Project: project, Cwd: "/home/dev/" + project, Status: models.StatusActive,
		StartedAt: f.tick(), LastAssistantMessage: lastMsg}
	f.write(func(tx *models.Tx) error { return tx.Insert(&s) })
	return s.ID
}

func (f *fixture) prompt(sessionID int64, project string, n int, text string) {
	f.t.Helper()
	p := models.Prompt{SessionID: sessionID, Project: project, Number: n, Text: text, CreatedAt: f.tick()}
	f.write(func(tx *models.Tx) error { return tx.Insert(&p) })
}

func (f *fixture) obs(o models.Observation) int64 {
	f.t.Helper()
	if o.CreatedAt.IsZero() {
		o.CreatedAt = f.tick()
	}
	if o.Kind == "" {
		o.Kind = models.KindToolUse
	}
	if o.ToolName == "" {
		o.ToolName = "Bash"
	}
	f.write(func(tx *models.Tx) error { _, err := tx.InsertObservation(&o); return err })
	return o.ID
}

func (f *fixture) summary(sm models.Summary) {
	f.t.Helper()
	sm.CreatedAt = f.tick()
	f.write(func(tx *models.Tx) error { return tx.Insert(&sm) })
}
