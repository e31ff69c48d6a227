package handlers

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
)

// KeepAlive is how often an idle stream gets a comment line.
var KeepAlive = 15 * time.Second

// Stream serves GET /stream: named Server-Sent Events with ids. With
// Last-Event-ID (or ?lastEventId=) it first replays what the client missed
// from the event log, then follows live events; ?project= filters.
func (h *Handler) Stream(c *fiber.Ctx) error {
	// Everything needed from c is read now: the context is recycled once
	// the handler returns, before the stream writer runs.
	project := c.Query("project")
	lastID, _ := strconv.ParseInt(c.Get("Last-Event-ID", c.Query("lastEventId")), 10, 64)
	c.Set("Content-Type", "text/event-stream")
	c.Set("Cache-Control", "no-cache")
	c.Set("Connection", "keep-alive")
	c.Set("X-Accel-Buffering", "no")

	// Subscribe before reading the log, so nothing falls between the two.
	sub := h.Broker.Subscribe(project)
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer h.Broker.Unsubscribe(sub)
		fmt.Fprint(w, "retry: 2000\n\n")
		if lastID > 0 {
			var err error
			if lastID, err = h.replay(w, lastID, project); err != nil {
				return
			}
		}
		if w.Flush() != nil {
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
				if ev.ID <= lastID {
					continue // already sent by the replay
				}
				writeEvent(w, ev)
				lastID = ev.ID
				// Batch what is already queued into one flush.
				for drained := false; !drained; {
					select {
					case ev, ok := <-sub.C:
						if !ok {
							w.Flush()
							return
						}
						if ev.ID > lastID {
							writeEvent(w, ev)
							lastID = ev.ID
						}
					default:
						drained = true
					}
				}
				if w.Flush() != nil {
					return
				}
			case <-tick.C:
				fmt.Fprint(w, ": keepalive\n\n")
				if w.Flush() != nil {
					return
				}
			}
		}
	})
	return nil
}

// replay writes the events after lastID and returns the id of the last one.
func (h *Handler) replay(w *bufio.Writer, lastID int64, project string) (int64, error) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		events, err := h.Store.EventsAfter(ctx, lastID, project, 500)
		cancel()
		if err != nil {
			return lastID, err
		}
		for _, ev := range events {
			writeEvent(w, ev)
			lastID = ev.ID
		}
		if len(events) < 500 {
			return lastID, nil
		}
		if err := w.Flush(); err != nil {
			return lastID, err
		}
	}
}

func writeEvent(w *bufio.Writer, ev models.Event) {
	fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Kind, ev.Data)
}
