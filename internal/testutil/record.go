package testutil

import (
	"context"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// RecordSession stores a session (its Claude id and project are name)
// with obs, each a Bash call of its own prompt number unless it has one,
// and their events, as capture does; it returns the session's id.
func RecordSession(t testing.TB, s *models.Store, name string, obs []models.Observation) int64 {
	t.Helper()
	var id int64
	err := s.Writer.Do(context.Background(), func(tx *models.Tx) error {
		sess := models.Session{ClaudeSessionID: name, Project: name, StartedAt: time.Now().UTC(), Status: models.StatusActive}
		if err := tx.Insert(&sess); err != nil {
			return err
		}
		id = sess.ID
		for i := range obs {
			o := &obs[i]
			o.SessionID, o.Project, o.ToolName, o.Kind = sess.ID, name, "Bash", "bash"
			if o.PromptNumber == 0 {
				o.PromptNumber = i + 1
			}
			if _, err := tx.InsertObservation(o); err != nil {
				return err
			}
			if _, err := tx.AppendEvent(models.EventObservation, name, sess.ID, o.ID, map[string]any{"title": o.Title}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
