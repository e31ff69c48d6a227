package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// spawnTimes runs bin n times with stdin and returns each spawn→exit time.
func spawnTimes(b *testing.B, bin string, env []string, stdin func(i int) []byte, args ...string) []time.Duration {
	b.Helper()
	times := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(stdin(i))
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s %v: %v", bin, args, err)
		}
		times = append(times, time.Since(start))
		if out.Len() == 0 {
			b.Fatalf("%s %v printed nothing", bin, args)
		}
	}
	return times
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p)
	return sorted[i]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// noopP50 is the no-op binary's median spawn→exit time, measured once per
// run so each hook benchmark can report its ratio against the same floor.
var noopP50 struct {
	once   sync.Once
	d, p99 time.Duration
}

func measureNoop(b *testing.B, noop string) time.Duration {
	noopP50.once.Do(func() {
		var times []time.Duration
		for i := 0; i < 200; i++ {
			cmd := exec.Command(noop)
			cmd.Stdin = bytes.NewReader([]byte(`{}`))
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		noopP50.d = percentile(times, 0.5)
		noopP50.p99 = percentile(times, 0.99)
	})
	return noopP50.d
}

func report(b *testing.B, times []time.Duration, noop time.Duration) {
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	p50, p99 := percentile(times, 0.5), percentile(times, 0.99)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	if noop > 0 {
		b.ReportMetric(ms(noop), "noop-p50-ms")
		b.ReportMetric(ms(noopP50.p99), "noop-p99-ms")
		b.ReportMetric(float64(p50)/float64(noop), "x-noop-p50")
	}
}

// toolEvent is a PostToolUse payload like the fixture's, with a distinct
// tool_use_id per call.
func toolEvent(session string, i int) []byte {
	return []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":"/home/dev/.claude/projects/x/%s.jsonl","cwd":"/home/dev/projects/notes-app","prompt_id":"p1","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go build ./... && echo built %d","description":"build"},"tool_response":{"stdout":"built %d","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_%s_%d","duration_ms":27}`,
		session, session, i, i, session, i))
}

// promptEvent opens the turn (prompt_id p1) that toolEvent's calls belong to.
func promptEvent(session string) []byte {
	return []byte(fmt.Sprintf(`{"session_id":%q,"cwd":"/home/dev/projects/notes-app","prompt_id":"p1","hook_event_name":"UserPromptSubmit","prompt":"build the project"}`, session))
}

// The hook benchmarks time what Claude Code waits on for each event: spawn
// to exit of the command `mneme install` writes, which is mneme-hook when it
// sits beside mneme (as make build lays them out). The ...Mneme variants run
// the same command through the full mneme binary (`mneme hook <event>`), for
// comparison. Each reports p50-ms, p99-ms, and the no-op Go binary's median
// (noop-p50-ms) and its multiple (x-noop-p50), measured in the same run.

// BenchmarkHookNoop is the floor: a Go binary that reads stdin and prints {}.
func BenchmarkHookNoop(b *testing.B) {
	_, noop := buildBinaries(b)
	b.ResetTimer()
	times := spawnTimes(b, noop, nil, func(int) []byte { return []byte(`{}`) })
	report(b, times, 0)
}

