package retention

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/models"
)

func openStore(t *testing.T) *models.Store {
	t.Helper()
	s, err := models.Open(filepath.Join(t.TempDir(), "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// seed stores one session with n observations per age (in days).
func seed(t *testing.T, s *models.Store, now time.Time, perAge map[int]int) {
	t.Helper()
	err := s.Writer.Do(context.Background(), func(tx *gorm.DB) error {
		sess := models.Session{ClaudeSessionID: "s", Project: "p", StartedAt: now, Status: models.StatusActive}
		if err := tx.Create(&sess).Error; err != nil {
			return err
		}
		for age, n := range perAge {
			for i := 0; i < n; i++ {
				o := models.Observation{SessionID: sess.ID, Project: "p", ToolName: "Bash", Kind: "bash",
					Title: fmt.Sprintf("aged%d item %d", age, i), Files: []string{"/p/secret-KEY-1234.txt"}, Success: true,
					CreatedAt: now.Add(-time.Duration(age)*24*time.Hour - time.Minute)}
				if _, err := models.InsertObservation(tx, &o); err != nil {
					return err
				}
				if _, err := models.AppendEvent(tx, models.EventObservation, "p", sess.ID, o.ID, map[string]any{"title": o.Title}); err != nil {
					return err
				}
				// Events are stamped now; backdate them like the row.
				if err := tx.Exec(`UPDATE events SET created_at = ? WHERE ref_id = ?`, o.CreatedAt, o.ID).Error; err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestApplyDeletesInBatches(t *testing.T) {
	s := openStore(t)
	now := time.Now().UTC()
	seed(t, s, now, map[int]int{400: Batch + 250, 40: 30, 1: 20})
	tests := []struct {
		days      int
		count     int64
		remaining int64
	}{
		{0, 0, Batch + 300},   // keep forever
		{500, 0, Batch + 300}, // nothing that old
		{365, Batch + 250, 50},
		{30, 30, 20},
	}
	for _, tt := range tests {
		n, err := CountOlder(context.Background(), s, tt.days, now)
		if err != nil || n != tt.count {
			t.Fatalf("CountOlder(%d) = %d, %v; want %d", tt.days, n, err, tt.count)
		}
		deleted, err := Apply(context.Background(), s, tt.days, now)
		if err != nil || deleted != tt.count {
			t.Fatalf("Apply(%d) = %d, %v; want %d", tt.days, deleted, err, tt.count)
		}
		var left, fts, events int64
		s.DB.Raw(`SELECT COUNT(*) FROM observations`).Row().Scan(&left)
		s.DB.Raw(`SELECT COUNT(*) FROM observations_fts WHERE observations_fts MATCH 'item'`).Row().Scan(&fts)
		s.DB.Raw(`SELECT COUNT(*) FROM events WHERE kind = 'observation'`).Row().Scan(&events)
		if left != tt.remaining || fts != tt.remaining || events != tt.remaining {
			t.Fatalf("after %d days: %d rows, %d indexed, %d events; want %d", tt.days, left, fts, events, tt.remaining)
		}
	}
}

func TestJobRunsOnKick(t *testing.T) {
	s := openStore(t)
	now := time.Now().UTC()
	seed(t, s, now, map[int]int{100: 5, 1: 3})
	st := models.DefaultSettings()
	st.Retention.ObservationDays = 7
	j := Start(s, func() models.Settings { return st }, nil)
	defer j.Stop()
	j.Kick()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int64
		s.DB.Raw(`SELECT COUNT(*) FROM observations`).Row().Scan(&n)
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job did not run: %d rows", n)
		}
	}
}

func TestReapplyKeepsJSONValid(t *testing.T) {
	s := openStore(t)
	seed(t, s, time.Now().UTC(), map[int]int{1: 3})
	r := hooks.NewRedactor([]models.RedactionRule{{Name: "k", Pattern: `KEY-\d+`, Enabled: true}})
	res, err := Reapply(context.Background(), s, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed["observations"] != 3 {
		t.Fatalf("changed %+v", res.Changed)
	}
	obs, err := s.ObservationsOfSession(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if len(o.Files) != 1 || o.Files[0] != "/p/secret-[REDACTED:k].txt" {
			t.Fatalf("files = %q", o.Files)
		}
	}
	// A second pass finds nothing left to change.
	if res, _ := Reapply(context.Background(), s, r); res.Total() != 0 {
		t.Fatalf("second pass changed %+v", res.Changed)
	}
}
