//go:build unix

// Command compare runs mneme and claude-mem side by side on this machine,
// drives both with the same load generator (soak.Session events) and prints
// one table: cold start to healthy, hook round-trip for PostToolUse through
// each one's own hook command, HTTP ingest latency and throughput from 16
// clients, and the time until an ingested tool call is readable through
// each one's read API.
//
// `make bench-compare` fetches claude-mem and Bun from the npm registry into
// .cache/bench-compare (bench/compare/install.sh) and builds bin/mneme first.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/soak"
)

// system is one memory worker under test.
type system struct {
	token string // the worker's secret, sent as the bearer token (mneme)
	name  string
	url   string
	// start launches the worker and returns a stop function.
	start func() (stop func(), err error)
	// hook returns the command Claude Code would run for an event
	// (post-tool-use or session-start).
	hook func(slug string) *exec.Cmd
	// ingestPath and ingestBody map a native event to the system's own
	// HTTP ingest call.
	ingestPath func(ev soak.Event) string
	ingestBody func(ev soak.Event) []byte
	// prepare runs before ingest (claude-mem needs its session inited).
	prepare func(c *soak.Client, sessionIDs []string) error
	// readable reports whether a tool_use_id can be read back.
	readable func(toolUseID string) (bool, error)
	readNote string
}

type result struct {
	cold               []time.Duration
	hook               soak.Stats
	hookErr            string
	hookCPU            soak.Stats
	start              soak.Stats
	startErr           string
	ingest             soak.Stats
	throughput         float64
	ingestErr          string
	readable           soak.Stats
	readErr            string
	idleRSS, loadedRSS int64
}

func main() {
	root := flag.String("root", ".", "repository root")
	hookRuns := flag.Int("hooks", 100, "PostToolUse hook runs per system")
	events := flag.Int("events", 2000, "events in the ingest burst")
	clients := flag.Int("clients", 16, "concurrent ingest clients")
	starts := flag.Int("starts", 3, "cold starts per system")
	sessionRuns := flag.Int("session-hooks", 30, "SessionStart hook runs per system")
	only := flag.String("only", "", "run only this system (mneme or claude-mem)")
	flag.Parse()

	cache := filepath.Join(*root, ".cache", "bench-compare")
	systems := []*system{newMneme(filepath.Join(*root, "bin", "mneme"))}
	cm, err := newClaudeMem(cache)
	if err != nil {
		fmt.Fprintf(os.Stderr, "claude-mem not available: %v (run bench/compare/install.sh)\n", err)
	} else {
		systems = append(systems, cm)
	}
	results := map[string]*result{}
	for _, s := range systems {
		if *only != "" && s.name != *only {
			continue
		}
		fmt.Fprintf(os.Stderr, "== %s\n", s.name)
		results[s.name] = run(s, *hookRuns, *sessionRuns, *events, *clients, *starts)
	}
	printTable(systems, results, *events, *clients)
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
}

// tempDirs are the data directories made for the run, removed at the end.
var tempDirs []string

func tempDir(pattern string) string {
	d, err := os.MkdirTemp("", pattern)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tempDirs = append(tempDirs, d)
	return d
}

