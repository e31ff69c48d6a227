package heaptune

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		name string
		live uint64
		want int
	}{
		{"empty heap: the default", 0, defaultPercent},
		{"under the least headroom: the default", 20 << 20, defaultPercent},
		{"48 MB live: 24 MB of growth", 48 << 20, 50},
		{"96 MB live: a quarter", 96 << 20, 25},
		{"a large heap: a quarter", 4 << 30, 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := choose(tc.live); got != tc.want {
				t.Errorf("choose(%d MB) = %d, want %d", tc.live>>20, got, tc.want)
			}
		})
	}
}

// read is one of the runtime's metrics now.
func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitFor collects until cond holds, for at most 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %s", what)
		}
		runtime.GC()
	}
}

// startForTest starts a tuner whatever the environment says, and stops it
// at the test's end, checking that GOGC is back as it was.
func startForTest(t *testing.T, every time.Duration) *Tuner {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	before := currentPercent()
	tu := start(every)
	if tu == nil {
		t.Fatal("start returned nil with neither GOMEMLIMIT nor GOGC set")
	}
	t.Cleanup(func() {
		tu.Stop()
		if got := currentPercent(); got != before {
			t.Errorf("after Stop GOGC is %d, want %d as before Start", got, before)
		}
	})
	return tu
}

// TestTunerKeepsHeapNearLive holds 96 MB live (a stand-in for the vector
// index, pointer-free as it is): with the runtime's default the heap's goal
// is about twice the live size; with the tuner, the live heap and a
// quarter. (The goal, not the heap's peak, is what the tuner sets: how far
// the heap passes it while the collector marks depends on how fast the
// program allocates meanwhile, and on the machine's load.)
func TestTunerKeepsHeapNearLive(t *testing.T) {
	const live = 96 << 20
	ballast := make([]byte, live)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	runtime.GC()
	if g := read("/gc/heap/goal:bytes"); g < 2*live {
		t.Fatalf("heap goal %d MB with %d MB live before the tuner: want the default's twice", g>>20, live>>20)
	}
	tu := startForTest(t, trimEvery)
	waitFor(t, "GOGC 25 with 96 MB live", func() bool { p, _ := tu.state(); return p == 25 })
	runtime.GC()
	// The goal counts this test binary's own live heap, stacks and
	// globals too: a few MB.
	if g := read("/gc/heap/goal:bytes"); g < live+live/4 || g > live+live/4+16<<20 {
		t.Errorf("heap goal %d MB with %d MB live: want the live heap and a quarter (%d MB)", g>>20, live>>20, (live+live/4)>>20)
	}
	runtime.KeepAlive(ballast)
}

// TestTunerReturnsFreePages frees a 96 MB heap: the runtime keeps the
// pages, and the tuner returns them to the system after the collection.
// (Returning is allowed at every collection here: the worker's 30 s pause
// between two would let an earlier trim, of another test's garbage, stand
// in the way.)
func TestTunerReturnsFreePages(t *testing.T) {
	tu := startForTest(t, 0)
	big := make([]byte, 96<<20)
	for i := range big {
		big[i] = byte(i)
	}
	runtime.KeepAlive(big)
	big = nil
	waitFor(t, "free pages returned", func() bool {
		_, trims := tu.state()
		return trims > 0 && read(heapFree) <= trimAbove
	})
}

func TestUserChoiceStands(t *testing.T) {
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "200")
			if tu := Start(); tu != nil {
				tu.Stop()
				t.Fatalf("Start tuned the heap with %s set", env)
			}
		})
	}
	var tu *Tuner
	tu.Stop() // a nil tuner stops quietly
}
