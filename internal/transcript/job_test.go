package transcript

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestJobStatesAreOrdered: every state an import publishes carries a
// larger Seq than the one before, the finished state the largest, and
// State() then reports that same Seq. The viewer relies on it to drop a
// snapshot that arrives after the import's last event.
func TestJobStatesAreOrdered(t *testing.T) {
	data, err := os.ReadFile(fixture(t, "session-basic.transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "projects", "p")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		old(t, dir, name, data)
	}
	var (
		mu    sync.Mutex
		seen  []State
		final = make(chan State, 1)
	)
	j := &Job{DataDir: t.TempDir(), Dir: filepath.Dir(dir), Sink: &collect{}, Publish: func(s State) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
		if !s.Running {
			final <- s
		}
	}}
	for round := range 2 { // a second import goes on from the first's Seq
		if err := j.Start(); err != nil {
			t.Fatal(err)
		}
		var last State
		select {
		case last = <-final:
		case <-time.After(60 * time.Second):
			t.Fatalf("round %d: the import never finished", round)
		}
		if last.Stats == nil || last.Stats.Files != 3 {
			t.Fatalf("round %d: finished state %+v", round, last)
		}
		if got := j.State().Seq; got != last.Seq {
			t.Errorf("round %d: State().Seq = %d, the last published %d", round, got, last.Seq)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 4 {
		t.Fatalf("only %d states published for two imports", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Seq <= seen[i-1].Seq {
			t.Errorf("state %d has Seq %d after %d (running %v → %v)", i, seen[i].Seq, seen[i-1].Seq, seen[i-1].Running, seen[i].Running)
		}
	}
}
