package models

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"
)

// The live stream of a team: several workers (replicas) on one PostgreSQL
// database, each with its own SSE clients, which must all see every event
// once and in one order.
//
// On SQLite the writer hands its committed events to OnCommit itself. On
// PostgreSQL it does not: a replica would then see its own events at once
// and the others' never. Instead
//
//   - a writer transaction that appended events sends
//     NOTIFY mneme_events, '<its largest event id>' just before COMMIT
//     (notifyEvents): PostgreSQL delivers it at the commit, to every
//     replica, and never for a transaction rolled back;
//   - each replica's eventListener LISTENs on its own connection and, on
//     a notification, every listenPoll as a backstop and right after
//     (re)connecting, reads the event log after the last id it published
//     and hands each event to OnCommit, in id order.
//
// Every replica, the writing one included, thus publishes the log itself,
// in id order. The events_serial trigger (migrations_postgres.go) makes id
// order the commit order: an event's id is drawn while its transaction
// holds a lock that the transaction before it released only once its
// commit was visible. A read that returns id N has seen every event below
// N that will ever commit, so reading "id > last" misses nothing and
// repeats nothing, and a notification lost (a dropped connection, a
// payload past the queue) costs latency, not events.

// eventsChannel is the NOTIFY channel of committed events.
const eventsChannel = "mneme_events"

const (
	// listenPoll is how often the listener reads the log when no
	// notification came: a backstop, not the usual path.
	listenPoll = time.Second
	// listenBackoffMin and listenBackoffMax bound the wait between two
	// attempts to connect the listener (it doubles on each failure).
	listenBackoffMin = 50 * time.Millisecond
	listenBackoffMax = 5 * time.Second
	// listenBatch is how many events one read of the log returns.
	listenBatch = 500
	// listenAppName names the listener's connection in pg_stat_activity.
	listenAppName = "mneme-listen"
)

// notifyEvents announces the events a writer transaction appended to the
// other replicas (and to its own listener), on PostgreSQL, before the
// commit: the notification is part of the transaction. A no-op on SQLite.
func notifyEvents(tx *gorm.DB, st *txState) error {
	if len(st.events) == 0 || tx.Dialector.Name() != DialectPostgres {
		return nil
	}
	var last int64
	for _, ev := range st.events {
		last = max(last, ev.ID)
	}
	return tx.Exec(`SELECT pg_notify(?, ?)`, eventsChannel, strconv.FormatInt(last, 10)).Error
}

// eventListener publishes a PostgreSQL store's committed events, its own
// and the other replicas', to the writer's OnCommit callback. It starts
// with the first OnCommit (a store nobody follows, such as a CLI command's,
// opens no connection for it) and stops with the writer.
type eventListener struct {
	store *Store
	fn    atomic.Pointer[func(Event)]

	mu      sync.Mutex
	started bool
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{}

	last      atomic.Int64 // the id of the last event published
	connects  atomic.Int64
	published atomic.Int64
	errs      errorCount // connections refused or lost, reads failed
}

func newEventListener(s *Store) *eventListener { return &eventListener{store: s} }

// ListenerStats describe a PostgreSQL store's event listener.
type ListenerStats struct {
	// Connects counts the LISTEN connections made (more than one: it
	// reconnected).
	Connects int64 `json:"connects"`
	// Published counts the events handed to OnCommit.
	Published int64 `json:"published"`
	// LastID is the id of the last event published.
	LastID int64 `json:"lastId"`
	// BackgroundErrors count what failed: a connection that could not be
	// made or was lost, a read of the log. Events still flow while they
	// last (the log is read again at the next attempt), only later.
	BackgroundErrors
}

// ListenerStats reports what the event listener did; zero on SQLite or
// before OnCommit.
func (s *Store) ListenerStats() ListenerStats {
	l := s.Writer.listener
	if l == nil {
		return ListenerStats{}
	}
	return ListenerStats{Connects: l.connects.Load(), Published: l.published.Load(), LastID: l.last.Load(), BackgroundErrors: l.errs.stats()}
}

