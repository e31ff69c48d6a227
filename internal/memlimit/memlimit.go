// Package memlimit keeps the worker's Go heap close to what it holds live
// when most of that is long-lived, as the vector index of a large store is.
//
// With the runtime's default (GOGC=100) a heap grows to twice its live size
// between collections: at a million rows with semantic search on, 60 MB of
// index meant 60 MB more of garbage held before each collection, for no
// gain (docs/performance.md). A soft memory limit (GOMEMLIMIT) caps that,
// but one below the live heap makes the collector run without pause, and
// while the index loads the live heap grows faster than any limit chosen
// after a collection can follow: tried, the heap then grew to twice what
// GOGC=100 gives. So the tuner sets GOGC instead, after each collection,
// from what that collection found live: the heap may grow by a quarter of
// the live heap or by MinHeadroom, whichever is more, and never by more than
// the default allows. A goal relative to the live heap follows it as it
// grows, and a small store's worker (a live heap under MinHeadroom) runs
// with the default.
//
// It does nothing when GOMEMLIMIT or GOGC is set in the environment: the
// user's choice stands. Standard library only.
package memlimit

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// MinHeadroom is the least heap growth allowed between collections above
// the live heap.
const MinHeadroom = 24 << 20

// DefaultPercent is the runtime's GOGC, the most the tuner allows.
const DefaultPercent = 100

// The runtime's metrics read after each collection: the live heap, and
// the heap's free pages it keeps rather than returns to the system.
const (
	liveHeap = "/gc/heap/live:bytes"
	heapFree = "/memory/classes/heap/free:bytes"
)

// TrimAbove is how many bytes of free heap pages the runtime may keep
// before the tuner returns them to the system, at most once per
// TrimEvery: after the vector index loads, or a burst of work, the
// runtime's own scavenger gives back what the heap no longer needs only
// slowly, and the worker's resident memory stays at its peak meanwhile.
const (
	TrimAbove = 32 << 20
	TrimEvery = 30 * time.Second
)

// Tuner sets GOGC after each collection until Stop.
type Tuner struct {
	mu      sync.Mutex
	stopped bool
	before  int // GOGC when Start ran
	sample  []metrics.Sample
	last    int       // the last GOGC set (0 before the first collection)
	trimmed time.Time // when free pages were last returned
	trims   int
}

// Start begins tuning, unless the environment sets GOMEMLIMIT or GOGC
// (then it returns nil; Stop on nil does nothing).
func Start() *Tuner {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return nil
	}
	t := &Tuner{sample: []metrics.Sample{{Name: liveHeap}, {Name: heapFree}}}
	t.before = debug.SetGCPercent(DefaultPercent)
	debug.SetGCPercent(t.before)
	t.arm()
	return t
}

// Stop ends tuning and puts back GOGC as it was before Start.
func (t *Tuner) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(t.before)
	}
}

// Percent is the GOGC the tuner set last (0 before the first collection).
func (t *Tuner) Percent() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// sentinel is garbage from the moment it is made: its finalizer runs after
// the next collection, which is when the live heap is known again.
type sentinel struct{ _ *int }

func (t *Tuner) arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if t.adjust() {
			t.arm()
		}
	})
}

// adjust sets GOGC from the collection just finished and reports whether
// to go on.
func (t *Tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.sample)
	var live, free uint64
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live, free = t.sample[0].Value.Uint64(), t.sample[1].Value.Uint64()
	}
	t.last = Choose(live)
	debug.SetGCPercent(t.last)
	if free > TrimAbove && time.Since(t.trimmed) >= TrimEvery {
		// Not here: FreeOSMemory collects, and this runs after a
		// collection, in the finalizer goroutine.
		t.trimmed = time.Now()
		t.trims++
		go debug.FreeOSMemory()
	}
	return true
}

// Trims is how many times the tuner returned free pages to the system.
func (t *Tuner) Trims() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.trims
}

// Choose is the GOGC for a live heap of live bytes: growth by a quarter of
// it or by MinHeadroom, whichever is more, and at most DefaultPercent.
func Choose(live uint64) int {
	if live <= MinHeadroom {
		return DefaultPercent
	}
	return max(25, min(DefaultPercent, int(100*MinHeadroom/live)))
}
