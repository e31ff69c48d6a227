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
// ingests cost one commit instead of N. A failing operation does not take its
// neighbours down (see commit).
// Do returns only after the transaction holding the operation has committed.
type Writer struct {
	db       *gorm.DB
	ops      chan *writeOp
	quit     chan struct{}
	done     chan struct{}
	closed   sync.Once
	onCommit func(Event)
}

// OnCommit sets where the events appended by committed transactions go (the
// live-stream broker). The writer calls it from its own goroutine after each
// commit, in id order, so subscribers see events in the order they were
// committed. Set it before the first write; fn must not block.
func (w *Writer) OnCommit(fn func(Event)) { w.onCommit = fn }

// committed collects the events a transaction appends (see AppendEvent).
type committed struct{ events []Event }

type committedKey struct{}

// begin opens a transaction whose context carries an event collector.
func (w *Writer) begin() (*gorm.DB, *committed) {
	c := &committed{}
	tx := w.db.WithContext(context.WithValue(context.Background(), committedKey{}, c)).Begin()
	return tx, c
}

// publish hands a committed transaction's events to OnCommit.
func (w *Writer) publish(c *committed) {
	if w.onCommit == nil {
		return
	}
	for _, ev := range c.events {
		w.onCommit(ev)
	}
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
// safe to run twice: a batch that fails is re-run one operation at a time.
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

// commit runs a batch as one plain transaction. It takes no savepoint per
// operation: FTS5 flushes its pending index to disk at every savepoint,
// which turned each insert into a new index segment and cost most of the
// ingest time. Instead, if any operation fails, the whole transaction is
// rolled back and each operation runs again alone, so one bad operation
// cannot take its neighbours down and each gets its own outcome. Operations
// must therefore be safe to run twice (they only write through tx and reset
// what they return).
func (w *Writer) commit(batch []*writeOp) {
	if len(batch) > 1 {
		opFailed, err := w.runBatch(batch)
		if !opFailed {
			// Committed, or the database itself refused (locked, full,
			// read-only): every operation gets the same answer at once,
			// rather than each waiting out the busy timeout again alone.
			for _, op := range batch {
				op.err <- err
			}
			return
		}
	}
	for _, op := range batch {
		op.err <- w.runAlone(op)
	}
}

// runBatch runs every operation of batch in one transaction. opFailed is
// true when an operation returned an error: then nothing was committed and
// the caller re-runs the operations one by one. Otherwise err is the
// outcome of the whole batch (nil when it committed).
func (w *Writer) runBatch(batch []*writeOp) (opFailed bool, err error) {
	tx, events := w.begin()
	if tx.Error != nil {
		return false, fmt.Errorf("begin: %w", tx.Error)
	}
	for _, op := range batch {
		if err := safeRun(op.fn, tx); err != nil {
			tx.Rollback()
			return true, err
		}
	}
	if err := tx.Commit().Error; err != nil {
		return false, fmt.Errorf("commit: %w", err)
	}
	w.publish(events)
	return false, nil
}

// runAlone commits one operation in its own transaction.
func (w *Writer) runAlone(op *writeOp) error {
	tx, events := w.begin()
	if tx.Error != nil {
		return fmt.Errorf("begin: %w", tx.Error)
	}
	if err := safeRun(op.fn, tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit().Error; err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	w.publish(events)
	return nil
}

func safeRun(fn func(*gorm.DB) error, tx *gorm.DB) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("write panicked: %v", r)
		}
	}()
	return fn(tx)
}
