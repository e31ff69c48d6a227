//go:build unix

// Package soak is mneme's durability and fault harness: it builds the real
// binary, runs `mneme serve` as a subprocess on a loopback port with a temp
// data directory, drives it through `mneme hook` and the HTTP ingest route,
// and kills, starves and corrupts what is around it. The short tests run in
// `make test`; MNEME_SOAK=1 (`make soak`) runs the long versions.
//
// The load generator (loadgen.go) is shared with bench/compare, which drives
// claude-mem with the same requests.
package soak

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Long reports whether the long (soak) versions of the tests should run.
func Long() bool { return os.Getenv("MNEME_SOAK") != "" }

// RepoRoot is the repository's top directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}

// Build compiles ./cmd/mneme and ./cmd/mneme-hook side by side into dir,
// as make build does, and returns mneme's path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "mneme")
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/mneme", "./cmd/mneme-hook")
	cmd.Dir = RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Proc is one `mneme serve` subprocess.
type Proc struct {
	Bin     string
	DataDir string
	Port    int
	URL     string
	Env     []string // extra environment, KEY=VALUE
	// Token is the worker's secret (given as MNEME_TOKEN): requests over
	// TCP send it as the bearer token (Authorize, NewClient).
	Token string

	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
}

// NewProc describes a worker on a fresh free port; Start runs it.
func NewProc(bin, dataDir string) (*Proc, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	return &Proc{Bin: bin, DataDir: dataDir, Port: port, URL: "http://127.0.0.1:" + strconv.Itoa(port), Token: hex.EncodeToString(b[:]), log: &lockedBuffer{}}, nil
}

// Authorize adds the worker's secret to req, as every request over TCP
// must carry it.
func (p *Proc) Authorize(req *http.Request) { req.Header.Set("Authorization", "Bearer "+p.Token) }

// Get fetches path from the worker with its secret.
func (p *Proc) Get(path string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, p.URL+path, nil)
	if err != nil {
		return nil, err
	}
	p.Authorize(req)
	return http.DefaultClient.Do(req)
}

// NewClient is a load client for this worker (see the package's
// NewClient) that sends its secret.
func (p *Proc) NewClient(timeout time.Duration) *Client {
	c := NewClient(p.URL, timeout)
	c.Token = p.Token
	return c
}

// Start launches the worker and waits until /api/health answers 200. It
// returns how long that took (spawn to healthy).
func (p *Proc) Start(timeout time.Duration) (time.Duration, error) {
	begin := time.Now()
	p.cmd = exec.Command(p.Bin, "--port", strconv.Itoa(p.Port), "--data-dir", p.DataDir, "serve")
	p.cmd.Env = append(append(os.Environ(), p.Env...), "MNEME_TOKEN="+p.Token)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		return 0, err
	}
	p.done = make(chan struct{})
	go func() { p.cmd.Wait(); close(p.done) }()
	client := &http.Client{Timeout: 200 * time.Millisecond}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return 0, fmt.Errorf("worker exited at start: %s\n%s", p.cmd.ProcessState, p.Log())
		default:
		}
		resp, err := client.Get(p.URL + "/api/health")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(begin), nil
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	p.Kill()
	return 0, fmt.Errorf("worker not healthy after %s\n%s", timeout, p.Log())
}

// PID is the worker's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Kill sends SIGKILL and waits for the process to be gone.
func (p *Proc) Kill() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGTERM and waits up to 10 s for a clean exit, then kills.
func (p *Proc) Stop() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.Kill()
	}
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Log is everything the worker wrote to stdout and stderr so far.
func (p *Proc) Log() string { return p.log.String() }

// Health is the part of /api/health the harness reads.
type Health struct {
	Status     string `json:"status"`
	Problem    string `json:"problem"`
	PID        int    `json:"pid"`
	Goroutines int    `json:"goroutines"`
	Counts     struct {
		Sessions     int64 `json:"sessions"`
		Prompts      int64 `json:"prompts"`
		Observations int64 `json:"observations"`
	} `json:"counts"`
	Embeddings struct {
		State     string `json:"state"`
		Embedded  int64  `json:"embedded"`
		Total     int64  `json:"total"`
		LastError string `json:"lastError"`
	} `json:"embeddings"`
}

// Health fetches /api/health.
func (p *Proc) Health() (Health, error) {
	var h Health
	client := &http.Client{Timeout: 2 * time.Second}
	req, err := http.NewRequest(http.MethodGet, p.URL+"/api/health", nil)
	if err != nil {
		return h, err
	}
	p.Authorize(req)
	resp, err := client.Do(req)
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("health: %s", resp.Status)
	}
	return h, json.NewDecoder(resp.Body).Decode(&h)
}

// RSSKiB reads VmRSS of pid from /proc.
func RSSKiB(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				return strconv.ParseInt(fields[0], 10, 64)
			}
		}
	}
	return 0, errors.New("VmRSS not found")
}

// HookResult is one run of `mneme hook`.
type HookResult struct {
	Stdout   []byte
	Stderr   []byte
	Elapsed  time.Duration
	MaxRSSKB int64
	Err      error
}

// HookBin is the binary that runs hooks for the mneme binary bin: the
// mneme-hook beside it, which `mneme install` makes Claude Code run, else
// bin itself (its `hook` subcommand is the same code). Both take
// `[flags] hook <slug>`.
func HookBin(bin string) string {
	hook := filepath.Join(filepath.Dir(bin), "mneme-hook")
	if info, err := os.Stat(hook); err == nil && info.Mode().IsRegular() {
		return hook
	}
	return bin
}

// Hook runs `mneme-hook <slug>` (see HookBin) with body on stdin, against
// the worker on port with dataDir, and extra environment.
func Hook(ctx context.Context, bin string, port int, dataDir, slug string, body []byte, env ...string) HookResult {
	cmd := exec.CommandContext(ctx, HookBin(bin), "--port", strconv.Itoa(port), "--data-dir", dataDir, "hook", slug)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(body)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	begin := time.Now()
	err := cmd.Run()
	r := HookResult{Stdout: out.Bytes(), Stderr: errb.Bytes(), Elapsed: time.Since(begin), Err: err}
	return r
}

// HookMaxRSS is Hook run under /usr/bin/time, which reports the hook's own
// peak RSS (the rusage of a child forked from a big test process would
// include the parent's pages). MaxRSSKB stays 0 without /usr/bin/time.
func HookMaxRSS(ctx context.Context, bin string, port int, dataDir, slug string, body []byte, env ...string) HookResult {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return Hook(ctx, bin, port, dataDir, slug, body, env...)
	}
	f, err := os.CreateTemp("", "mneme-rss-")
	if err != nil {
		return HookResult{Err: err}
	}
	f.Close()
	defer os.Remove(f.Name())
	cmd := exec.CommandContext(ctx, "/usr/bin/time", "-o", f.Name(), "-f", "%M", HookBin(bin), "--port", strconv.Itoa(port), "--data-dir", dataDir, "hook", slug)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(body)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	begin := time.Now()
	err = cmd.Run()
	r := HookResult{Stdout: out.Bytes(), Stderr: errb.Bytes(), Elapsed: time.Since(begin), Err: err}
	if b, err := os.ReadFile(f.Name()); err == nil {
		r.MaxRSSKB, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	return r
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
