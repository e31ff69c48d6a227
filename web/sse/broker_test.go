package sse

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
)

func recv(t *testing.T, s *Subscriber) (Message, bool) {
	t.Helper()
	select {
	case m, ok := <-s.C:
		return m, ok
	case <-time.After(60 * time.Second):
		t.Fatal("no event within 60s")
		return Message{}, false
	}
}

// waitClients polls Clients.
func waitClients(t *testing.T, b *Broker, n int) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); b.Clients() != n; time.Sleep(time.Millisecond) {
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
	var frames [][]byte
	for _, want := range []int64{1, 2, 3, 4} {
		m, _ := recv(t, all)
		if m.ID != want || !bytes.HasPrefix(m.Frame, fmt.Appendf(nil, "id: %d\n", want)) {
			t.Errorf("all got %d %q, want %d", m.ID, m.Frame, want)
		}
		frames = append(frames, m.Frame)
	}
	for i, want := range []int64{1, 3, 4} { // settings changes pass the filter
		m, _ := recv(t, alpha)
		if m.ID != want {
			t.Errorf("alpha got %d, want %d", m.ID, want)
		}
		// Encoded once: both subscribers hold the same bytes.
		if shared := frames[[]int{0, 2, 3}[i]]; &m.Frame[0] != &shared[0] {
			t.Errorf("event %d was encoded again for the second subscriber", want)
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
	// The fast reader acknowledges every event, and the next is published
	// only after the acknowledgement: it never falls behind, however
	// loaded the machine, while the slow one never reads.
	got := make(chan int64)
	go func() {
		for m := range fast.C {
			got <- m.ID
		}
		close(got)
	}()
	for i := range clientBuffer * 2 {
		id := int64(i + 1)
		b.Publish(models.Event{ID: id, Kind: models.EventPrompt})
		if m, ok := <-got; !ok || m != id {
			t.Fatalf("fast subscriber got %d (open %v), want %d", m, ok, id)
		}
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

// TestBrokerConcurrent: subscribers come and go while events are published;
// no send may hit a closed channel, and a subscriber that stays sees every
// event for it, in order.
func TestBrokerConcurrent(t *testing.T) {
	b := NewBroker()
	defer b.Close()
	stay := b.Subscribe("")
	const n = 2000
	var ids []int64
	var read atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range stay.C {
			ids = append(ids, m.ID)
			read.Add(1)
		}
	}()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					b.Unsubscribe(b.Subscribe("alpha"))
				}
			}
		})
	}
	for i := range n {
		b.Publish(models.Event{ID: int64(i + 1), Kind: models.EventPrompt, Project: "alpha"})
		// Batches of 100, each read before the next: the staying
		// subscriber is never more than 100 events (< clientBuffer)
		// behind, however the scheduler runs it. The churning
		// subscribers read nothing: one descheduled between Subscribe and
		// Unsubscribe on a loaded machine fills its buffer and is dropped,
		// as the broker must, so drops are not counted here; only the
		// staying subscriber's channel closing would end the wait early.
		for i%100 == 99 && read.Load() != int64(i+1) && !closed(done) {
			time.Sleep(100 * time.Microsecond)
		}
	}
	close(stop)
	wg.Wait()
	if closed(done) {
		t.Fatalf("the staying subscriber was dropped after %d of %d events, though it was never %d events behind", read.Load(), n, 100)
	}
	b.Unsubscribe(stay)
	<-done
	if len(ids) != n {
		t.Fatalf("the staying subscriber got %d of %d events", len(ids), n)
	}
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("event %d has id %d", i, id)
		}
	}
}

// closed reports whether ch is closed, without blocking.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestAppendFrame(t *testing.T) {
	for _, tc := range []struct {
		data, want string
	}{
		{`{"a":1}`, "id: 7\nevent: prompt\ndata: {\"a\":1}\n\n"},
		{``, "id: 7\nevent: prompt\ndata: \n\n"},
		// Line breaks (never in JSON from encoding/json) would end the
		// field early: each line gets its own data: line instead.
		{"a\nb", "id: 7\nevent: prompt\ndata: a\ndata: b\n\n"},
		{"a\r\nb\rc\n", "id: 7\nevent: prompt\ndata: a\ndata: b\ndata: c\ndata: \n\n"},
	} {
		got := AppendFrame([]byte("x"), models.Event{ID: 7, Kind: models.EventPrompt, Data: []byte(tc.data)})
		if string(got) != "x"+tc.want {
			t.Errorf("AppendFrame(%q) = %q, want %q", tc.data, got, "x"+tc.want)
		}
	}
}

// BenchmarkBrokerFanout measures the broker alone: from Publish to each of
// N subscriber goroutines having the event (all subscribers count in the
// percentiles). No HTTP: see handlers' BenchmarkStreamLatency for the
// whole path.
func BenchmarkBrokerFanout(b *testing.B) {
	for _, subs := range []int{1, 100} {
		b.Run(fmt.Sprintf("subs=%d", subs), func(b *testing.B) {
			br := NewBroker()
			defer br.Close()
			n := b.N
			at := make([][]time.Time, subs)
			var pending atomic.Int64
			wake := make(chan struct{}, 1)
			for i := range subs {
				s := br.Subscribe("")
				at[i] = make([]time.Time, 0, n)
				go func() {
					for range s.C {
						at[i] = append(at[i], time.Now())
						if pending.Add(-1) == 0 {
							wake <- struct{}{}
						}
					}
				}()
			}
			t0s := make([]time.Time, n)
			data := []byte(`{"id":1,"project":"bench","toolName":"Bash","title":"Ran go test ./...","success":true}`)
			b.ResetTimer()
			for i := range n {
				pending.Store(int64(subs))
				t0s[i] = time.Now()
				br.Publish(models.Event{ID: int64(i + 1), Kind: models.EventObservation, Project: "bench", Data: data})
				<-wake
			}
			b.StopTimer()
			var lat []time.Duration
			for _, ts := range at {
				for i, t := range ts {
					lat = append(lat, t.Sub(t0s[i]))
				}
			}
			slices.Sort(lat)
			us := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Nanoseconds()) / 1000 }
			b.ReportMetric(us(0.5), "p50-µs")
			b.ReportMetric(us(0.99), "p99-µs")
		})
	}
}
