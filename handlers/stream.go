package handlers

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
)

// KeepAlive is how often an idle stream gets a comment line. Tests shorten
// it.
var KeepAlive = 15 * time.Second

// StreamWriteTimeout bounds how long one write to a stream client may block.
// A client that stops reading (its TCP window full) is cut off after it, so
// its connection and goroutine do not live forever; it reconnects and
// catches up by replay.
var StreamWriteTimeout = 30 * time.Second

// replayBatch is how many events one event-log read returns.
const replayBatch = 500

// Stream serves GET /stream: named Server-Sent Events with ids. With
// Last-Event-ID (or ?lastEventId=) it first replays what the client missed
// from the event log, then follows live events; ?project= filters (settings
// changes always pass).
//
// Ids on the wire only go up, and none is skipped: the store's writer
// publishes each transaction's events after its commit, in id order, and
// a subscriber the broker cannot serve is disconnected, to come back with
// Last-Event-ID and replay from the log.
func (h *Handler) Stream(c *fiber.Ctx) error {
	// Everything needed from c is read now: the context is recycled once
	// the handler returns, before the stream writer runs.
	project := c.Query("project")
	lastID, _ := strconv.ParseInt(c.Get("Last-Event-ID", c.Query("lastEventId")), 10, 64)
	conn := c.Context().Conn()
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
	sub := h.Broker.Subscribe(project)
	s := &stream{h: h, project: project, lastID: lastID, conn: conn}
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer h.Broker.Unsubscribe(sub)
		if conn != nil {
			defer conn.SetWriteDeadline(time.Time{}) // the connection may serve another request
		}
		s.w = w
		fmt.Fprint(w, "retry: 2000\n\n")
		if s.fill() != nil {
			return
		}
		if s.flush() != nil {
			return
		}
		tick := time.NewTicker(KeepAlive)
		defer tick.Stop()
		for {
			select {
			case ev, ok := <-sub.C:
				if !ok {
					return // dropped as too slow, or shutting down
				}
				if s.deliver(ev) != nil {
					return
				}
				// Batch what is already queued into one flush.
				for drained := false; !drained; {
					select {
					case ev, ok := <-sub.C:
						if !ok {
							s.flush()
							return
						}
						if s.deliver(ev) != nil {
							return
						}
					default:
						drained = true
					}
				}
				if s.flush() != nil {
					return
				}
			case <-tick.C:
				fmt.Fprint(w, ": keepalive\n\n")
				if s.flush() != nil {
					return
				}
			}
		}
	})
	return nil
}

// stream is one client's position in the event log.
type stream struct {
	h       *Handler
	w       *bufio.Writer
	conn    net.Conn
	project string
	lastID  int64 // every event up to here was sent (or filtered out)
}

// deliver writes ev unless the replay already sent it. The writer publishes
// events in commit order, and the broker disconnects a subscriber rather
// than skip one of its events, so the channel never has a gap to fill.
func (s *stream) deliver(ev models.Event) error {
	if ev.ID > s.lastID {
		writeEvent(s.w, ev)
		s.lastID = ev.ID
	}
	return nil
}

// fill writes the log's events after lastID.
func (s *stream) fill() error {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		events, err := s.h.Store.EventsAfter(ctx, s.lastID, s.project, replayBatch)
		cancel()
		if err != nil {
			return err
		}
		for _, ev := range events {
			writeEvent(s.w, ev)
			s.lastID = ev.ID
		}
		if len(events) < replayBatch {
			return nil
		}
		if err := s.flush(); err != nil {
			return err
		}
	}
}

// flush sends what is buffered, within StreamWriteTimeout.
func (s *stream) flush() error {
	if s.conn != nil {
		s.conn.SetWriteDeadline(time.Now().Add(StreamWriteTimeout))
	}
	return s.w.Flush()
}

func writeEvent(w *bufio.Writer, ev models.Event) {
	fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Kind, ev.Data)
}