// BenchmarkHookFloorAlternated spawns, in turn, the no-op, the floor hook
// (floorSource: one request over the worker's socket, nothing else) and
// mneme-hook, each with a PostToolUse of one session for a running worker,
// and reports each one's median and the ratios between them. Alternating
// gives all three the same machine at the same moment, so the ratios hold
// on a loaded machine where separate runs would not. floor/noop is what
// any hook that waits for the worker's commit pays over process start
// (connect, the worker's capture and commit, the answer); hook/floor is
// what mneme-hook adds to that (flags, redaction, spool check, JSON).
func BenchmarkHookFloorAlternated(b *testing.B) {
	hook, args := hookArgs(b, false, "post-tool-use")
	_, noop := buildBinaries(b)
	floor := floorBinary(b)
	srv := testutil.NewServer(b)
	env := binEnv(srv.DataDir, srv.Port)
	floorEnv := append(binEnv(srv.DataDir, srv.Port), "MNEME_FLOOR_SOCKET="+srv.Socket)
	session := fmt.Sprintf("bench-floor-%d", time.Now().UnixNano())
	open := exec.Command(hook, "user-prompt-submit")
	open.Env, open.Stdin = env, bytes.NewReader(promptEvent(session))
	if out, err := open.CombinedOutput(); err != nil {
		b.Fatalf("%s user-prompt-submit: %v\n%s", hook, err, out)
	}
	var tn, tf, th []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tn = append(tn, spawnTimesOnce(b, noop, nil, []byte(`{}`))...)
		tf = append(tf, spawnTimesOnce(b, floor, floorEnv, toolEvent(session, 2*i), "post-tool-use")...)
		th = append(th, spawnTimesOnce(b, hook, env, toolEvent(session, 2*i+1), args...)...)
	}
	b.StopTimer()
	p50 := func(t []time.Duration) time.Duration {
		sort.Slice(t, func(i, j int) bool { return t[i] < t[j] })
		return percentile(t, 0.5)
	}
	n, f, h := p50(tn), p50(tf), p50(th)
	b.ReportMetric(ms(n), "noop-p50-ms")
	b.ReportMetric(ms(f), "floor-p50-ms")
	b.ReportMetric(ms(h), "hook-p50-ms")
	b.ReportMetric(float64(f)/float64(n), "floor-x-noop")
	b.ReportMetric(float64(h)/float64(n), "hook-x-noop")
	b.ReportMetric(float64(h)/float64(f), "hook-x-floor")
	c, _ := srv.Store.Counts(context.Background())
	if c.Observations < int64(2*b.N) {
		b.Fatalf("stored %d observations for %d floor and %d hook calls", c.Observations, b.N, b.N)
	}
}

// spawnTimesOnce is one spawnTimes run of bin, whatever b.N is.
func spawnTimesOnce(b *testing.B, bin string, env []string, stdin []byte, args ...string) []time.Duration {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v", bin, args, err)
	}
	d := time.Since(start)
	if out.Len() == 0 {
		b.Fatalf("%s %v printed nothing", bin, args)
	}
	return []time.Duration{d}
}

// hookArgs is the command line of one hook event: mneme-hook <event>, or
// mneme hook <event> for the full binary.
func hookArgs(b *testing.B, full bool, slug string) (bin string, args []string) {
	if full {
		bin, _ = buildBinaries(b)
		return bin, []string{"hook", slug}
	}
	return hookBinary(b), []string{slug}
}

// BenchmarkHookPostToolUseWorkerUp is `mneme-hook post-tool-use`, spawn to
// exit, with a worker running: the hot path Claude Code waits on.
func BenchmarkHookPostToolUseWorkerUp(b *testing.B) { benchPostToolUseUp(b, false) }

// BenchmarkHookPostToolUseWorkerUpMneme is the same through `mneme hook`.
func BenchmarkHookPostToolUseWorkerUpMneme(b *testing.B) { benchPostToolUseUp(b, true) }

func benchPostToolUseUp(b *testing.B, full bool) {
	bin, args := hookArgs(b, full, "post-tool-use")
	_, noop := buildBinaries(b)
	floor := measureNoop(b, noop)
	srv := testutil.NewServer(b)
	hookPostToolUse(b, srv, bin, binEnv(srv.DataDir, srv.Port), floor, "bench-up", args)
}

// hookPostToolUse times b.N PostToolUse hooks of one session sent by bin
// with env to srv, and checks they were all stored.
func hookPostToolUse(b *testing.B, srv *testutil.Server, bin string, env []string, floor time.Duration, tag string, args []string) {
	session := fmt.Sprintf("%s-%d", tag, time.Now().UnixNano())
	// The turn is opened by the same command and credentials as the tool
	// calls: a person's events go to the person's own session (a team
	// worker refuses them in the owner's).
	promptArgs := append(append([]string{}, args[:len(args)-1]...), "user-prompt-submit")
	open := exec.Command(bin, promptArgs...)
	open.Env, open.Stdin = env, bytes.NewReader(promptEvent(session))
	if out, err := open.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", bin, promptArgs, err, out)
	}
	b.ResetTimer()
	times := spawnTimes(b, bin, env, func(i int) []byte { return toolEvent(session, i) }, args...)
	report(b, times, floor)
	c, _ := srv.Store.Counts(context.Background())
	if c.Observations < int64(b.N) {
		b.Fatalf("stored %d observations for %d hook calls", c.Observations, b.N)
	}
}

