package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// cannotStart makes a fresh data directory in which no worker can run: it
// is empty (no database to serve) and cannot be written, with the
// immutable attribute as root (chmod does not stop root) and chmod
// otherwise. Hooks spool to the fallback spool under the returned
// $XDG_RUNTIME_DIR.
func cannotStart(tb testing.TB) (dataDir, runtimeDir string) {
	tb.Helper()
	dataDir, runtimeDir = tb.TempDir(), tb.TempDir()
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", dataDir).CombinedOutput(); err != nil {
			tb.Skipf("running as root and chattr +i is unavailable here: %v: %s", err, out)
		}
		tb.Cleanup(func() { exec.Command("chattr", "-i", dataDir).Run() })
	} else {
		os.Chmod(dataDir, 0o500)
		tb.Cleanup(func() { os.Chmod(dataDir, 0o700) })
	}
	return dataDir, runtimeDir
}

// With the data directory read-only and no database, mneme serve cannot
// run. The first hook tries to start it and waits out its start budget;
// the hooks after it, for the next 30 s, spool at once without trying;
// every event is in the fallback spool. Both built binaries, with
// auto-start on.
func TestHookAutoStartBackoff(t *testing.T) {
	for _, r := range hookRunners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir, runtimeDir := cannotStart(t)
			env := binEnv(dir, freePort(t), "XDG_RUNTIME_DIR="+runtimeDir, "MNEME_DEBUG=1")
			fallback := hookwire.Spool{Dir: filepath.Join(runtimeDir, filepath.Base(hookwire.FallbackSpoolDir(dir)))}
			for i := 0; i < 4; i++ {
				body := []byte(`{"session_id":"backoff","cwd":"/tmp/b","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"toolu_` + string(rune('a'+i)) + `"}`)
				stdout, stderr, code := runBin(t, r.bin, env, body, r.args("post-tool-use")...)
				if code != 0 || strings.TrimSpace(string(stdout)) != hookwire.ContinueJSON {
					t.Fatalf("hook %d: exit %d, stdout %q", i, code, stdout)
				}
				tried := bytes.Contains(stderr, []byte("did not become healthy"))
				skipped := bytes.Contains(stderr, []byte("auto-start skipped"))
				if i == 0 && (!tried || skipped) || i > 0 && (tried || !skipped) {
					t.Errorf("hook %d: tried to start %v, skipped %v; stderr:\n%s", i, tried, skipped, stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(fallback.Dir, ".autostart-failed")); err != nil {
				t.Errorf("the failed start is not recorded in the fallback spool: %v", err)
			}
			var lines int
			files, _ := filepath.Glob(filepath.Join(fallback.Dir, "*.jsonl"))
			for _, f := range files {
				b, _ := os.ReadFile(f)
				lines += bytes.Count(b, []byte("\n"))
			}
			if lines != 4 {
				t.Errorf("the fallback spool holds %d events, want 4 (%v)", lines, files)
			}
		})
	}
}

// BenchmarkAutoStartBackoff times mneme-hook post-tool-use, spawn to exit,
// with auto-start on and a worker that cannot start (a read-only data
// directory without a database): "backoff" as shipped, and
// "every-call-starts" with the mark of the failed start removed before each
// call, which is how every hook behaved before the back-off. Run it with
// -benchtime 200x (each every-call-starts call waits out the 250 ms start
// budget). Not named BenchmarkHook*, so make bench's 1000x runs leave it
// out.
func BenchmarkAutoStartBackoff(b *testing.B) {
	bin := hookBinary(b)
	var base time.Duration
	for _, mode := range []string{"every-call-starts", "backoff"} {
		b.Run(mode, func(b *testing.B) {
			dir, runtimeDir := cannotStart(b)
			env := binEnv(dir, freePort(b), "XDG_RUNTIME_DIR="+runtimeDir)
			mark := filepath.Join(runtimeDir, filepath.Base(hookwire.FallbackSpoolDir(dir)), ".autostart-failed")
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if mode == "every-call-starts" {
					os.Remove(mark)
				}
				cmd := exec.Command(bin, "post-tool-use")
				cmd.Env = env
				cmd.Stdin = bytes.NewReader(toolEvent("backoff-bench", i))
				start := time.Now()
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatalf("hook: %v, %q", err, out)
				}
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			p50 := percentile(times, 0.5)
			b.ReportMetric(ms(p50), "p50-ms")
			b.ReportMetric(ms(percentile(times, 0.99)), "p99-ms")
			if mode == "every-call-starts" {
				base = p50
			} else if base > 0 {
				b.ReportMetric(float64(base)/float64(p50), "x-faster-p50")
			}
		})
	}
}
