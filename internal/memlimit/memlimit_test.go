package memlimit

import (
	"runtime"
	"runtime/debug"
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
		{"empty heap: the default", 0, DefaultPercent},
		{"under the least headroom: the default", 20 << 20, DefaultPercent},
		{"48 MB live: 24 MB of growth", 48 << 20, 50},
		{"96 MB live: a quarter", 96 << 20, 25},
		{"a large heap: a quarter", 4 << 30, 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Choose(tc.live); got != tc.want {
				t.Errorf("Choose(%d MB) = %d, want %d", tc.live>>20, got, tc.want)
			}
		})
	}
}

// heapGoal is the heap size at which the runtime starts its next
// collection.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestTunerKeepsHeapNearLive holds 96 MB live (a stand-in for the vector
// index, pointer-free as it is): with the runtime's default the heap's goal
// is about twice the live size; with the tuner, the live heap and a
// quarter. (The goal, not the heap's peak, is what the tuner sets: how far
// the heap passes it while the collector marks depends on how fast the
// program allocates meanwhile, and on the machine's load.)
func TestTunerKeepsHeapNearLive(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(DefaultPercent)
	debug.SetGCPercent(before)
	const live = 96 << 20
	ballast := make([]byte, live)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	runtime.GC()
	if g := heapGoal(); g < 2*live {
		t.Fatalf("heap goal %d MB with %d MB live before the tuner: want the default's twice", g>>20, live>>20)
	}
	tu := Start()
	if tu == nil {
		t.Fatal("Start returned nil with neither GOMEMLIMIT nor GOGC set")
	}
	defer func() {
		tu.Stop()
		if got := debug.SetGCPercent(before); got != before {
			t.Errorf("after Stop GOGC is %d, want %d as before Start", got, before)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for tu.Percent() != 25 {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC %d after collections with %d MB live, want 25", tu.Percent(), live>>20)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.GC()
	// The goal counts this test binary's own live heap, stacks and
	// globals too: a few MB.
	if g := heapGoal(); g < live+live/4 || g > live+live/4+16<<20 {
		t.Errorf("heap goal %d MB with %d MB live: want the live heap and a quarter (%d MB)", g>>20, live>>20, (live+live/4)>>20)
	}
	runtime.KeepAlive(ballast)
}

func TestUserChoiceStands(t *testing.T) {
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "200")
			if tu := Start(); tu != nil {
				tu.Stop()
				t.Fatalf("Start tuned the limit with %s set", env)
			}
		})
	}
	var tu *Tuner
	tu.Stop() // a nil tuner stops quietly
	if tu.Percent() != 0 {
		t.Error("a nil tuner reports a GOGC")
	}
}

// TestTunerReturnsFreePages frees a 96 MB heap: the runtime keeps the
// pages, and the tuner returns them to the system after the collection.
func TestTunerReturnsFreePages(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	tu := Start()
	defer tu.Stop()
	big := make([]byte, 96<<20)
	for i := range big {
		big[i] = byte(i)
	}
	runtime.KeepAlive(big)
	big = nil
	free := func() uint64 {
		s := []metrics.Sample{{Name: heapFree}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	deadline := time.Now().Add(10 * time.Second)
	for tu.Trims() == 0 || free() > TrimAbove {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %d trims, %d MB of free pages kept", tu.Trims(), free()>>20)
		}
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
}
