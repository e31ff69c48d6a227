//go:build unix

package soak

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/e2e"
)

// TestClaudeCodeParallel runs 8 real Claude Code processes (`claude -p`,
// 2.1.330, against the loopback fake Messages API) at once for
// MNEME_SOAK_DURATION (default 4 min), each in its own HOME and project,
// with mneme's hooks installed by `mneme install` and pointing at the built
// binary and a worker the test started. Every turn makes Claude Code run
// 16 tools (Bash that works and Bash that fails, Write, Edit, Read), new
// sessions alternate with `--resume`, and every hook runs with
// MNEME_DEBUG=1, its stderr kept. The worker's RSS and goroutines are
// sampled all along and printed as a curve. It asserts: no SQLITE_BUSY or
// "database is locked" anywhere (worker log, hook stderr, Claude Code's
// stderr), every tool call the fake asked for is stored exactly once, under
// the prompt that asked for it, and nothing else is (a failed run's calls
// are excused and counted), every session is stored completed with one
// prompt per run, the spools end empty, the goroutines come back to the
// idle baseline (+3), and RSS grows by less than 64 MiB from the first
// third of the run to the last (the slope is printed). All processes of
// the runs are killed at the end, whatever happened (KillEnv).
//
// MNEME_SOAK=1 only (`make soak`); MNEME_SOAK_CLAUDE_SESSIONS changes the
// number of parallel sessions.
func TestClaudeCodeParallel(t *testing.T) {
	if !Long() {
		t.Skip("real Claude Code soak: MNEME_SOAK=1 (make soak)")
	}
	claudeBin := e2e.ClaudeBin(t)
	duration := envDuration(t, "MNEME_SOAK_DURATION", 4*time.Minute)
	slots := envInt(t, "MNEME_SOAK_CLAUDE_SESSIONS", 8)
	const every = 5 * time.Second

	// Every process of every claude run carries this tag, so that all of
	// them (Claude Code, its hooks, Bash tool commands in their own
	// session) can be killed at the end whatever happened.
	tag := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	const tagEnv = "MNEME_SOAK_CLAUDE"
	killAll := func() {
		if n := e2e.KillEnv(tagEnv, tag); n > 0 {
			t.Logf("killed %d leftover process(es) of the claude runs", n)
		}
	}
	t.Cleanup(killAll)

	// Hooks spool to <data>/spool, or when that fails to a fallback under
	// $XDG_RUNTIME_DIR, which the worker replays too: give both one the
	// test can look into.
	runtimeDir := t.TempDir()
	dataDir := t.TempDir()
	p := startWorker(t, dataDir, "XDG_RUNTIME_DIR="+runtimeDir)
	logDir := t.TempDir()
	installed, hookCmd, hookBin := hookCommands(t, p, logDir)
	t.Logf("hook command from mneme install: %s (run with MNEME_DEBUG=1, MNEME_NO_AUTOSTART=1)", hookBin)

	s := &claudeSoak{
		t: t, bin: claudeBin, tag: tag, tagEnv: tagEnv, runtimeDir: runtimeDir,
		installed: installed, hookCmd: hookCmd, logDir: logDir,
	}
	// Abort: a failing test cancels every run in flight, which kills it;
	// so do SIGINT/SIGTERM and the approach of go test's -timeout, which
	// would otherwise end the test binary without its cleanups and leave
	// the runs (each in its own process group) behind.
	abort, cancelAbort := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if d, ok := t.Deadline(); ok {
		var cancelDeadline context.CancelFunc
		abort, cancelDeadline = context.WithDeadline(abort, d.Add(-time.Minute))
		defer cancelDeadline()
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancelAbort()

	// Warm up with one real session so that lazily started parts of the
	// worker are in the baseline, then let fasthttp reap its idle workers
	// (10 s) before taking the idle goroutine count.
	warm := s.newSlot(-1)
	if r := s.run(abort, warm, "warm-up: look around", ""); r.ExitCode != 0 {
		t.Fatalf("warm-up claude run failed: exit %d\nstdout: %s\nstderr: %s\nhook stderr: %s",
			r.ExitCode, r.Stdout, r.Stderr, s.hookStderr())
	}
	waitSpoolEmpty(t, dataDir, 15*time.Second)
	idle := idleGoroutines(t, p, 20*time.Second)
	rssIdle, _ := RSSKiB(p.PID())
	t.Logf("idle baseline after warm-up: %d goroutines, RSS %.1f MiB", idle, float64(rssIdle)/1024)

	deadline, stop := context.WithTimeout(abort, duration)
	defer stop()
	for i := range slots {
		sl := s.newSlot(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for iter := 0; deadline.Err() == nil; iter++ {
				r := s.run(abort, sl, fmt.Sprintf("slot %d, session %d: do the chores", i, iter), "")
				// Every other session gets a second prompt through --resume.
				if iter%2 == 0 && r.JSON != nil && r.JSON.SessionID != "" && deadline.Err() == nil {
					s.run(abort, sl, fmt.Sprintf("slot %d, session %d again: more chores", i, iter), r.JSON.SessionID)
				}
			}
		}()
	}

	var curve []claudeSample
	begin := time.Now()
	sampleNow := func() claudeSample {
		rss, _ := RSSKiB(p.PID())
		h, _ := p.Health()
		return claudeSample{at: time.Since(begin), rssKiB: rss, goroutines: h.Goroutines,
			observations: h.Counts.Observations, hookRuns: s.hookRuns(), claudeRuns: s.runCount()}
	}
	curve = append(curve, sampleNow())
	tick := time.NewTicker(every)
	for loop := true; loop; {
		select {
		case <-deadline.Done():
			loop = false
		case <-tick.C:
			curve = append(curve, sampleNow())
		}
	}
	tick.Stop()
	// Let the runs in flight finish (each bounded by its own timeout),
	// sampling on: the tail of the curve shows the load going away.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for loop := true; loop; {
		select {
		case <-done:
			loop = false
		case <-time.After(every):
			curve = append(curve, sampleNow())
		}
	}
	loadEnd := len(curve)
	killAll()
	if abort.Err() != nil {
		t.Fatalf("interrupted (signal, or go test -timeout close): %d claude runs done", s.runCount())
	}

	waitSpoolEmpty(t, dataDir, 30*time.Second)
	after := goroutinesDownTo(t, p, idle+3, 30*time.Second)
	end := sampleNow()
	end.goroutines = after
	curve = append(curve, end)

	// The curve.
	var rows [][]string
	for i, c := range curve {
		label := c.at.Round(time.Second).String()
		if i == len(curve)-1 {
			label += " (idle)"
		} else if c.at > duration {
			label += " (draining)"
		}
		rows = append(rows, []string{label, fmt.Sprintf("%.1f", float64(c.rssKiB)/1024),
			strconv.Itoa(c.goroutines), strconv.FormatInt(c.observations, 10),
			strconv.Itoa(c.hookRuns), strconv.Itoa(c.claudeRuns)})
	}
	t.Logf("worker curve, %d real Claude Code sessions in parallel for %s:\n%s", slots, duration,
		Table([]string{"t", "RSS MiB", "goroutines", "observations", "hook runs", "claude runs"}, rows))

	// Under load: the samples up to the deadline (not the drain).
	load := curve[:loadEnd]
	for len(load) > 0 && load[len(load)-1].at > duration {
		load = load[:len(load)-1]
	}
	third := len(load) / 3
	var firstMax, lastMax int64
	if third > 0 {
		firstMax, lastMax = maxRSSOf(load[:third]), maxRSSOf(load[len(load)-third:])
	}
	slopeAll := rssSlope(load)
	slopeLate := rssSlope(load[len(load)/2:])
	t.Logf("RSS: idle %.1f MiB before, max %.1f MiB in the first third, max %.1f MiB in the last third (%+.1f MiB), %.1f MiB idle after; slope %+.2f MiB/min overall, %+.2f MiB/min over the second half",
		float64(rssIdle)/1024, float64(firstMax)/1024, float64(lastMax)/1024, float64(lastMax-firstMax)/1024,
		float64(end.rssKiB)/1024, slopeAll, slopeLate)
	t.Logf("goroutines: %d idle before, max %d under load, %d idle after", idle, maxGoroutines(load), after)

	// Claude Code runs.
	s.mu.Lock()
	results := append([]claudeRun(nil), s.runs...)
	s.mu.Unlock()
	var durs []time.Duration
	var failed, resumes int
	for _, r := range results {
		durs = append(durs, r.dur)
		if r.resume {
			resumes++
		}
		if r.exit != 0 || r.timedOut {
			failed++
			if failed <= 5 {
				t.Errorf("claude run (slot %d, resume %v) exited %d (timed out %v)\nstdout: %s\nstderr: %s",
					r.slot, r.resume, r.exit, r.timedOut, tail(r.stdout, 2000), tail(r.stderr, 2000))
			}
		}
	}
	t.Logf("claude runs: %d (%d with --resume), %d failed; wall time per run %s", len(results), resumes, failed, Summarize(durs))
	hookStats := s.hookStats()
	t.Logf("hook runs: %d (%s); spawn→exit %s", hookStats.runs, hookStats.perEvent(), Summarize(hookStats.elapsed))

	// No SQLITE_BUSY anywhere.
	workerLog := p.Log()
	if b, err := os.ReadFile(filepath.Join(dataDir, "logs", "mneme.log")); err == nil {
		workerLog += string(b)
	}
	hookErr := s.hookStderr()
	var claudeErr strings.Builder
	for _, r := range results {
		claudeErr.WriteString(r.stderr)
	}
	for _, bad := range []string{"SQLITE_BUSY", "database is locked"} {
		for what, text := range map[string]string{"worker log": workerLog, "hook stderr": hookErr, "claude stderr": claudeErr.String()} {
			if strings.Contains(text, bad) {
				t.Errorf("%s mentions %q:\n%s", what, bad, linesWith(text, bad, 20))
			}
		}
	}
	t.Logf("hook stderr (MNEME_DEBUG=1): %d lines%s", strings.Count(hookErr, "\n"), summarizeLines(hookErr))
	t.Logf("claude stderr: %d lines%s", strings.Count(claudeErr.String(), "\n"), summarizeLines(claudeErr.String()))

	// Every tool call stored exactly once.
	issued := map[string]string{} // tool_use_id -> Claude Code session id
	promptOf := map[string]int{}  // tool_use_id -> prompt number it belongs to
	var issuedOrder []string
	for _, sl := range s.slots {
		for _, r := range sl.fake.Requests() {
			if r.ToolUseID != "" {
				issued[r.ToolUseID] = r.SessionID
				promptOf[r.ToolUseID] = r.ToolResults/toolsPerTurn + 1
				issuedOrder = append(issuedOrder, r.ToolUseID)
			}
		}
	}
	// A run that failed may have been killed between the model's answer and
	// the tool: its session's calls are not required.
	failedSessions := map[string]bool{}
	for _, r := range results {
		if (r.exit != 0 || r.timedOut) && r.sessionID != "" {
			failedSessions[r.sessionID] = true
		}
	}

	if len(curve) > 0 && after > idle+3 {
		t.Errorf("goroutines did not come back: %d idle before, %d after the load", idle, after)
	}
	if third > 0 && lastMax-firstMax > 64<<10 {
		t.Errorf("RSS grew by %.1f MiB from the first third of the run to the last (slope %+.2f MiB/min)",
			float64(lastMax-firstMax)/1024, slopeAll)
	}
	if third == 0 {
		t.Errorf("only %d samples under load: run longer (MNEME_SOAK_DURATION)", len(load))
	}

	// Nothing left in the spools.
	if left := spoolLeftovers(dataDir, runtimeDir); len(left) > 0 {
		t.Errorf("spooled events left over: %v", left)
	}

	p.Stop()
	db := openDB(t, dataDir)
	integrity(t, db)
	stored := toolUseIDs(t, db)
	if d := duplicates(stored); len(d) > 0 {
		t.Errorf("%d tool calls stored more than once: %v", len(d), firstN(d, 20))
	}
	var missing, unknown, excused []string
	for _, id := range issuedOrder {
		if stored[id] == 0 {
			if failedSessions[issued[id]] {
				excused = append(excused, id)
			} else {
				missing = append(missing, id)
			}
		}
	}
	for id := range stored {
		if _, ok := issued[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d tool calls not stored: %v", len(missing), len(issuedOrder), firstN(missing, 20))
	}
	if len(unknown) > 0 {
		t.Errorf("%d stored tool calls the fake never asked for: %v", len(unknown), firstN(unknown, 20))
	}
	// Each observation under the prompt that asked for it (the resumed
	// session's second prompt is number 2).
	var wrongPrompt []string
	for id, n := range storedPromptNumbers(t, db) {
		if want, ok := promptOf[id]; ok && n != want {
			wrongPrompt = append(wrongPrompt, fmt.Sprintf("%s: prompt %d, want %d", id, n, want))
		}
	}
	if len(wrongPrompt) > 0 {
		t.Errorf("%d observations under the wrong prompt: %v", len(wrongPrompt), firstN(wrongPrompt, 10))
	}
	// Each successful session: its row, completed, one prompt per run.
	runsOf := map[string]int{}
	for _, r := range results {
		if r.sessionID != "" && !failedSessions[r.sessionID] {
			runsOf[r.sessionID]++
		}
	}
	var badSessions []string
	for sid, n := range runsOf {
		var status string
		var prompts int
		err := db.QueryRow(`SELECT s.status, (SELECT COUNT(*) FROM prompts p WHERE p.session_id = s.id)
			FROM sessions s WHERE s.claude_session_id = ?`, sid).Scan(&status, &prompts)
		if err != nil || status != "completed" || prompts != n {
			badSessions = append(badSessions, fmt.Sprintf("%s: status %q, %d prompts, want completed and %d (%v)", sid, status, prompts, n, err))
		}
	}
	if len(badSessions) > 0 {
		t.Errorf("%d of %d sessions not stored right: %v", len(badSessions), len(runsOf), firstN(badSessions, 10))
	}
	var sessions, prompts int
	db.QueryRow(`SELECT COUNT(*) FROM sessions`).Scan(&sessions)
	db.QueryRow(`SELECT COUNT(*) FROM prompts`).Scan(&prompts)
	t.Logf("stored: %d observations by tool_use_id for %d tool calls issued (%d in failed runs not required), %d sessions, %d prompts",
		len(stored), len(issuedOrder), len(excused), sessions, prompts)
	if len(issuedOrder) == 0 {
		t.Error("the fake issued no tool call: Claude Code did not run")
	}
	if t.Failed() {
		t.Logf("worker log (tail):\n%s", tail(p.Log(), 4000))
	}
}

// storedPromptNumbers maps each stored tool_use_id to its prompt number.
func storedPromptNumbers(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.Query(`SELECT tool_use_id, prompt_number FROM observations WHERE tool_use_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

// claudeSample is one point of the worker's curve.
type claudeSample struct {
	at           time.Duration
	rssKiB       int64
	goroutines   int
	observations int64
	hookRuns     int
	claudeRuns   int
}

// claudeRun is the outcome of one `claude -p`.
type claudeRun struct {
	slot           int
	resume         bool
	exit           int
	timedOut       bool
	dur            time.Duration
	sessionID      string
	stdout, stderr string
}

// claudeSoak holds what the parallel sessions share.
type claudeSoak struct {
	t          *testing.T
	bin        string
	tag        string
	tagEnv     string
	runtimeDir string
	logDir     string
	installed  map[string][]e2e.HookMatcher
	hookCmd    func(cmd, slot string) string

	mu    sync.Mutex
	runs  []claudeRun
	slots []*claudeSlot
}

// claudeSlot is one of the parallel sessions: a HOME, a project and a fake
// Messages API of its own.
type claudeSlot struct {
	n    int
	home string
	proj string
	fake *e2e.FakeAPI
}

// toolsPerTurn is the number of tool calls the fake asks for per prompt:
// twice the 8 chores of soakStep. Claude Code's start-up dominates a run on
// a loaded machine, so a long turn keeps the hooks busy.
const toolsPerTurn = 16

func (s *claudeSoak) newSlot(n int) *claudeSlot {
	t := s.t
	name := "slot" + strconv.Itoa(n)
	if n < 0 {
		name = "warmup"
	}
	sl := &claudeSlot{n: n, home: e2e.NewHome(t), proj: e2e.NewProject(t, "soak-"+name)}
	hooks := map[string][]e2e.HookMatcher{}
	for ev, matchers := range s.installed {
		for _, m := range matchers {
			m.Hooks = append([]e2e.HookCommand(nil), m.Hooks...)
			for j := range m.Hooks {
				m.Hooks[j].Command = s.hookCmd(m.Hooks[j].Command, name)
			}
			hooks[ev] = append(hooks[ev], m)
		}
	}
	e2e.WriteSettings(t, sl.home, map[string]any{"hooks": hooks})
	proj := sl.proj
	fake, err := e2e.StartFakeAPIWith(e2e.FakeOptions{DropBodies: true, Answer: func(r e2e.Request) e2e.Step {
		return soakStep(r, proj)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	sl.fake = fake
	s.mu.Lock()
	s.slots = append(s.slots, sl)
	s.mu.Unlock()
	return sl
}

// soakStep scripts every prompt of a session the same way: toolsPerTurn
// tool calls, then a text. A request answering the last tool of a turn ends
// the turn; a new prompt (also after --resume, whose history holds the
// earlier turns' results) starts the next one.
func soakStep(r e2e.Request, proj string) e2e.Step {
	turn, j := r.ToolResults/toolsPerTurn, r.ToolResults%toolsPerTurn
	if r.AfterToolResult && j == 0 {
		return e2e.Text(fmt.Sprintf("Turn %d done: %d tools ran.", turn, toolsPerTurn))
	}
	sid := r.SessionID
	if len(sid) > 8 {
		sid = sid[:8]
	}
	file := filepath.Join(proj, fmt.Sprintf("work-%s-%d-%d.txt", sid, turn, j/8))
	switch j % 8 {
	case 0:
		return e2e.ToolUse("Bash", map[string]any{"command": fmt.Sprintf("echo soak-%s-%d && ls -1 | wc -l", sid, turn), "description": "count files"})
	case 1:
		return e2e.ToolUse("Bash", map[string]any{"command": "ls /nonexistent-soak-dir-" + sid, "description": "list a missing dir (fails)"})
	case 2:
		return e2e.ToolUse("Write", map[string]any{"file_path": file, "content": fmt.Sprintf("line one\nline two of turn %d\n", turn)})
	case 3:
		return e2e.ToolUse("Edit", map[string]any{"file_path": file, "old_string": "line two", "new_string": "line 2"})
	case 4:
		return e2e.ToolUse("Read", map[string]any{"file_path": file})
	case 5:
		return e2e.ToolUse("Bash", map[string]any{"command": "grep -c line " + filepath.Base(file), "description": "count lines"})
	case 6:
		return e2e.ToolUse("Bash", map[string]any{"command": "cat missing-" + sid + ".txt", "description": "read a missing file (fails)"})
	default:
		return e2e.ToolUse("Bash", map[string]any{"command": "git status --short | head -3", "description": "git status"})
	}
}

// run runs one `claude -p` in sl (resuming resume when set) and records it.
func (s *claudeSoak) run(ctx context.Context, sl *claudeSlot, prompt, resume string) e2e.ClaudeResult {
	opts := e2e.ClaudeOptions{
		Bin: s.bin, Home: sl.home, Dir: sl.proj, BaseURL: sl.fake.URL, Prompt: prompt,
		// Slow on 2 cores with 8 of them, but a hung run must not hang
		// the test.
		Timeout:  3 * time.Minute,
		ExtraEnv: []string{s.tagEnv + "=" + s.tag, "XDG_RUNTIME_DIR=" + s.runtimeDir},
	}
	if resume != "" {
		opts.Args = []string{"--resume", resume, "--allowedTools", e2e.DefaultAllowedTools, "--output-format", "json"}
	}
	r := e2e.RunClaude(ctx, s.t, opts)
	rec := claudeRun{slot: sl.n, resume: resume != "", exit: r.ExitCode, timedOut: r.TimedOut, dur: r.Duration,
		sessionID: resume, stdout: r.Stdout, stderr: r.Stderr}
	if r.JSON != nil && r.JSON.SessionID != "" {
		rec.sessionID = r.JSON.SessionID
	}
	if r.JSON == nil || r.JSON.IsError {
		rec.exit = max(rec.exit, 1) // a run without a good result counts as failed
	}
	if sl.n >= 0 {
		s.mu.Lock()
		s.runs = append(s.runs, rec)
		s.mu.Unlock()
	}
	return r
}

func (s *claudeSoak) runCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

// hookCommands installs mneme's hooks with `mneme install` (port and data
// directory of p) into a scratch settings file and returns them, how each
// installed command is wrapped for a slot, and the SessionStart command.
// Wrapped (see hookWrapper): MNEME_DEBUG=1 with stderr appended to
// <logDir>/<slot>.stderr, and lines for its start and end (with times) in
// <logDir>/<slot>.runs. The hooks run mneme-hook when there is one (see
// hookBinary), else `mneme hook`.
func hookCommands(t *testing.T, p *Proc, logDir string) (map[string][]e2e.HookMatcher, func(cmd, slot string) string, string) {
	t.Helper()
	settings := filepath.Join(t.TempDir(), "settings.json")
	args := []string{"--port", strconv.Itoa(p.Port), "--data-dir", p.DataDir, "install", "--settings", settings}
	if hb := hookBinary(t); hb != "" {
		args = append(args, "--bin", hb)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("mneme install: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Hooks map[string][]e2e.HookMatcher `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &parsed); err != nil {
		t.Fatalf("settings.json from mneme install: %v\n%s", err, raw)
	}
	if len(parsed.Hooks) == 0 {
		t.Fatalf("mneme install wrote no hooks:\n%s", raw)
	}
	// Claude Code runs hook commands with /bin/sh; the wrapper is bash for
	// $EPOCHREALTIME, which times the hook without forking date.
	wrapper := filepath.Join(logDir, "hook-wrapper")
	if err := os.WriteFile(wrapper, []byte(hookWrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	var used string
	if ss := parsed.Hooks["SessionStart"]; len(ss) > 0 && len(ss[0].Hooks) > 0 {
		used = ss[0].Hooks[0].Command
	}
	return parsed.Hooks, func(cmd, slot string) string {
		// `<mneme-hook> [--port N] [--data-dir D] <event>` or `<mneme> …
		// hook <event>`: the event is the last word.
		ev := cmd[strings.LastIndexByte(cmd, ' ')+1:]
		return strings.Join([]string{e2e.ShellQuote(wrapper), e2e.ShellQuote(filepath.Join(logDir, slot+".runs")),
			e2e.ShellQuote(filepath.Join(logDir, slot+".stderr")), ev, cmd}, " ")
	}, used
}

// hookBinary returns the small hook binary: mneme-hook beside the mneme
// binary under test (make build puts it there), else one built from
// ./cmd/mneme-hook, else "" when the tree has none.
func hookBinary(t *testing.T) string {
	t.Helper()
	if hb := filepath.Join(filepath.Dir(bin), "mneme-hook"); isExec(hb) {
		return hb
	}
	if _, err := os.Stat(filepath.Join(RepoRoot(), "cmd", "mneme-hook")); err != nil {
		return ""
	}
	hb := filepath.Join(t.TempDir(), "mneme-hook")
	cmd := exec.Command("go", "build", "-o", hb, "./cmd/mneme-hook")
	cmd.Dir = RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/mneme-hook: %v\n%s", err, out)
	}
	return hb
}

func isExec(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// hookWrapper runs a hook command (its arguments after the first three)
// with MNEME_DEBUG=1, appends its stderr to $2, and logs its start and its
// end with the times around it to $1.
const hookWrapper = `#!/bin/bash
runs=$1 errs=$2 ev=$3
shift 3
echo "start $ev" >>"$runs"
s=$EPOCHREALTIME
MNEME_DEBUG=1 MNEME_NO_AUTOSTART=1 "$@" 2>>"$errs"
echo "end $ev $s $EPOCHREALTIME" >>"$runs"
`

// hookRuns counts the hook runs so far (started, whatever became of them).
func (s *claudeSoak) hookRuns() int { return s.hookStats().runs }

type hookStats struct {
	runs     int
	events   map[string]int
	elapsed  []time.Duration
	unfinish int
}

func (h hookStats) perEvent() string {
	var keys []string
	for k := range h.events {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, h.events[k]))
	}
	return strings.Join(parts, ", ") + fmt.Sprintf("; %d did not finish (killed by Claude Code)", h.unfinish)
}

// hookStats reads the .runs files of every slot but the warm-up.
func (s *claudeSoak) hookStats() hookStats {
	h := hookStats{events: map[string]int{}}
	files, _ := filepath.Glob(filepath.Join(s.logDir, "slot*.runs"))
	ends := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 2 {
				continue
			}
			switch fields[0] {
			case "start":
				h.runs++
				h.events[fields[1]]++
			case "end":
				ends++
				if len(fields) == 4 {
					a, err1 := strconv.ParseFloat(fields[2], 64)
					b, err2 := strconv.ParseFloat(fields[3], 64)
					if err1 == nil && err2 == nil {
						h.elapsed = append(h.elapsed, time.Duration((b-a)*float64(time.Second)))
					}
				}
			}
		}
		fh.Close()
	}
	h.unfinish = h.runs - ends
	return h
}