// start sets fn as where events go and, the first time, starts following
// the log from its current end: a replica that starts does not publish
// history (its clients replay it with Last-Event-ID). The end is read
// before start returns, so an event committed after it is published.
func (l *eventListener) start(fn func(Event)) {
	l.fn.Store(&fn)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started || l.stopped || fn == nil {
		return
	}
	l.started = true
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	tail, err := l.store.LastEventID(ctx)
	l.last.Store(tail)
	go l.run(ctx, err == nil)
}

// stop ends the listener and waits for its goroutine.
func (l *eventListener) stop() {
	l.mu.Lock()
	l.stopped = true
	cancel, done := l.cancel, l.done
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// run connects, listens and publishes until ctx ends, reconnecting with
// backoff when the connection fails. Between two attempts it still reads
// the log (through the store's pool), so events keep flowing, at the
// backoff's pace, while LISTEN is not possible.
func (l *eventListener) run(ctx context.Context, haveTail bool) {
	defer close(l.done)
	backoff := listenBackoffMin
	for ctx.Err() == nil {
		if !haveTail {
			// The log's end could not be read at start: read it now.
			t, err := l.store.LastEventID(ctx)
			if err != nil {
				l.fail(ctx, err)
				if !pause(ctx, backoff) {
					return
				}
				backoff = min(2*backoff, listenBackoffMax)
				continue
			}
			l.last.Store(t)
			haveTail = true
		}
		conn, err := l.connect(ctx)
		if err != nil {
			l.fail(ctx, err)
			l.fail(ctx, l.catchUp(ctx))
			if !pause(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, listenBackoffMax)
			continue
		}
		backoff = listenBackoffMin
		l.fail(ctx, l.follow(ctx, conn))
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(closeCtx)
		cancel()
	}
}

// connect opens the listener's own connection and LISTENs.
func (l *eventListener) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(l.store.url)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["application_name"] = listenAppName
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(cctx, `LISTEN `+eventsChannel); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	l.connects.Add(1)
	return conn, nil
}

// follow publishes what the log holds past the last id (events committed
// while no connection listened), then waits for notifications, reading
// the log on each one and every listenPoll. It returns when ctx ends or
// the connection fails.
func (l *eventListener) follow(ctx context.Context, conn *pgx.Conn) error {
	l.fail(ctx, l.catchUp(ctx))
	for {
		wctx, cancel := context.WithTimeout(ctx, listenPoll)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && !errors.Is(wctx.Err(), context.DeadlineExceeded):
			return err // the connection failed: reconnect
		case err != nil && conn.IsClosed():
			return err
		case err == nil && n != nil:
			// The payload is the largest id of the transaction: one
			// already published needs no read (a poll got there first).
			if id, perr := strconv.ParseInt(n.Payload, 10, 64); perr == nil && id <= l.last.Load() {
				continue
			}
		}
		// A notification, or none for listenPoll: read the log. A failed
		// read is counted, and tried again at the next one.
		l.fail(ctx, l.catchUp(ctx))
	}
}

// catchUp hands every event after the last published one to OnCommit, in
// id order.
func (l *eventListener) catchUp(ctx context.Context) error {
	fn := *l.fn.Load()
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		events, err := l.store.EventsAfter(rctx, l.last.Load(), "", listenBatch)
		cancel()
		if err != nil {
			return err
		}
		for _, ev := range events {
			if fn != nil {
				fn(ev)
			}
			l.last.Store(ev.ID)
			l.published.Add(1)
		}
		if len(events) < listenBatch {
			return nil
		}
	}
}

// fail counts err, unless it is nil or the listener is stopping (its
// context ended: the error is the stop, not a failure).
func (l *eventListener) fail(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		l.errs.add(err, l.store.url)
	}
}

// pause waits d, or less if ctx ends first; it reports whether ctx is
// still live.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
