package models

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"gorm.io/gorm"
)

// ErrWriterClosed is returned by Writer.Do once the store is closing.
var ErrWriterClosed = errors.New("store is closing")

// maxBatch bounds how many operations share one transaction.
const maxBatch = 512

// Writer serialises writes through one goroutine and commits them in groups:
// every operation waiting when a transaction starts joins it, so N concurrent
// ingests cost one commit instead of N. Each operation runs inside its own
// savepoint, so one failing operation does not take its neighbours down.
// Do returns only after the transaction holding the operation has committed.
type Writer struct {
	db     *gorm.DB
	ops    chan *writeOp
	quit   chan struct{}
	done   chan struct{}
	closed sync.Once
}

type writeOp struct {
	fn  func(tx *gorm.DB) error
	err chan error
}

func newWriter(db *gorm.DB) *Writer {
	w := &Writer{
		db:   db,
		ops:  make(chan *writeOp, 4096),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	go w.loop()
	return w
}

// Do runs fn in a write transaction shared with other concurrent callers and
// returns fn's error, or the commit's. fn must only use tx, and must be
// idempotent-safe to abandon: on error its savepoint is rolled back.
func (w *Writer) Do(ctx context.Context, fn func(tx *gorm.DB) error) error {
	op := &writeOp{fn: fn, err: make(chan error, 1)}
	select {
	case <-w.quit:
		return ErrWriterClosed
	default:
	}
	select {
	case w.ops <- op:
	case <-w.quit:
		return ErrWriterClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued, the operation will be committed or failed; wait for the
	// outcome even if ctx ends, so the caller never acks an unknown state.
	return <-op.err
}

// Close commits what is queued and stops the writer.
func (w *Writer) Close() {
	w.closed.Do(func() { close(w.quit) })
	<-w.done
}

func (w *Writer) loop() {
	defer close(w.done)
	batch := make([]*writeOp, 0, maxBatch)
	for {
		select {
		case op := <-w.ops:
			batch = append(batch[:0], op)
		case <-w.quit:
			// Drain what was queued before the close.
			for {
				select {
				case op := <-w.ops:
					w.commit([]*writeOp{op})
				default:
					return
				}
			}
		}
		// Take what is queued; then yield once so that writers about to
		// queue (HTTP handlers just finishing their parsing) join this
		// commit instead of paying for their own.
		for pass := 0; pass < 2; pass++ {
		fill:
			for len(batch) < maxBatch {
				select {
				case op := <-w.ops:
					batch = append(batch, op)
				default:
					break fill
				}
			}
			if pass == 0 {
				runtime.Gosched()
			}
		}
		w.commit(batch)
	}
}

func (w *Writer) commit(batch []*writeOp) {
	errs := make([]error, len(batch))
	tx := w.db.Begin()
	if tx.Error != nil {
		for _, op := range batch {
			op.err <- fmt.Errorf("begin: %w", tx.Error)
		}
		return
	}
	single := len(batch) == 1
	for i, op := range batch {
		if single {
			errs[i] = safeRun(op.fn, tx)
			continue
		}
		if err := tx.SavePoint("op").Error; err != nil {
			errs[i] = err
			continue
		}
		if err := safeRun(op.fn, tx); err != nil {
			errs[i] = err
			tx.RollbackTo("op")
			continue
		}
		tx.Exec("RELEASE SAVEPOINT op")
	}
	if single && errs[0] != nil {
		tx.Rollback()
		batch[0].err <- errs[0]
		return
	}
	if err := tx.Commit().Error; err != nil {
		for _, op := range batch {
			op.err <- fmt.Errorf("commit: %w", err)
		}
		return
	}
	for i, op := range batch {
		op.err <- errs[i]
	}
}

func safeRun(fn func(*gorm.DB) error, tx *gorm.DB) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("write panicked: %v", r)
		}
	}()
	return fn(tx)
}
