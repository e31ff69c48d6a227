package handlers

import (
	"context"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web/sse"
)

// StreamOptions tune the live stream. Zero fields take the defaults.
type StreamOptions struct {
	// KeepAlive is how often an idle stream gets a comment line
	// (default 15 s).
	KeepAlive time.Duration
	// WriteTimeout bounds how long one write to a stream client may
	// block (default 30 s). A client that stops reading (its TCP window
	// full) is cut off after it, so its connection and goroutine do not
	// live forever; it reconnects and catches up by replay.
	WriteTimeout time.Duration
	// TokenCheck is how often a stream opened with a person's token asks
	// the store whether the token is still valid (default 1 s). A revoked
	// token ends the stream at the next check, on whichever replica
	// revoked it: the revocation is a row every replica reads.
	TokenCheck time.Duration
}

// withDefaults fills the zero fields.
func (o StreamOptions) withDefaults() StreamOptions {
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.TokenCheck <= 0 {
		o.TokenCheck = time.Second
	}
	return o
}

// replayBatch is how many events one event-log read returns.
const replayBatch = 500

var (
	retryLine = []byte("retry: 2000\n\n")
	keepalive = []byte(": keepalive\n\n")
)

// Stream serves GET /stream: named Server-Sent Events with ids. With
// Last-Event-ID (or ?lastEventId=) it first replays what the client missed
// from the event log, then follows live events; ?project= filters (settings
// changes always pass).
//
// A stream opened with a person's token ends within StreamOptions.TokenCheck
// of the token's revocation, through any replica.
//
// Events that are not logged (import_progress) go to live clients only,
// without an id line, so a client's Last-Event-ID stays on the log.
//
// Ids on the wire only go up, and none is skipped: the store's writer
// publishes each transaction's events after its commit, in id order (on
// PostgreSQL each replica's event listener publishes every replica's
// events, in id order, once they are committed: models/pgnotify.go), and
// a subscriber the broker cannot serve is disconnected, to come back with
// Last-Event-ID and replay from the log.
//
// The stream is the response's body stream, read by fasthttp's goroutine
// for the connection, which sends each read as one chunk and flushes it.
// (SetBodyStreamWriter would run a second goroutine per client and copy
// every event to the connection's goroutine through an in-memory pipe.)
func (h *Handler) Stream(c *fiber.Ctx) error {
	// Everything needed from c is read now: the context is recycled once
	// the response is written.
	project := c.Query("project")
	lastID, _ := strconv.ParseInt(c.Get("Last-Event-ID", c.Query("lastEventId")), 10, 64)
	c.Set("Content-Type", "text/event-stream")
	c.Set("Cache-Control", "no-cache")
	c.Set("Connection", "keep-alive")
	c.Set("X-Accel-Buffering", "no")

	// The head of the log is read before subscribing, and the stream starts
	// by reading the log after its position: an event committed between
	// the two is then read from the log, and every later one comes through
	// the subscription (it is published after its commit).
	head, err := h.Store.LastEventID(c.UserContext())
	if err != nil {
		return err
	}
	// A fresh client starts at the head; an id from the future (a client
	// of a database since deleted) is treated as fresh rather than waiting
	// for ids the log will take long to reach.
	if lastID <= 0 || lastID > head {
		lastID = head
	}
	opts := h.StreamOptions.withDefaults()
	s := &stream{
		store: h.Store, broker: h.Broker, sub: h.Broker.Subscribe(project), conn: c.Context().Conn(),
		project: project, lastID: lastID, replay: true, pending: retryLine, tick: time.NewTicker(opts.KeepAlive),
		writeTimeout: opts.WriteTimeout,
	}
	if s.token = tokenOf(c); s.token != 0 {
		s.check = time.NewTicker(opts.TokenCheck)
		s.checkC = s.check.C
	}
	c.Context().SetBodyStream(s, -1)
	return nil
}

