package models

import (
	"context"

	"gorm.io/gorm"
)

// writeQuietly runs fn in a transaction of its own, outside the group
// commit: the events it appends are stored but not handed to the writer's
// OnCommit, so nothing is published on the live stream. (On PostgreSQL
// every replica's listener publishes the log, so they are, within its
// poll interval: see pgnotify.go.) Tests outside models have
// modelstest.WriteQuietly.
func (s *Store) writeQuietly(ctx context.Context, fn func(tx *Tx) error) error {
	return s.db.WithContext(ctx).Transaction(func(db *gorm.DB) error { return fn(&Tx{db: db}) })
}

// vectorCount counts the stored vectors (of any model) of the rows of
// type typ among ids, or of every row of typ when ids is nil: what forget
// and retention must leave at zero.
func (s *Store) vectorCount(ctx context.Context, typ string, ids []int64) (int64, error) {
	db := s.searchDB(ctx)
	var n int64
	if ids == nil {
		err := db.Raw("SELECT count(*) FROM embeddings WHERE item_type = ?", typ).Row().Scan(&n)
		return n, err
	}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		var k int64
		if err := db.Raw("SELECT count(*) FROM embeddings WHERE item_type = ? AND item_id IN ?", typ, chunk).Row().Scan(&k); err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}
