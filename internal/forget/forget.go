// Package forget is forgetting: the user's deletions (the viewer, the
// API, `mneme forget`) of an observation, a prompt with its turn, a
// session, a project or a memory, and the scrub of what the database
// files keep of them. Retention, the scheduled deletion of old rows, is
// internal/retention's; both give the same guarantee.
package forget

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/models"
)

// The guarantee: the rows go in one writer
// transaction, with their events, their search-index entries and the
// queue of rows waiting to be indexed, so search, the API, exports and
// the stream's replay stop showing them at its commit; a forgotten event
// tells open viewers to drop them. Then Scrub clears what the files keep
// of them (old index segments, freed pages, the -wal).

// Outcome is what Do deleted and how the scrub went.
type Outcome struct {
	models.ForgetResult
	Scrub models.ScrubResult `json:"scrub"`
}

// Do deletes target: an observation, a prompt with its turn, or a
// session, by id, or a project, by name (models.Forget*); then it scrubs
// the files. An unknown id or project is models.ErrNotFound. The scrub
// runs to its end even when ctx is cancelled once the rows are gone.
func Do(ctx context.Context, store *models.Store, target string, id int64, project string) (Outcome, error) {
	var out Outcome
	err := store.Writer.Do(ctx, func(tx *models.Tx) error {
		var err error
		switch target {
		case models.ForgetObservation:
			out.ForgetResult, err = tx.ForgetObservation(id, summarize.Rebuilder())
		case models.ForgetPrompt:
			out.ForgetResult, err = tx.ForgetPrompt(id, summarize.Rebuilder())
		case models.ForgetSession:
			out.ForgetResult, err = tx.ForgetSession(id)
		case models.ForgetProject:
			out.ForgetResult, err = tx.ForgetProject(project)
		case models.ForgetMemory:
			out.ForgetResult, err = tx.ForgetMemory(id)
		default:
			err = fmt.Errorf("%w: nothing to forget of kind %q", models.ErrInvalid, target)
		}
		return err
	})
	if err != nil {
		return out, err
	}
	out.Scrub, err = store.Scrub(context.WithoutCancel(ctx), true)
	return out, err
}