// stream is one client's position in the event log, and the body of its
// response.
type stream struct {
	store   *models.Store
	broker  *sse.Broker
	sub     *sse.Subscriber
	conn    net.Conn // nil when the context has none
	project string
	lastID  int64  // every event up to here was sent (or filtered out)
	replay  bool   // the log may hold events after lastID not yet read
	buf     []byte // replayed events, encoded
	pending []byte // what is left to send: part of buf, of a shared frame, or a constant
	tick    *time.Ticker
	ended   bool // the subscription was closed: the stream ends once pending is sent

	// token is the person token the stream was opened with (0 for the
	// owner), checked at every tick of check: once it is revoked, the
	// stream ends.
	token  int64
	check  *time.Ticker
	checkC <-chan time.Time // check's channel; nil (never ready) for the owner

	writeTimeout time.Duration // StreamOptions.WriteTimeout
}

// Read blocks until there is something to send, then hands over all that
// is pending, as much as fits in p, so that a burst of events goes out as
// one chunk and one write. It returns io.EOF once the subscriber was
// dropped (too slow), the broker stopped or the person token the stream
// was opened with was revoked, and everything queued was sent.
func (s *stream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && (len(s.pending) > 0 || s.next(n == 0)) {
		c := copy(p[n:], s.pending)
		s.pending = s.pending[c:]
		n += c
	}
	if n == 0 {
		return 0, io.EOF
	}
	if s.conn != nil {
		s.conn.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
	return n, nil
}

// next makes pending what comes next: the replay from the log first, then
// live events and keepalives. It waits for one only if wait is set; it
// reports whether there is something to send.
func (s *stream) next(wait bool) bool {
	for s.replay {
		if !s.fill() {
			s.replay, s.ended = false, true
			return false
		}
		if len(s.pending) > 0 {
			return true
		}
	}
	for !s.ended {
		var msg sse.Message
		var ok bool
		if wait {
			select {
			case msg, ok = <-s.sub.C:
			case <-s.tick.C:
				s.pending = keepalive
				return true
			case <-s.checkC:
				if !s.tokenActive() {
					s.ended = true
					return false
				}
				continue
			}
		} else {
			select {
			case msg, ok = <-s.sub.C:
			default:
				return false
			}
		}
		if !ok {
			s.ended = true // dropped as too slow, or shutting down
			return false
		}
		// The broker publishes in commit order and drops a subscriber
		// rather than skip one of its events, so the channel has no gap;
		// it may repeat what the replay already sent.
		if msg.ID == 0 { // not logged (import_progress): live only
			s.pending = msg.Frame
			return true
		}
		if msg.ID > s.lastID {
			s.lastID, s.pending = msg.ID, msg.Frame
			return true
		}
	}
	return false
}

// tokenActive reports whether the stream's person token may still be used.
// A store that cannot answer keeps the stream: the next check asks again.
func (s *stream) tokenActive() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ok, err := s.store.APITokenActive(ctx, s.token)
	return ok || err != nil
}

// fill reads the next batch of the log after lastID into pending, and
// clears replay once the log is read to its end. It reports false when the
// log cannot be read: the stream then ends, and the client reconnects.
func (s *stream) fill() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	events, err := s.store.EventsAfter(ctx, s.lastID, s.project, replayBatch)
	cancel()
	if err != nil {
		return false
	}
	s.buf = s.buf[:0]
	for _, ev := range events {
		s.buf = sse.AppendFrame(s.buf, ev)
		s.lastID = ev.ID
	}
	s.pending = s.buf
	s.replay = len(events) == replayBatch
	return true
}

// Close is called by fasthttp once the response is written or abandoned
// (the client went away, a write timed out).
func (s *stream) Close() error {
	s.broker.Unsubscribe(s.sub)
	s.tick.Stop()
	if s.check != nil {
		s.check.Stop()
	}
	if s.conn != nil {
		s.conn.SetWriteDeadline(time.Time{}) // the connection may serve another request
	}
	return nil
}
