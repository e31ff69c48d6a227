package handlers

import (
	"context"

	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/models"
)

// markStale fills Stale and FileStatus of the observations: whether the
// files they touched changed or are gone since they were recorded.
func (h *Handler) markStale(ctx context.Context, obs []*models.Observation) error {
	ids := make([]int64, len(obs))
	for i, o := range obs {
		ids[i] = o.ID
	}
	status, err := filestate.Statuses(ctx, h.Store, ids)
	if err != nil {
		return err
	}
	for _, o := range obs {
		if files, ok := status[o.ID]; ok {
			o.FileStatus, o.Stale = files, filestate.AnyStale(files)
		}
	}
	return nil
}

// markStaleHits does the same for the observation hits of a search.
func (h *Handler) markStaleHits(ctx context.Context, hits []models.SearchHit) error {
	var ids []int64
	for _, hit := range hits {
		if hit.Type == models.SearchObservation {
			ids = append(ids, hit.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	status, err := filestate.Statuses(ctx, h.Store, ids)
	if err != nil {
		return err
	}
	for i := range hits {
		if files, ok := status[hits[i].ID]; ok && hits[i].Type == models.SearchObservation {
			hits[i].FileStatus, hits[i].Stale = files, filestate.AnyStale(files)
		}
	}
	return nil
}

// timelineObservations are the observations of a timeline, to mark.
func timelineObservations(tl *models.Timeline) []*models.Observation {
	var out []*models.Observation
	for _, it := range tl.Items {
		if it.Observation != nil {
			out = append(out, it.Observation)
		}
	}
	return out
}

// pointers points at each element of obs, for markStale.
func pointers(obs []models.Observation) []*models.Observation {
	out := make([]*models.Observation, len(obs))
	for i := range obs {
		out[i] = &obs[i]
	}
	return out
}