func run(s *system, hookRuns, sessionRuns, events, clients, starts int) *result {
	r := &result{}
	var stop func()
	for i := 0; i < starts; i++ {
		if stop != nil {
			stop()
		}
		begin := time.Now()
		var err error
		if stop, err = s.start(); err != nil {
			r.hookErr, r.ingestErr = err.Error(), err.Error()
			return r
		}
		r.cold = append(r.cold, time.Since(begin))
	}
	defer stop()
	time.Sleep(time.Second)
	r.idleRSS = rssOfListener(s.url, s.token)

	// Hook round trip: the system's own hook command, spawn to exit.
	evs := soak.Session(soak.SessionSpec{SessionID: "cmp-hook-" + s.name, Cwd: "/home/dev/projects/compare", Events: 2*hookRuns + 10})
	var hookLat, hookCPU []time.Duration
	c := soak.NewClient(s.url, 30*time.Second)
	c.Path, c.HTTP.Timeout, c.Token = s.ingestPath, 30*time.Second, s.token
	if s.prepare != nil {
		s.prepare(c, []string{"cmp-hook-" + s.name})
	}
	for _, ev := range evs {
		if ev.ToolUseID == "" || len(hookLat) >= hookRuns {
			continue
		}
		lat, cpu, err := runHook(s.hook("post-tool-use"), ev.Body)
		hookLat, hookCPU = append(hookLat, lat), append(hookCPU, cpu)
		if err != nil && r.hookErr == "" {
			r.hookErr = err.Error()
		}
	}
	r.hook = soak.Summarize(hookLat)
	r.hookCPU = soak.Summarize(hookCPU)

	// Ingest: the same events over HTTP from many clients.
	var sessions []string
	var burst []soak.Event
	for i := 0; len(burst) < events; i++ {
		sid := fmt.Sprintf("cmp-%s-%03d", s.name, i)
		sessions = append(sessions, sid)
		for _, ev := range soak.Session(soak.SessionSpec{SessionID: sid, Cwd: "/home/dev/projects/compare", Events: 50}) {
			if ev.ToolUseID != "" && len(burst) < events {
				burst = append(burst, soak.Event{Slug: ev.Slug, Body: s.ingestBody(ev), ToolUseID: ev.ToolUseID})
			}
		}
	}
	if s.prepare != nil {
		if err := s.prepare(c, sessions); err != nil {
			r.ingestErr = err.Error()
		}
	}
	begin := time.Now()
	outs := c.Burst(context.Background(), burst, clients)
	elapsed := time.Since(begin)
	var lat []time.Duration
	ok := 0
	for _, o := range outs {
		if o.Err == nil && o.Status/100 == 2 {
			ok++
			lat = append(lat, o.Latency)
		} else if r.ingestErr == "" {
			r.ingestErr = fmt.Sprintf("status %d %v", o.Status, o.Err)
		}
	}
	r.ingest = soak.Summarize(lat)
	r.throughput = float64(ok) / elapsed.Seconds()
	r.loadedRSS = rssOfListener(s.url, s.token)

	// SessionStart on the project just filled: the hook that carries the
	// context, in a new session each time.
	var startLat []time.Duration
	for i := 0; i < sessionRuns; i++ {
		body, _ := json.Marshal(map[string]any{
			"session_id": fmt.Sprintf("cmp-start-%s-%d", s.name, i), "cwd": "/home/dev/projects/compare",
			"hook_event_name": "SessionStart", "source": "startup", "transcript_path": "/nonexistent.jsonl",
		})
		lat, _, err := runHook(s.hook("session-start"), body)
		startLat = append(startLat, lat)
		if err != nil && r.startErr == "" {
			r.startErr = err.Error()
		}
	}
	r.start = soak.Summarize(startLat)

	// Ingest → readable through the read API, one event at a time.
	var readLat []time.Duration
	for i := 0; i < 20; i++ {
		ev := soak.Session(soak.SessionSpec{SessionID: fmt.Sprintf("cmp-read-%s-%d", s.name, i), Cwd: "/home/dev/projects/compare", Events: 4})
		var tool soak.Event
		for _, e := range ev {
			if e.ToolUseID != "" {
				tool = e
				break
			}
		}
		if s.prepare != nil {
			s.prepare(c, []string{fmt.Sprintf("cmp-read-%s-%d", s.name, i)})
		}
		begin := time.Now()
		if st, _, err := c.Post(context.Background(), soak.Event{Slug: tool.Slug, Body: s.ingestBody(tool), ToolUseID: tool.ToolUseID}); err != nil || st/100 != 2 {
			r.readErr = fmt.Sprintf("ingest: %d %v", st, err)
			break
		}
		deadline := time.Now().Add(10 * time.Second)
		found := false
		for time.Now().Before(deadline) {
			ok, err := s.readable(tool.ToolUseID)
			if err != nil {
				r.readErr = err.Error()
				break
			}
			if ok {
				found = true
				break
			}
			time.Sleep(time.Millisecond)
		}
		if !found {
			if r.readErr == "" {
				r.readErr = "not readable within 10 s"
			}
			break
		}
		readLat = append(readLat, time.Since(begin))
	}
	r.readable = soak.Summarize(readLat)
	return r
}