// hookStderr is everything the hooks wrote on stderr.
func (s *claudeSoak) hookStderr() string {
	files, _ := filepath.Glob(filepath.Join(s.logDir, "*.stderr"))
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		b.Write(data)
	}
	return b.String()
}

// idleGoroutines waits until the worker's goroutine count has not changed
// for 3 s, and at least 11 s (fasthttp reaps idle server workers after
// 10 s), or until timeout; it returns the count.
func idleGoroutines(t *testing.T, p *Proc, timeout time.Duration) int {
	t.Helper()
	begin := time.Now()
	last, stable := -1, 0
	for {
		h, err := p.Health()
		if err != nil {
			t.Fatalf("health: %v", err)
		}
		if h.Goroutines == last {
			stable++
		} else {
			last, stable = h.Goroutines, 0
		}
		if (stable >= 3 && time.Since(begin) > 11*time.Second) || time.Since(begin) > timeout {
			return last
		}
		time.Sleep(time.Second)
	}
}

// goroutinesDownTo waits up to timeout for the worker's goroutine count to
// fall to want and returns the last count seen.
func goroutinesDownTo(t *testing.T, p *Proc, want int, timeout time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(time.Second) {
		h, err := p.Health()
		if err != nil {
			t.Fatalf("health: %v", err)
		}
		if h.Goroutines <= want || time.Now().After(deadline) {
			return h.Goroutines
		}
	}
}

