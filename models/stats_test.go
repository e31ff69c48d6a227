package models

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// seedStats records activity on fixed days of November 2026 in two
// projects.
func seedStats(t *testing.T) *Store {
	t.Helper()
	s := openTestStore(t)
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 30, 0, 0, time.UTC) }
	err := s.Writer.Do(context.Background(), func(tx *Tx) error {
		a, err := tx.EnsureSession(&Session{ClaudeSessionID: "a", Project: "alpha", StartedAt: day(10, 9)})
		if err != nil {
			return err
		}
		b, err := tx.EnsureSession(&Session{ClaudeSessionID: "b", Project: "beta", StartedAt: day(12, 9)})
		if err != nil {
			return err
		}
		old, err := tx.EnsureSession(&Session{ClaudeSessionID: "old", Project: "alpha", StartedAt: day(1, 9)})
		if err != nil {
			return err
		}
		for _, p := range []struct {
			sess    int64
			project string
			at      time.Time
		}{{a.ID, "alpha", day(10, 9)}, {a.ID, "alpha", day(10, 23)}, {b.ID, "beta", day(12, 9)}, {old.ID, "alpha", day(1, 9)}} {
			if _, err := tx.RecordPrompt(p.sess, p.project, "", "hello", false, p.at); err != nil {
				return err
			}
		}
		for _, o := range []struct {
			sess    int64
			project string
			tool    string
			files   []string
			ok      bool
			at      time.Time
		}{
			{a.ID, "alpha", "Bash", nil, false, day(10, 10)},
			{a.ID, "alpha", "Edit", []string{"main.go", "util.go"}, true, day(10, 11)},
			{a.ID, "alpha", "Edit", []string{"main.go"}, true, day(11, 0)},
			{a.ID, "alpha", "Bash", nil, false, day(11, 1)},
			{a.ID, "alpha", "Read", []string{"main.go"}, true, day(11, 2)},
			{b.ID, "beta", "Bash", nil, true, day(12, 10)},
			{b.ID, "beta", "Write", []string{"app.ts"}, true, day(12, 11)},
			{old.ID, "alpha", "Bash", []string{"old.go"}, false, day(1, 10)},
			// A search's path is where it looked: not a file touched.
			{b.ID, "beta", "Grep", []string{"/home/dev/beta/src"}, true, day(12, 12)},
		} {
			kind := KindBash
			if o.tool == "Grep" {
				kind = KindSearch
			}
			if _, err := tx.InsertObservation(&Observation{SessionID: o.sess, Project: o.project, ToolName: o.tool, Kind: kind,
				Title: "t", Files: o.files, Success: o.ok, CreatedAt: o.at}); err != nil {
				return err
			}
		}
		return tx.db.Create(&Summary{SessionID: a.ID, Project: "alpha", Kind: SummaryTurn, CreatedAt: day(10, 12)}).Error
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStats(t *testing.T) {
	t.Parallel()
	s := seedStats(t)
	ctx := context.Background()
	to := time.Date(2026, 11, 12, 18, 0, 0, 0, time.UTC)
	st, err := s.Stats(ctx, StatsQuery{To: to, Days: 4})
	if err != nil {
		t.Fatal(err)
	}
	wantDays := []DayStats{
		{Day: "2026-11-09"},
		{Day: "2026-11-10", Prompts: 2, Observations: 2, Failures: 1},
		{Day: "2026-11-11", Observations: 3, Failures: 1},
		{Day: "2026-11-12", Prompts: 1, Observations: 3},
	}
	if st.From != "2026-11-09" || st.To != "2026-11-12" || !reflect.DeepEqual(st.Days, wantDays) {
		t.Errorf("window %s..%s days %+v\nwant %+v", st.From, st.To, st.Days, wantDays)
	}
	if want := (StatsTotals{Sessions: 2, Prompts: 3, Observations: 8, Failures: 2, Summaries: 1}); st.Totals != want {
		t.Errorf("totals %+v, want %+v", st.Totals, want)
	}
	if want := []NameCount{{"Bash", 3}, {"Edit", 2}, {"Grep", 1}, {"Read", 1}, {"Write", 1}}; !reflect.DeepEqual(st.Tools, want) {
		t.Errorf("tools %+v, want %+v", st.Tools, want)
	}
	if want := []FileCount{{"main.go", 3, "alpha"}, {"app.ts", 1, "beta"}, {"util.go", 1, "alpha"}}; !reflect.DeepEqual(st.Files, want) {
		t.Errorf("files %+v, want %+v", st.Files, want)
	}
	wantProjects := []ProjectStats{
		{Project: "alpha", Sessions: 1, Prompts: 2, Observations: 5, Failures: 2},
		{Project: "beta", Sessions: 1, Prompts: 1, Observations: 3},
	}
	if !reflect.DeepEqual(st.Projects, wantProjects) {
		t.Errorf("projects %+v, want %+v", st.Projects, wantProjects)
	}

	// One project, an explicit window reaching the old session.
	st, err = s.Stats(ctx, StatsQuery{Project: "alpha", From: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), To: to, Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Days) != 12 || st.Totals.Observations != 6 || st.Totals.Sessions != 2 || st.Totals.Failures != 3 {
		t.Errorf("alpha since Nov 1: %d days, totals %+v", len(st.Days), st.Totals)
	}
	if want := []NameCount{{"Bash", 3}}; !reflect.DeepEqual(st.Tools, want) {
		t.Errorf("top-1 tools %+v, want %+v", st.Tools, want)
	}
	if len(st.Projects) != 1 || st.Projects[0].Project != "alpha" {
		t.Errorf("projects %+v, want alpha only", st.Projects)
	}

	// Defaults: the last 14 days up to today (nothing recorded then).
	st, err = s.Stats(ctx, StatsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Days) != DefaultStatsDays || st.To != time.Now().UTC().Format(time.DateOnly) {
		t.Errorf("default window: %d days to %s", len(st.Days), st.To)
	}
}

func TestStatsBadWindow(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	now := time.Now()
	for _, q := range []StatsQuery{
		{Days: -1},
		{Days: MaxStatsDays + 1},
		{From: now, To: now.AddDate(0, 0, -1)},
		{From: now.AddDate(-2, 0, 0), To: now},
	} {
		if _, err := s.Stats(context.Background(), q); !errors.Is(err, ErrInvalid) {
			t.Errorf("Stats(%+v): err = %v, want ErrInvalid", q, err)
		}
	}
}

func TestProjects(t *testing.T) {
	t.Parallel()
	s := seedStats(t)
	got, err := s.Projects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("projects = %+v", got)
	}
	if got[0].Project != "beta" || got[0].Sessions != 1 || got[0].Observations != 3 || got[0].LastActive == nil ||
		!got[0].LastActive.Equal(time.Date(2026, 11, 12, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("first project %+v", got[0])
	}
	if got[1].Project != "alpha" || got[1].Sessions != 2 || got[1].Observations != 6 {
		t.Errorf("second project %+v", got[1])
	}
}
