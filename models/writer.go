package models

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// ErrWriterClosed is returned by Writer.Do once the store is closing.
var ErrWriterClosed = errors.New("store is closing")

// maxBatch bounds how many operations share one transaction.
const maxBatch = 512

// maxLinger bounds how long a transaction waits for operations that callers
// announced with Expect but have not queued yet.
const maxLinger = 2 * time.Millisecond

// Writer serialises writes through one goroutine and commits them in groups:
// every operation waiting when a transaction starts joins it, so N concurrent
// ingests cost one commit instead of N. A failing operation does not take its
// neighbours down (see commit).
// Do returns only after the transaction holding the operation has committed.
type Writer struct {
	db     *gorm.DB
	ops    chan *writeOp
	quit   chan struct{}
	done   chan struct{}
	closed sync.Once
	// onCommit is set once the stream exists, after the writer's loop
	// started, hence atomic.
	onCommit atomic.Pointer[func(Event)]
	// listener publishes the committed events instead of the writer, on
	// PostgreSQL (nil on SQLite): see pgnotify.go.
	listener *eventListener

	// expected counts operations announced (Expect) but not queued yet.
	expected atomic.Int64
	batches  atomic.Uint64
	nops     atomic.Uint64
	alone    atomic.Uint64

	// The size and duration of the last commit, for fill (the writer's
	// goroutine only).
	lastSize int
	lastTook time.Duration
}

// WriterStats counts committed transactions and the operations they held.
type WriterStats struct {
	Batches uint64 `json:"batches"`
	Ops     uint64 `json:"ops"`
	// Alone counts the operations committed in a transaction of their
	// own: a batch of one, or a batch re-run one by one after a failure.
	Alone uint64 `json:"alone"`
}

// Stats reports how well group commit is grouping.
func (w *Writer) Stats() WriterStats {
	return WriterStats{Batches: w.batches.Load(), Ops: w.nops.Load(), Alone: w.alone.Load()}
}

type expectKey struct{}

// expectation is one announced operation; released once, when it is
// queued or when its caller gives up.
type expectation struct {
	once sync.Once
	w    *Writer
}

func (e *expectation) release() { e.once.Do(func() { e.w.expected.Add(-1) }) }

// Expect announces that the caller is about to Do an operation (it is
// still parsing its request). A transaction starting meanwhile waits for
// it, up to maxLinger, so concurrent requests share one commit instead of
// trickling into many small ones. Pass the returned context to Do; call
// the returned func when done (it is a no-op once Do has queued).
func (w *Writer) Expect(ctx context.Context) (context.Context, func()) {
	e := &expectation{w: w}
	w.expected.Add(1)
	return context.WithValue(ctx, expectKey{}, e), e.release
}

// OnCommit sets where the events appended by committed transactions go (the
// live-stream broker). The writer calls it from its own goroutine after each
// commit, in id order, so subscribers see events in the order they were
// committed. Events committed before it is set (a migration's follow-up,
// say) reach no one, as no one listens yet; fn must not block.
//
// On PostgreSQL fn gets every replica's events, from the store's event
// listener (pgnotify.go), which starts with this call; the writer itself
// then publishes nothing.
func (w *Writer) OnCommit(fn func(Event)) {
	if w.listener != nil {
		w.listener.start(fn)
		return
	}
	w.onCommit.Store(&fn)
}

// txState is what a writer transaction carries in its context: the events
// it appended (published after the commit, see AppendEvent), and the
// observations and file states queued for batched inserts before the
// commit (see QueueObservation, RecordFileStates).
type txState struct {
	events       []Event
	observations []queuedObservation
	fileStates   []queuedFileStates
}

type txStateKey struct{}

// txStateOf returns the state of a writer transaction, nil for any other.
func txStateOf(tx *gorm.DB) *txState {
	if tx.Statement == nil || tx.Statement.Context == nil {
		return nil
	}
	st, _ := tx.Statement.Context.Value(txStateKey{}).(*txState)
	return st
}

// begin opens a transaction whose context carries a txState.
func (w *Writer) begin() (*gorm.DB, *txState) {
	st := &txState{}
	tx := w.db.WithContext(context.WithValue(context.Background(), txStateKey{}, st)).Begin()
	return tx, st
}