// spoolLeftovers lists non-empty files left in the data directory's spool
// and in the fallback spools under runtimeDir.
func spoolLeftovers(dataDir, runtimeDir string) []string {
	var out []string
	check := func(dir string) {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if info, err := d.Info(); err == nil && info.Size() > 0 {
				out = append(out, fmt.Sprintf("%s (%d bytes)", path, info.Size()))
			}
			return nil
		})
	}
	check(filepath.Join(dataDir, "spool"))
	check(runtimeDir)
	return out
}

func maxRSSOf(s []claudeSample) int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.rssKiB)
	}
	return m
}

func maxGoroutines(s []claudeSample) int {
	m := 0
	for _, x := range s {
		m = max(m, x.goroutines)
	}
	return m
}

// rssSlope is the least-squares slope of RSS over time, in MiB per minute.
func rssSlope(s []claudeSample) float64 {
	if len(s) < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for _, x := range s {
		tx, ty := x.at.Minutes(), float64(x.rssKiB)/1024
		sx += tx
		sy += ty
		sxx += tx * tx
		sxy += tx * ty
	}
	n := float64(len(s))
	den := n*sxx - sx*sx
	if math.Abs(den) < 1e-12 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

// linesWith returns up to n lines of text that contain substr.
func linesWith(text, substr string, n int) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// summarizeLines counts distinct lines (numbers blanked out), most frequent
// first, for a short report of a noisy log.
func summarizeLines(text string) string {
	counts := map[string]int{}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		key := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '#'
			}
			return r
		}, truncate(l, 160))
		counts[key]++
	}
	if len(counts) == 0 {
		return ""
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return counts[keys[i]] > counts[keys[j]] })
	var b strings.Builder
	for i, k := range keys {
		if i == 10 {
			fmt.Fprintf(&b, "\n  ... %d more kinds", len(keys)-10)
			break
		}
		fmt.Fprintf(&b, "\n  %5d × %s", counts[k], k)
	}
	return b.String()
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

func envDuration(t *testing.T, key string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a duration such as 4m", key, v)
	}
	return d
}

func envInt(t *testing.T, key string, def int) int {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", key, v)
	}
	return n
}
