package filestate

import (
	"context"

	"github.com/mneme-dev/mneme/models"
)

// Statuses maps each of the observations to the status now of each of its
// recorded files (Fresh, Changed, Gone or NoClaim), by path. Observations
// with nothing recorded are absent. Each file is stat'ed once, and hashed
// only when its size or mtime moved.
func Statuses(ctx context.Context, store *models.Store, ids []int64) (map[int64]map[string]string, error) {
	states, err := store.FileStatesOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	check := NewChecker()
	out := make(map[int64]map[string]string, len(states))
	for id, ss := range states {
		m := make(map[string]string, len(ss))
		for _, s := range ss {
			m[s.Path] = check.Status(Of(s))
		}
		out[id] = m
	}
	return out, nil
}

// Of converts a stored file state.
func Of(s models.FileState) State {
	return State{Path: s.Path, Kind: s.Kind, SHA256: s.SHA256, Size: s.Size, MtimeNS: s.MtimeNS}
}

// AnyStale reports whether one of the files changed or is gone, and
// whether anything is known at all (nil when nothing was recorded or
// nothing can be said).
func AnyStale(files map[string]string) *bool {
	known, stale := false, false
	for _, st := range files {
		known = known || st != NoClaim
		stale = stale || Stale(st)
	}
	if !known {
		return nil
	}
	return &stale
}
