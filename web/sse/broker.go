// Package sse is mneme's live-event broker: one goroutine owns the
// subscribers, each subscriber has a buffered channel, and publishing never
// blocks. A subscriber that falls behind is dropped; its browser reconnects
// with Last-Event-ID and catches up from the event log.
package sse

import (
	"sync/atomic"

	"github.com/mneme-dev/mneme/models"
)

// clientBuffer is how many events a subscriber may lag behind before it is
// dropped.
const clientBuffer = 256

// Subscriber is one live-stream client.
type Subscriber struct {
	// C delivers events; it is closed when the subscriber is dropped (too
	// slow) or the broker stops.
	C       chan models.Event
	project string
}

// Broker fans committed events out to subscribers.
type Broker struct {
	publish     chan models.Event
	subscribe   chan *Subscriber
	unsubscribe chan *Subscriber
	quit        chan struct{}
	done        chan struct{}
	clients     atomic.Int64
	dropped     atomic.Int64 // events the publish queue had no room for
	lost        atomic.Bool  // an event was dropped: disconnect everyone so they replay
	slow        atomic.Int64 // subscribers dropped for falling behind
}

// NewBroker starts a broker; stop it with Close.
func NewBroker() *Broker {
	b := &Broker{
		publish:     make(chan models.Event, 4096),
		subscribe:   make(chan *Subscriber),
		unsubscribe: make(chan *Subscriber),
		quit:        make(chan struct{}),
		done:        make(chan struct{}),
	}
	go b.run()
	return b
}

// Publish hands an event to the broker without blocking. If the broker's own
// queue is full the event is not delivered live; clients still get it by
// replay on their next reconnect.
func (b *Broker) Publish(ev models.Event) {
	select {
	case b.publish <- ev:
	default:
		// Dropping the event silently would leave a gap on every stream:
		// instead every subscriber is disconnected at the next event and
		// catches up by replay.
		b.dropped.Add(1)
		b.lost.Store(true)
	}
}

// Subscribe registers a subscriber for project ("" for all).
func (b *Broker) Subscribe(project string) *Subscriber {
	s := &Subscriber{C: make(chan models.Event, clientBuffer), project: project}
	select {
	case b.subscribe <- s:
	case <-b.quit:
		close(s.C)
	}
	return s
}

// Unsubscribe removes a subscriber. It is safe to call more than once and
// after the subscriber was dropped.
func (b *Broker) Unsubscribe(s *Subscriber) {
	select {
	case b.unsubscribe <- s:
	case <-b.done:
	}
}

// Clients is the number of live subscribers.
func (b *Broker) Clients() int { return int(b.clients.Load()) }

// DroppedClients is how many subscribers were dropped for falling more than
// a buffer behind.
func (b *Broker) DroppedClients() int64 { return b.slow.Load() }

// DroppedEvents is how many events found the publish queue full and were
// not delivered live (clients still get them by replay).
func (b *Broker) DroppedEvents() int64 { return b.dropped.Load() }

// Close stops the broker and closes every subscriber's channel.
func (b *Broker) Close() {
	select {
	case <-b.quit:
	default:
		close(b.quit)
	}
	<-b.done
}

func (b *Broker) run() {
	defer close(b.done)
	subs := map[*Subscriber]struct{}{}
	drop := func(s *Subscriber) {
		if _, ok := subs[s]; ok {
			delete(subs, s)
			close(s.C)
			b.clients.Store(int64(len(subs)))
		}
	}
	for {
		select {
		case s := <-b.subscribe:
			subs[s] = struct{}{}
			b.clients.Store(int64(len(subs)))
		case s := <-b.unsubscribe:
			drop(s)
		case ev := <-b.publish:
			if b.lost.Swap(false) {
				for s := range subs {
					drop(s)
				}
			}
			for s := range subs {
				if s.project != "" && ev.Project != s.project && ev.Kind != models.EventSettingsChanged {
					continue
				}
				select {
				case s.C <- ev:
				default:
					drop(s) // too slow: it catches up by replay
					b.slow.Add(1)
				}
			}
		case <-b.quit:
			for s := range subs {
				drop(s)
			}
			return
		}
	}
}
