package models

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// Concurrent operations share transactions; one that fails is rolled back
// whole (its earlier statement included) and does not take the others down.
func TestWriterIsolatesFailingOperation(t *testing.T) {
	t.Parallel()
	store := openTestStore(t)
	boom := errors.New("boom")
	const n = 200
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = store.Writer.Do(context.Background(), func(tx *Tx) error {
				if err := tx.db.Exec(`INSERT INTO settings (key, value, updated_at) VALUES (?, 'v', CURRENT_TIMESTAMP)`, fmt.Sprintf("k%03d", i)).Error; err != nil {
					return err
				}
				if i%10 == 7 {
					return boom // after a write: that write must not survive
				}
				return nil
			})
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if want := i%10 == 7; want != errors.Is(err, boom) {
			t.Errorf("op %d: err %v", i, err)
		}
	}
	var stored int64
	store.db.Raw(`SELECT COUNT(*) FROM settings`).Scan(&stored)
	if stored != n-n/10 {
		t.Errorf("%d rows stored, want %d (every op but the failing ones)", stored, n-n/10)
	}
	var leaked int64
	store.db.Raw(`SELECT COUNT(*) FROM settings WHERE key LIKE '%7'`).Scan(&leaked)
	if leaked != 0 {
		t.Errorf("%d writes of failed operations were committed", leaked)
	}
}
