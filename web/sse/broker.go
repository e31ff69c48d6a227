// Package sse is mneme's live-event broker. Each event is encoded once into
// its Server-Sent Events frame, which every subscriber shares. Each
// subscriber has a buffered channel and publishing never blocks: a
// subscriber that falls a buffer behind is dropped, and its browser
// reconnects with Last-Event-ID and catches up from the event log.
package sse

import (
	"sync"
	"sync/atomic"

	"github.com/mneme-dev/mneme/models"
)

// clientBuffer is how many events a subscriber may lag behind before it is
// dropped.
const clientBuffer = 256

// Message is one event ready for the wire. Frame is shared by every
// subscriber: read it, never change it.
type Message struct {
	ID    int64
	Frame []byte // "id: …\nevent: …\ndata: …\n\n"
}

// Subscriber is one live-stream client.
type Subscriber struct {
	// C delivers events in the order they were published; it is closed
	// when the subscriber is dropped (too slow) or the broker stops.
	C       chan Message
	project string
}

// wants reports whether the subscriber's project filter lets ev through
// (settings changes and forgotten rows always pass).
func (s *Subscriber) wants(ev *models.Event) bool {
	return s.project == "" || ev.Project == s.project || ev.Kind == models.EventSettingsChanged || ev.Kind == models.EventForgotten || ev.Kind == models.EventImportProgress
}

// Broker fans committed events out to subscribers.
//
// Publish hands each event straight to the subscribers' channels, under
// the broker's lock, instead of through a goroutine that owns them: the
// extra hop was a goroutine wakeup on the path of every live event. The
// lock is only ever held for non-blocking channel operations.
type Broker struct {
	mu      sync.Mutex
	subs    map[*Subscriber]struct{}
	closed  bool
	clients atomic.Int64
	slow    atomic.Int64 // subscribers dropped for falling behind
}

// NewBroker returns a broker; stop it with Close.
func NewBroker() *Broker {
	return &Broker{subs: map[*Subscriber]struct{}{}}
}

// Publish encodes ev once and hands it to every subscriber it is for,
// without blocking. A subscriber whose buffer is full is dropped rather
// than left with a gap: it reconnects and replays from the event log.
// Events reach each subscriber in the order of the Publish calls (the
// store's writer makes them in id order, from one goroutine).
func (b *Broker) Publish(ev models.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs) == 0 {
		return
	}
	msg := Message{ID: ev.ID, Frame: AppendFrame(nil, ev)}
	for s := range b.subs {
		if !s.wants(&ev) {
			continue
		}
		select {
		case s.C <- msg:
		default:
			b.drop(s) // too slow: it catches up by replay
			b.slow.Add(1)
		}
	}
}

// Subscribe registers a subscriber for project ("" for all). After Close
// its channel is already closed.
func (b *Broker) Subscribe(project string) *Subscriber {
	s := &Subscriber{C: make(chan Message, clientBuffer), project: project}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(s.C)
		return s
	}
	b.subs[s] = struct{}{}
	b.clients.Store(int64(len(b.subs)))
	return s
}

// Unsubscribe removes a subscriber. It is safe to call more than once and
// after the subscriber was dropped.
func (b *Broker) Unsubscribe(s *Subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drop(s)
}

// drop removes s and closes its channel; b.mu is held.
func (b *Broker) drop(s *Subscriber) {
	if _, ok := b.subs[s]; ok {
		delete(b.subs, s)
		close(s.C)
		b.clients.Store(int64(len(b.subs)))
	}
}

// Clients is the number of live subscribers.
func (b *Broker) Clients() int { return int(b.clients.Load()) }

// DroppedClients is how many subscribers were dropped for falling more than
// a buffer behind.
func (b *Broker) DroppedClients() int64 { return b.slow.Load() }

// Close closes every subscriber's channel; later subscribers get a closed
// channel and Publish delivers nothing. It is safe to call more than once.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for s := range b.subs {
		b.drop(s)
	}
}