// runHook runs one hook command with body on stdin and returns its wall
// time and CPU time.
func runHook(cmd *exec.Cmd, body []byte) (wall, cpu time.Duration, err error) {
	cmd.Stdin = bytes.NewReader(body)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	begin := time.Now()
	err = cmd.Run()
	wall = time.Since(begin)
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		err = fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	return wall, cpu, err
}

func printTable(systems []*system, results map[string]*result, events, clients int) {
	rows := [][]string{}
	for _, s := range systems {
		r := results[s.name]
		if r == nil {
			continue
		}
		sort.Slice(r.cold, func(i, j int) bool { return r.cold[i] < r.cold[j] })
		cold := "—"
		if len(r.cold) > 0 {
			cold = fmt.Sprintf("%s (median of %d)", ms(r.cold[len(r.cold)/2]), len(r.cold))
		}
		rows = append(rows,
			[]string{s.name, "cold start → healthy", cold},
			[]string{s.name, "PostToolUse hook spawn→exit p50 / p99 (own hook command)", statsOr(r.hook, r.hookErr)},
			[]string{s.name, "PostToolUse hook CPU time (user+sys) p50 / p99", statsOr(r.hookCPU, "")},
			[]string{s.name, "SessionStart hook spawn→exit p50 / p99 (after the burst)", statsOr(r.start, r.startErr)},
			[]string{s.name, fmt.Sprintf("HTTP ingest latency p50 / p99 (%d clients)", clients), statsOr(r.ingest, r.ingestErr)},
			[]string{s.name, fmt.Sprintf("ingest throughput (%d events, %d clients)", events, clients), fmt.Sprintf("%.0f events/s", r.throughput)},
			[]string{s.name, "ingest → readable p50 / p99 (" + s.readNote + ")", statsOr(r.readable, r.readErr)},
			[]string{s.name, "worker RSS idle / after the burst", fmt.Sprintf("%.1f MiB / %.1f MiB", float64(r.idleRSS)/1024, float64(r.loadedRSS)/1024)},
		)
	}
	rows = append(rows,
		[]string{"claude-mem (published)", "PostToolUse hook avg / p99", "8 ms / 30 ms"},
		[]string{"claude-mem (published)", "SessionStart hook avg / p99", "45 ms / 250 ms"},
	)
	fmt.Printf("machine: %d CPUs, load average %s\n\n", numCPU(), loadavg())
	fmt.Print(soak.Table([]string{"system", "measure", "value"}, rows))
}

