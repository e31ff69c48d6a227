package hooks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/testutil/racebuild"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// oversized is a PostToolUse payload whose stdout is about size bytes of
// log lines (a secret on each), made as it is read.
func oversized(id string, size int) io.Reader {
	head, _ := json.Marshal(map[string]any{"session_id": "oversize", "cwd": "/tmp/oversize", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": "cat build.log"}})
	line := "ok 0123456789 <b>step</b> password=OverSecret99\\n"
	return io.MultiReader(bytes.NewReader(head[:len(head)-1]), strings.NewReader(`,"tool_response":{"stdout":"first line\n`),
		// Whole lines: no escape cut in two.
		io.LimitReader(&repeated{s: line}, int64(size/len(line)*len(line))), strings.NewReader(`last line","stderr":"","interrupted":false}}`))
}

// repeated reads s again and again.
type repeated struct {
	s   string
	off int
}

func (r *repeated) Read(p []byte) (int, error) {
	for i := 0; i < len(p); {
		n := copy(p[i:], r.s[r.off:])
		i, r.off = i+n, (r.off+n)%len(r.s)
	}
	return len(p), nil
}

// Issue 36: a payload over the hook's limit was cut mid-document and
// refused as malformed (set aside in rejected/ when spooled), the hook
// holding ~400 MB for a 150 MB one. Now it is read in bounded memory and
// the event stored, its long output cut and marked, with the worker up
// and through the spool.
func TestHookOversizedPayload(t *testing.T) {
	if racebuild.Enabled {
		// Under the race detector the worker cleans the event slower than
		// the hook's send and replay deadlines, so it waits in the spool
		// (nothing lost) and the test would time it instead of the reading.
		// make test runs this test a second time without -race.
		t.Skip("timing-bound under -race: make test runs it without the race detector")
	}
	const size = 100 << 20
	srv := testutil.NewServer(t)
	c, stderr := newClient(t, srv.Port, srv.DataDir)

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var out bytes.Buffer
	c.Run("post-tool-use", oversized("toolu_oversize_up", size), &out)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	// main allocated 612 MB; the race detector's build about 90 MB.
	if alloc > 160<<20 {
		t.Errorf("the hook allocated %d MB for a %d MB payload", alloc>>20, size>>20)
	}
	t.Logf("a %d MB payload: %d MB allocated in all (worker's share included)", size>>20, alloc>>20)

	down := t.TempDir()
	cd, _ := newClient(t, freePort(t), down)
	cd.Run("post-tool-use", oversized("toolu_oversize_spooled", size), io.Discard)
	spooled, _ := filepath.Glob(filepath.Join(down, "spool", "*.jsonl"))
	if len(spooled) != 1 {
		t.Fatalf("spool files: %v", spooled)
	}
	// The spooled event is replayed into the worker: nothing is set aside.
	data, _ := os.ReadFile(spooled[0])
	if err := os.MkdirAll(filepath.Join(srv.DataDir, "spool"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Appended: on a loaded machine the first event may have been spooled
	// too (the hook's send has a deadline), and must not be overwritten.
	f, err := os.OpenFile(filepath.Join(srv.DataDir, "spool", "pending.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c.Run("post-tool-use", bytes.NewReader(tool("toolu_after_replay")), io.Discard)
	if rejected, _ := filepath.Glob(filepath.Join(srv.DataDir, "spool", "rejected", "*")); len(rejected) > 0 {
		why, _ := os.ReadFile(rejected[0])
		t.Errorf("set aside: %.300s", why)
	}

	for _, id := range []string{"toolu_oversize_up", "toolu_oversize_spooled"} {
		var output string
		// A loaded machine (or the race detector) may answer the replay
		// after the hook's deadline: the event then stays in the spool,
		// and the next hook replays it again. Wait for the row, nudging.
		deadline := time.Now().Add(120 * time.Second)
		for i := 0; ; i++ {
			var n int64
			modelstest.Row(t, srv.Store, []any{&n}, `SELECT COUNT(*) FROM observations WHERE tool_use_id = ?`, id)
			if n > 0 || time.Now().After(deadline) {
				break
			}
			if i%40 == 39 {
				c.Run("post-tool-use", bytes.NewReader(tool(fmt.Sprintf("toolu_nudge_%d", i))), io.Discard)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if n := 0; n == 0 {
			var c int64
			modelstest.Row(t, srv.Store, []any{&c}, `SELECT COUNT(*) FROM observations WHERE tool_use_id = ?`, id)
			if c == 0 {
				files, _ := filepath.Glob(filepath.Join(srv.DataDir, "spool", "*", "*"))
				more, _ := filepath.Glob(filepath.Join(srv.DataDir, "spool", "*"))
				t.Fatalf("%s is not stored; spool: %v %v; hook: %s", id, more, files, stderr)
			}
		}
		modelstest.Row(t, srv.Store, []any{&output}, `SELECT output FROM observations WHERE tool_use_id = ?`, id)
		if !strings.Contains(output, "first line") || !strings.Contains(output, "omitted") || strings.Contains(output, "OverSecret99") {
			t.Errorf("%s stored as %d bytes: %.80q … (debug: %s)", id, len(output), output, stderr)
		}
	}
}