// publish hands a committed transaction's events to OnCommit.
func (w *Writer) publish(c *txState) {
	fn := w.onCommit.Load()
	if fn == nil {
		return
	}
	for _, ev := range c.events {
		(*fn)(ev)
	}
}

type writeOp struct {
	fn  func(tx *Tx) error
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
func (w *Writer) Do(ctx context.Context, fn func(tx *Tx) error) error {
	op := &writeOp{fn: fn, err: make(chan error, 1)}
	select {
	case <-w.quit:
		return ErrWriterClosed
	default:
	}
	select {
	case w.ops <- op:
		if e, ok := ctx.Value(expectKey{}).(*expectation); ok {
			e.release()
		}
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
	if w.listener != nil {
		w.listener.stop()
	}
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
		batch = w.fill(batch)
		w.commit(batch)
	}
}

// fill adds what is queued to batch, then waits for more: for the
// operations callers announced with Expect and have not queued yet (at
// most maxLinger), and for as many operations as the last commit held (at
// most as long as that commit took). Callers are mostly closed loops (a
// session's next hook waits for this one's answer): those the last commit
// acknowledged come back within about a commit's time, and joining this
// commit costs them less than a commit of their own.
func (w *Writer) fill(batch []*writeOp) []*writeOp {
	var linger *time.Timer
	defer func() {
		if linger != nil {
			linger.Stop()
		}
	}()
	yielded := false
	for len(batch) < maxBatch {
		select {
		case op := <-w.ops:
			batch = append(batch, op)
			continue
		default:
		}
		if !yielded {
			// Let callers just woken by the previous commit's acks, or
			// about to queue, run first and join this commit.
			yielded = true
			runtime.Gosched()
			continue
		}
		expected := w.expected.Load() > 0
		if !expected && len(batch) >= w.lastSize {
			return batch
		}
		if linger == nil {
			wait := maxLinger
			if !expected {
				wait = min(wait, w.lastTook)
			}
			linger = time.NewTimer(wait)
		}
		select {
		case op := <-w.ops:
			batch = append(batch, op)
		case <-linger.C:
			return batch
		case <-w.quit:
			return batch
		}
	}
	return batch
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
	start := time.Now()
	defer func() { w.lastSize, w.lastTook = len(batch), time.Since(start) }()
	w.batches.Add(1)
	w.nops.Add(uint64(len(batch)))
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
	tx, st := w.begin()
	if tx.Error != nil {
		return false, fmt.Errorf("begin: %w", tx.Error)
	}
	for _, op := range batch {
		if err := safeRun(op.fn, tx); err != nil {
			tx.Rollback()
			return true, err
		}
	}
	if err := flushQueued(tx, st); err != nil {
		// Which queued row was refused is not known: re-run each
		// operation alone so only its own caller sees the error.
		tx.Rollback()
		return true, err
	}
	if err := tx.Commit().Error; err != nil {
		return false, fmt.Errorf("commit: %w", err)
	}
	w.publish(st)
	return false, nil
}

// runAlone commits one operation in its own transaction.
func (w *Writer) runAlone(op *writeOp) error {
	w.alone.Add(1)
	tx, st := w.begin()
	if tx.Error != nil {
		return fmt.Errorf("begin: %w", tx.Error)
	}
	if err := safeRun(op.fn, tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := flushQueued(tx, st); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit().Error; err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	w.publish(st)
	return nil
}

// flushQueued inserts what the transaction's operations queued: the
// observations with their events, then the states of their files. Last,
// on PostgreSQL, it notifies the replicas of the transaction's events
// (notifyEvents): the NOTIFY is delivered at the commit. A queued row of
// a session forgotten meanwhile fails it with ErrSessionGone.
func flushQueued(tx *gorm.DB, st *txState) error {
	if err := flushObservations(tx, st); err != nil {
		return goneIfForeignKey(err)
	}
	queued := st.fileStates
	st.fileStates = nil
	if err := flushFileStates(tx, queued); err != nil {
		return goneIfForeignKey(err)
	}
	return notifyEvents(tx, st)
}

func safeRun(fn func(*Tx) error, tx *gorm.DB) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("write panicked: %v", r)
		}
	}()
	return fn(&Tx{db: tx})
}