func statsOr(s soak.Stats, errText string) string {
	if s.N == 0 {
		return "failed: " + errText
	}
	out := fmt.Sprintf("%s / %s (n=%d)", ms(s.P50), ms(s.P99), s.N)
	if errText != "" {
		out += " — some failed: " + errText
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// rssOfListener finds the process listening on url's port through
// /api/health's pid (both systems report it) and reads its RSS.
func rssOfListener(url, token string) int64 {
	req, err := http.NewRequest(http.MethodGet, url+"/api/health", nil)
	if err != nil {
		return 0
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token) // mneme's pid is for its owner only
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var h struct {
		PID int `json:"pid"`
	}
	json.NewDecoder(resp.Body).Decode(&h)
	rss, _ := soak.RSSKiB(h.PID)
	return rss
}

// waitHealthy polls url/api/health until 200.
func waitHealthy(url string, timeout time.Duration) error {
	client := &http.Client{Timeout: 500 * time.Millisecond}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if resp, err := client.Get(url + "/api/health"); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return fmt.Errorf("%s not healthy after %s", url, timeout)
}

func newMneme(bin string) *system {
	port, _ := soak.FreePort()
	data := tempDir("cmp-mneme-")
	s := &system{name: "mneme", url: "http://127.0.0.1:" + strconv.Itoa(port), readNote: "GET /api/observations?limit=20"}
	s.start = func() (func(), error) {
		p, err := soak.NewProc(bin, data)
		if err != nil {
			return nil, err
		}
		p.Port, p.URL = port, s.url
		s.token = p.Token
		if _, err := p.Start(30 * time.Second); err != nil {
			return nil, err
		}
		return p.Stop, nil
	}
	s.hook = func(slug string) *exec.Cmd {
		cmd := exec.Command(soak.HookBin(bin), "--port", strconv.Itoa(port), "--data-dir", data, "hook", slug)
		cmd.Env = append(os.Environ(), "MNEME_NO_AUTOSTART=1")
		return cmd
	}
	s.ingestPath = func(ev soak.Event) string { return "/api/hooks/" + ev.Slug }
	s.ingestBody = func(ev soak.Event) []byte { return ev.Body }
	s.readable = func(toolUseID string) (bool, error) {
		// The newest observations, like claude-mem's /api/tool-uses.
		b, err := getBody(s.url+"/api/observations?limit=20", s.token)
		return bytes.Contains(b, []byte(`"`+toolUseID+`"`)), err
	}
	return s
}

func newClaudeMem(cache string) (*system, error) {
	bun := filepath.Join(cache, "bun", "package", "bin", "bun")
	script := filepath.Join(cache, "claude-mem", "package", "plugin", "scripts", "worker-service.cjs")
	for _, f := range []string{bun, script} {
		if _, err := os.Stat(f); err != nil {
			return nil, err
		}
	}
	port, _ := soak.FreePort()
	home := tempDir("cmp-claude-mem-home-")
	data := filepath.Join(home, "data")
	env := append(os.Environ(),
		"HOME="+home, "CLAUDE_MEM_DATA_DIR="+data, "CLAUDE_MEM_WORKER_PORT="+strconv.Itoa(port),
		"CLAUDE_MEM_WORKER_HOST=127.0.0.1", "CLAUDE_MEM_CHROMA_ENABLED=false", "CLAUDE_MEM_TELEMETRY=off")
	s := &system{name: "claude-mem", url: "http://127.0.0.1:" + strconv.Itoa(port), readNote: "GET /api/tool-uses (raw; /api/observations needs its LLM agent)"}
	s.start = func() (func(), error) {
		cmd := exec.Command(bun, script, "--daemon")
		cmd.Dir = filepath.Dir(script)
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		logf, _ := os.Create(filepath.Join(home, "worker.log"))
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		stop := func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
			logf.Close()
		}
		if err := waitHealthy(s.url, 90*time.Second); err != nil {
			stop()
			return nil, err
		}
		return stop, nil
	}
	s.hook = func(slug string) *exec.Cmd {
		// What its hooks.json runs, minus the node wrapper that finds bun.
		handler := map[string]string{"post-tool-use": "observation", "session-start": "context"}[slug]
		cmd := exec.Command(bun, script, "hook", "claude-code", handler)
		cmd.Dir = filepath.Dir(script)
		cmd.Env = env
		return cmd
	}
	s.ingestPath = func(soak.Event) string { return "/api/sessions/observations" }
	s.ingestBody = func(ev soak.Event) []byte {
		var m map[string]any
		json.Unmarshal(ev.Body, &m)
		b, _ := json.Marshal(map[string]any{
			"contentSessionId": m["session_id"], "tool_name": m["tool_name"], "tool_input": m["tool_input"],
			"tool_response": m["tool_response"], "cwd": m["cwd"], "tool_use_id": m["tool_use_id"],
		})
		return b
	}
	inited := map[string]bool{}
	s.prepare = func(c *soak.Client, sessions []string) error {
		for _, sid := range sessions {
			if inited[sid] {
				continue
			}
			b, _ := json.Marshal(map[string]any{"contentSessionId": sid, "project": "compare", "prompt": "benchmark session"})
			req, _ := http.NewRequest(http.MethodPost, s.url+"/api/sessions/init", bytes.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.HTTP.Do(req)
			if err != nil {
				return err
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			inited[sid] = true
		}
		return nil
	}
	s.readable = func(toolUseID string) (bool, error) {
		b, err := getBody(s.url+"/api/tool-uses?limit=20", "")
		return bytes.Contains(b, []byte(`"`+toolUseID+`"`)), err
	}
	return s, nil
}

func getBody(url, token string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
