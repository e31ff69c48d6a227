// Package edit holds a person's edits of what is stored, made by hand in
// the viewer or through the API, that belong to no other service (a
// memory's are internal/memory's, a deletion internal/forget's): each is
// cleaned by the privacy rules in force and written in one transaction.
package edit

import (
	"context"

	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// RenameSession sets session id's title, cleaned by pol like any stored
// text; at most models.TitleMax characters are kept, and "" brings the
// automatic title back.
func RenameSession(ctx context.Context, store *models.Store, pol *shape.Policy, id int64, title string) error {
	title = pol.Clean(title)
	return store.Writer.Do(ctx, func(tx *models.Tx) error { return tx.SetSessionTitle(id, title) })
}
