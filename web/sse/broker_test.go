package sse

import (
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
)

func recv(t *testing.T, s *Subscriber) (models.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-s.C:
		return ev, ok
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
		return models.Event{}, false
	}
}

// waitClients polls Clients, which the broker's goroutine updates.
func waitClients(t *testing.T, b *Broker, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); b.Clients() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("clients = %d, want %d", b.Clients(), n)
		}
	}
}

func TestBrokerFilterAndOrder(t *testing.T) {
	b := NewBroker()
	defer b.Close()
	all, alpha := b.Subscribe(""), b.Subscribe("alpha")
	waitClients(t, b, 2)
	for _, ev := range []models.Event{
		{ID: 1, Kind: models.EventPrompt, Project: "alpha"},
		{ID: 2, Kind: models.EventPrompt, Project: "beta"},
		{ID: 3, Kind: models.EventSettingsChanged},
		{ID: 4, Kind: models.EventSummary, Project: "alpha"},
	} {
		b.Publish(ev)
	}
	for _, want := range []int64{1, 2, 3, 4} {
		if ev, _ := recv(t, all); ev.ID != want {
			t.Errorf("all got %d, want %d", ev.ID, want)
		}
	}
	for _, want := range []int64{1, 3, 4} { // settings changes pass the filter
		if ev, _ := recv(t, alpha); ev.ID != want {
			t.Errorf("alpha got %d, want %d", ev.ID, want)
		}
	}
	b.Unsubscribe(alpha)
	b.Unsubscribe(alpha) // twice is fine
	if _, ok := recv(t, alpha); ok {
		t.Error("unsubscribed channel still open")
	}
	waitClients(t, b, 1)
}

func TestBrokerDropsSlowSubscriber(t *testing.T) {
	b := NewBroker()
	defer b.Close()
	slow, fast := b.Subscribe(""), b.Subscribe("")
	done := make(chan int)
	go func() {
		n := 0
		for range fast.C {
			n++
			if n == clientBuffer*2 {
				break
			}
		}
		done <- n
	}()
	for i := range clientBuffer * 2 {
		b.Publish(models.Event{ID: int64(i + 1), Kind: models.EventPrompt})
		if i%64 == 0 {
			time.Sleep(time.Millisecond) // let the fast reader keep up
		}
	}
	if n := <-done; n != clientBuffer*2 {
		t.Errorf("fast subscriber got %d", n)
	}
	// The slow one got its buffer's worth, then its channel was closed.
	n := 0
	for range slow.C {
		n++
	}
	if n != clientBuffer || b.DroppedClients() != 1 {
		t.Errorf("slow subscriber got %d events before being dropped (dropped %d)", n, b.DroppedClients())
	}
	b.Unsubscribe(slow) // after a drop: no effect, no panic
}

func TestBrokerClose(t *testing.T) {
	b := NewBroker()
	s := b.Subscribe("")
	b.Close()
	b.Close()
	if _, ok := <-s.C; ok {
		t.Error("channel open after Close")
	}
	late := b.Subscribe("")
	if _, ok := <-late.C; ok {
		t.Error("subscribe after Close returned an open channel")
	}
	b.Unsubscribe(late)
	b.Publish(models.Event{ID: 1}) // does not block
}