// BenchmarkHookPostToolUseRemote is `mneme-hook post-tool-use` sending to
// a team's worker (MNEME_URL, here on loopback TCP) with a person's API
// token, which the worker looks up on each request: redacted here, as
// every event is, then posted over TCP instead of the socket.
func BenchmarkHookPostToolUseRemote(b *testing.B) {
	bin, args := hookArgs(b, false, "post-tool-use")
	_, noop := buildBinaries(b)
	floor := measureNoop(b, noop)
	srv := testutil.NewServer(b)
	_, token, err := srv.Store.CreateAPIToken(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	hookPostToolUse(b, srv, bin, binEnv(b.TempDir(), srv.Port, "MNEME_URL="+srv.URL, "MNEME_TOKEN="+token), floor, "bench-remote", args)
}

// BenchmarkHookPostToolUseWorkerDown is the same call with no worker and
// auto-start off: the event goes to the spool.
func BenchmarkHookPostToolUseWorkerDown(b *testing.B) { benchPostToolUseDown(b, false) }

// BenchmarkHookPostToolUseWorkerDownMneme is the same through `mneme hook`.
func BenchmarkHookPostToolUseWorkerDownMneme(b *testing.B) { benchPostToolUseDown(b, true) }

func benchPostToolUseDown(b *testing.B, full bool) {
	bin, args := hookArgs(b, full, "post-tool-use")
	_, noop := buildBinaries(b)
	floor := measureNoop(b, noop)
	dir := b.TempDir()
	env := binEnv(dir, freePort(b), "MNEME_NO_AUTOSTART=1")
	session := fmt.Sprintf("bench-down-%d", time.Now().UnixNano())
	b.ResetTimer()
	times := spawnTimes(b, bin, env, func(i int) []byte { return toolEvent(session, i) }, args...)
	report(b, times, floor)
	if matches, _ := filepath.Glob(filepath.Join(dir, "spool", "*.jsonl")); len(matches) == 0 {
		b.Fatal("nothing was spooled")
	}
}

// BenchmarkHookSessionStartWorkerDown is `mneme-hook session-start` with no
// worker: the event is spooled and the session starts without context.
func BenchmarkHookSessionStartWorkerDown(b *testing.B) {
	bin, args := hookArgs(b, false, "session-start")
	_, noop := buildBinaries(b)
	floor := measureNoop(b, noop)
	dir := b.TempDir()
	env := binEnv(dir, freePort(b), "MNEME_NO_AUTOSTART=1")
	stamp := time.Now().UnixNano()
	b.ResetTimer()
	times := spawnTimes(b, bin, env, func(i int) []byte {
		return []byte(fmt.Sprintf(`{"session_id":"bench-start-down-%d-%d","transcript_path":"/t.jsonl","cwd":"/home/dev/projects/notes-app","hook_event_name":"SessionStart","source":"startup"}`, stamp, i))
	}, args...)
	report(b, times, floor)
	if matches, _ := filepath.Glob(filepath.Join(dir, "spool", "*.jsonl")); len(matches) == 0 {
		b.Fatal("nothing was spooled")
	}
}

// BenchmarkHookSessionStart is `mneme-hook session-start` with a worker up:
// a new session and its context, each call.
func BenchmarkHookSessionStart(b *testing.B) {
	bin, args := hookArgs(b, false, "session-start")
	_, noop := buildBinaries(b)
	floor := measureNoop(b, noop)
	srv := testutil.NewServer(b)
	env := binEnv(srv.DataDir, srv.Port)
	// Some history so the context is not empty.
	for i := 0; i < 50; i++ {
		srv.Hook(b, "post-tool-use", toolEvent("history", i))
	}
	stamp := time.Now().UnixNano()
	b.ResetTimer()
	times := spawnTimes(b, bin, env, func(i int) []byte {
		return []byte(fmt.Sprintf(`{"session_id":"bench-start-%d-%d","transcript_path":"/t.jsonl","cwd":"/home/dev/projects/notes-app","hook_event_name":"SessionStart","source":"startup"}`, stamp, i))
	}, args...)
	report(b, times, floor)
}
