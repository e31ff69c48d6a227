package handlers

import (
	"context"

	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/models"
)

// markSeenBefore marks each failure of obs that an earlier failure of its
// project had (by signature, in another session) with that failure and
// its fix: the viewer shows it "seen before", linked to both.
func (h *Handler) markSeenBefore(ctx context.Context, obs []*models.Observation) error {
	type key struct {
		sig     string
		session int64
	}
	known := map[key]*models.SeenBefore{}
	for _, o := range obs {
		if o.Signature == "" {
			continue
		}
		k := key{o.Signature, o.SessionID}
		sb, ok := known[k]
		if !ok {
			seen, err := recall.SeenBefore(ctx, h.Store, o.Project, o.Signature, o.ID, o.SessionID)
			if err != nil {
				return err
			}
			if seen != nil {
				sb = &models.SeenBefore{ID: seen.Earlier.ID, SessionID: seen.Earlier.SessionID, At: seen.Earlier.CreatedAt}
				if seen.Fixed {
					sb.FixedByID, sb.FixedBy = seen.FixedBy.ID, seen.FixedBy.Title
				}
			}
			known[k] = sb
		}
		o.SeenBefore = sb
	}
	return nil
}

// markForView marks obs for a page: staleness, and failures seen before.
func (h *Handler) markForView(ctx context.Context, obs []*models.Observation) error {
	if err := h.markStale(ctx, obs); err != nil {
		return err
	}
	return h.markSeenBefore(ctx, obs)
}
