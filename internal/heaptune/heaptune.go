// Package heaptune keeps the worker's Go heap close to what it holds live
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
// the live heap or by minHeadroom, whichever is more, and never by more than
// the default allows. A goal relative to the live heap follows it as it
// grows, and a small store's worker (a live heap under minHeadroom) runs
// with the default. After a peak (the index loading, a burst of work) it
// also returns the free pages the runtime would give back only slowly.
//
// It does nothing when GOMEMLIMIT or GOGC is set in the environment: the
// user's choice stands. Standard library only.
package heaptune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

const (
	// minHeadroom is the least heap growth allowed between collections
	// above the live heap.
	minHeadroom = 24 << 20
	// defaultPercent is the runtime's GOGC, the most the tuner allows.
	defaultPercent = 100
	// trimAbove is how many bytes of free heap pages the runtime may keep
	// before the tuner returns them to the system, at most once per
	// trimEvery.
	trimAbove = 32 << 20
	trimEvery = 30 * time.Second
)

// The runtime's metrics the tuner reads: GOGC, the live heap after a
// collection, and the heap's free pages it keeps rather than returns.
const (
	gogcPercent = "/gc/gogc:percent"
	liveHeap    = "/gc/heap/live:bytes"
	heapFree    = "/memory/classes/heap/free:bytes"
)

// Tuner sets GOGC after each collection until Stop.
type Tuner struct {
	mu        sync.Mutex
	stopped   bool
	before    int // GOGC when Start ran
	trimEvery time.Duration
	sample    []metrics.Sample
	percent   int       // the last GOGC set (0 before the first collection)
	trimmed   time.Time // when free pages were last returned
	trims     int
}

// Start begins tuning, unless the environment sets GOMEMLIMIT or GOGC
// (then it returns nil; Stop on nil does nothing).
func Start() *Tuner { return start(trimEvery) }

func start(every time.Duration) *Tuner {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return nil
	}
	t := &Tuner{before: currentPercent(), trimEvery: every,
		sample: []metrics.Sample{{Name: liveHeap}, {Name: heapFree}}}
	t.arm()
	return t
}

// currentPercent is GOGC now.
func currentPercent() int {
	s := []metrics.Sample{{Name: gogcPercent}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
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

// adjust sets GOGC from the collection just finished, returns free pages
// after a peak, and reports whether to go on.
func (t *Tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.sample)
	live, free := t.sample[0].Value.Uint64(), t.sample[1].Value.Uint64()
	if p := choose(live); p != t.percent {
		t.percent = p
		debug.SetGCPercent(p)
	}
	if free > trimAbove && time.Since(t.trimmed) >= t.trimEvery {
		// Not here: FreeOSMemory collects, and this runs after a
		// collection, in the finalizer goroutine.
		t.trimmed = time.Now()
		t.trims++
		go debug.FreeOSMemory()
	}
	return true
}

// state is the last GOGC the tuner set and how many times it returned
// free pages.
func (t *Tuner) state() (percent, trims int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.percent, t.trims
}

// choose is the GOGC for a live heap of live bytes: growth by a quarter of
// it or by minHeadroom, whichever is more, and at most defaultPercent.
func choose(live uint64) int {
	if live <= minHeadroom {
		return defaultPercent
	}
	return max(25, min(defaultPercent, int(100*minHeadroom/live)))
}
