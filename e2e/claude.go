//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ClaudeVersion is the Claude Code version the harness is pinned to.
const ClaudeVersion = "2.1.330"

// ClaudeBinEnv names the environment variable that points at the Claude Code
// native binary.
const ClaudeBinEnv = "MNEME_CLAUDE_BIN"

// cachedBinRel is where e2e/install-claude.sh puts the binary, relative to
// the repository root.
const cachedBinRel = ".cache/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude"

// cachedBinGlob matches the binary of any platform under the cache.
const cachedBinGlob = ".cache/claude-code/node_modules/@anthropic-ai/claude-code-*/claude"

// ErrNoClaude is returned by FindClaude when no binary is available.
var ErrNoClaude = errors.New("claude code binary not found")

// DefaultAllowedTools is passed to --allowedTools when ClaudeOptions.Args is
// nil.
const DefaultAllowedTools = "Bash,Write,Read,Edit"

// DefaultRunTimeout bounds a RunClaude call whose context has no deadline.
const DefaultRunTimeout = 60 * time.Second

// RepoRoot returns the repository root: the nearest directory at or above
// the working directory that holds go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above working directory")
		}
		dir = parent
	}
}

// FindClaude locates the Claude Code binary: $MNEME_CLAUDE_BIN if set, else
// <repo>/.cache/claude-code/.../claude-code-linux-x64/claude (or another
// platform's build there, as installed by e2e/install-claude.sh). It returns
// ErrNoClaude (wrapped, with the places looked at) when neither exists.
func FindClaude() (string, error) {
	var tried []string
	if p := os.Getenv(ClaudeBinEnv); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		tried = append(tried, ClaudeBinEnv+"="+p)
	}
	if root, err := RepoRoot(); err == nil {
		p := filepath.Join(root, cachedBinRel)
		if isExecutable(p) {
			return p, nil
		}
		tried = append(tried, p)
		// Other platforms (linux-arm64, *-musl, darwin-*) that
		// install-claude.sh may have installed.
		others, _ := filepath.Glob(filepath.Join(root, cachedBinGlob))
		for _, p := range others {
			if isExecutable(p) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%w (looked at %s)", ErrNoClaude, strings.Join(tried, ", "))
}

// ClaudeBin returns the Claude Code binary or skips the test with a message
// saying how to install it.
func ClaudeBin(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make test-quick): no real Claude Code")
	}
	p, err := FindClaude()
	if err != nil {
		t.Skipf("%v: set %s or run e2e/install-claude.sh (npm install --prefix .cache/claude-code @anthropic-ai/claude-code@%s)",
			err, ClaudeBinEnv, ClaudeVersion)
	}
	return p
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// ClaudeOptions configures one headless Claude Code run.
type ClaudeOptions struct {
	// Bin is the Claude Code binary (see ClaudeBin).
	Bin string
	// Home is the HOME of the run; Claude Code reads $HOME/.claude.json and
	// $HOME/.claude/settings.json and writes transcripts under
	// $HOME/.claude/projects. See NewHome.
	Home string
	// Dir is the working directory, i.e. the project. See NewProject.
	Dir string
	// BaseURL is ANTHROPIC_BASE_URL, normally FakeAPI.URL.
	BaseURL string
	// Prompt is the -p prompt.
	Prompt string
	// Args replaces the arguments after the prompt. When nil it is
	// --allowedTools DefaultAllowedTools --output-format json.
	Args []string
	// ExtraEnv holds KEY=VALUE pairs appended to the clean environment; a
	// key given here overrides the default (e.g. PATH).
	ExtraEnv []string
	// Timeout bounds the run when ctx has no earlier deadline.
	// Zero means DefaultRunTimeout.
	Timeout time.Duration
	// KeepProcesses leaves processes that the run started and that are
	// still alive after Claude Code exited (e.g. a worker a hook started)
	// running past the end of the test. By default they are killed when the
	// test ends. On timeout they are always killed at once.
	KeepProcesses bool
}

// ClaudeResult is the outcome of RunClaude.
type ClaudeResult struct {
	// Stdout and Stderr are everything the process printed.
	Stdout, Stderr string
	// ExitCode is the process exit code, or -1 if it was killed or could
	// not be waited for.
	ExitCode int
	// TimedOut reports whether the context expired and the process group
	// was killed.
	TimedOut bool
	// Duration is the wall time of the run.
	Duration time.Duration
	// JSON is stdout parsed as --output-format json, nil if it didn't parse.
	JSON *ClaudeJSON
}

// ClaudeJSON is the final object printed by claude -p --output-format json.
type ClaudeJSON struct {
	Type      string  `json:"type"`
	Subtype   string  `json:"subtype"`
	IsError   bool    `json:"is_error"`
	Result    string  `json:"result"`
	SessionID string  `json:"session_id"`
	NumTurns  int     `json:"num_turns"`
	CostUSD   float64 `json:"total_cost_usd"`
}

// CleanEnv returns the environment RunClaude starts from: a minimal PATH,
// HOME and locale, the fake API settings and the switches that keep Claude
// Code offline and quiet. Nothing else is inherited from the test process.
func CleanEnv(home, baseURL string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	shell := "/bin/bash"
	if _, err := os.Stat(shell); err != nil {
		shell = "/bin/sh"
	}
	env := []string{
		"PATH=" + path,
		"HOME=" + home,
		"USER=e2e",
		"LOGNAME=e2e",
		"SHELL=" + shell,
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"ANTHROPIC_API_KEY=sk-ant-e2e-fake-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}
	if baseURL != "" {
		env = append(env, "ANTHROPIC_BASE_URL="+baseURL)
	}
	return env
}

// RunClaude runs `claude -p <prompt>` headless with a clean environment and
// waits for it. The run is bounded by ctx and opts.Timeout; on expiry Claude
// Code's process group and every process the run started (hooks, tools and
// their children, found by a tag in their environment, see KillTagged) are
// killed. Processes still alive after a normal exit are killed when the test
// ends unless opts.KeepProcesses is set. Failing to start is fatal to the
// test; a non-zero exit is not, it is reported in the result.
func RunClaude(ctx context.Context, t testing.TB, opts ClaudeOptions) ClaudeResult {
	t.Helper()
	if opts.Bin == "" || opts.Home == "" || opts.Dir == "" {
		t.Fatalf("RunClaude: Bin, Home and Dir are required (got %+v)", opts)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultRunTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	args := []string{"-p", opts.Prompt}
	if opts.Args == nil {
		args = append(args, "--allowedTools", DefaultAllowedTools, "--output-format", "json")
	} else {
		args = append(args, opts.Args...)
	}

	// Output goes to files, not pipes: a hook may leave a background process
	// holding the inherited descriptors, and Wait would block on a pipe.
	outDir := t.TempDir()
	stdout, err := os.Create(filepath.Join(outDir, "stdout"))
	if err != nil {
		t.Fatalf("RunClaude: %v", err)
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(outDir, "stderr"))
	if err != nil {
		t.Fatalf("RunClaude: %v", err)
	}
	defer stderr.Close()

	cmd := exec.CommandContext(ctx, opts.Bin, args...)
	cmd.Dir = opts.Dir
	// Claude Code keeps per-session scratch under $TMPDIR/claude-<uid>;
	// give each run its own so nothing leaks into the machine's /tmp.
	// The path is kept short because Claude Code puts a unix socket in it
	// (cc-socks/<pid>.sock) and sun_path holds only 108 bytes.
	tmp, err := os.MkdirTemp("", "cc")
	if err != nil {
		t.Fatalf("RunClaude: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	// Every process of the run inherits a unique tag, which finds the ones
	// that left the process group (Claude Code starts Bash tool commands in
	// a new session) or outlived Claude Code (hooks' background processes).
	tag := randHex(8)
	env := append(CleanEnv(opts.Home, opts.BaseURL), "TMPDIR="+tmp, RunTagEnv+"="+tag)
	cmd.Env = append(env, opts.ExtraEnv...)
	if !opts.KeepProcesses {
		t.Cleanup(func() {
			if n := KillTagged(tag); n > 0 {
				t.Logf("killed %d leftover process(es) of the claude run", n)
			}
		})
	}
	cmd.Stdin = nil // /dev/null: claude -p must not wait for input
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second

	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("RunClaude: start %s: %v", opts.Bin, err)
	}
	waitErr := cmd.Wait()
	res := ClaudeResult{Duration: time.Since(start), ExitCode: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		res.TimedOut = true
		// Make sure nothing of the run survives (Cancel only reached the
		// process group, and only if the leader was still alive).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		KillTagged(tag)
	}
	if waitErr != nil && res.ExitCode == 0 {
		res.ExitCode = -1
	}
	o, _ := os.ReadFile(stdout.Name())
	e, _ := os.ReadFile(stderr.Name())
	res.Stdout, res.Stderr = string(o), string(e)
	var js ClaudeJSON
	if json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &js) == nil && js.Type != "" {
		res.JSON = &js
	}
	t.Logf("claude exited %d after %s (timed out: %v)", res.ExitCode, res.Duration.Round(time.Millisecond), res.TimedOut)
	return res
}

// NewHome creates a temporary HOME for Claude Code with an empty
// ~/.claude directory and returns its path.
func NewHome(t testing.TB) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	return home
}

// NewProject creates a temporary directory named name, runs `git init` in
// it (so the project's name is name), and returns its path.
func NewProject(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init %s: %v\n%s", dir, err, out)
	}
	return dir
}

// HookCommand is one entry of a settings.json hooks list.
type HookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
	Timeout int    `json:"timeout,omitempty"`
}

// HookMatcher is one matcher group of a settings.json hook event.
type HookMatcher struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`
}

// ToolEvents are the hook events that take a tool-name matcher.
var ToolEvents = map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true, "PermissionRequest": true}

// CommandHooks builds a settings.json "hooks" object that runs
// command(event) for each event, with matcher "*" for tool events.
func CommandHooks(command func(event string) string, events ...string) map[string][]HookMatcher {
	hooks := map[string][]HookMatcher{}
	for _, ev := range events {
		m := HookMatcher{Hooks: []HookCommand{{Type: "command", Command: command(ev)}}}
		if ToolEvents[ev] {
			m.Matcher = "*"
		}
		hooks[ev] = append(hooks[ev], m)
	}
	return hooks
}

// WriteSettings writes v as $HOME/.claude/settings.json (user settings).
func WriteSettings(t testing.TB, home string, v any) {
	t.Helper()
	writeJSONFile(t, filepath.Join(home, ".claude", "settings.json"), v)
}

func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RunTagEnv names the environment variable that RunClaude sets to a value
// unique to each run. Processes inherit it, so KillTagged can find them.
const RunTagEnv = "MNEME_E2E_RUN"

// TaggedProcesses returns the pids of processes whose environment holds
// RunTagEnv=tag. It reads /proc and returns nothing where there is none.
func TaggedProcesses(tag string) []int { return EnvProcesses(RunTagEnv, tag) }

// EnvProcesses returns the pids of processes whose environment holds
// key=value, e.g. a tag a caller put in ClaudeOptions.ExtraEnv to find every
// process of many runs at once.
func EnvProcesses(key, value string) []int {
	needle := []byte(key + "=" + value + "\x00")
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		if bytes.HasPrefix(b, needle) || bytes.Contains(b, append([]byte{0}, needle...)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// KillTagged sends SIGKILL to every process tagged with tag (see
// TaggedProcesses), repeating while new ones show up, and returns how many
// it signalled.
func KillTagged(tag string) int { return KillEnv(RunTagEnv, tag) }

// KillEnv is KillTagged for the processes whose environment holds key=value
// (see EnvProcesses).
func KillEnv(key, value string) int {
	killed := map[int]bool{}
	for range 20 {
		found := false
		for _, pid := range EnvProcesses(key, value) {
			if killed[pid] {
				// Already signalled; a zombie until its parent reaps it.
				continue
			}
			found = true
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed[pid] = true
			}
		}
		if !found {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return len(killed)
}

// PathEnv returns a PATH=... entry for ClaudeOptions.ExtraEnv that puts
// dirs (e.g. the directory of a freshly built mneme binary) in front of the
// test process's PATH, so hooks can call the binary by name.
func PathEnv(dirs ...string) string {
	parts := append([]string(nil), dirs...)
	if p := os.Getenv("PATH"); p != "" {
		parts = append(parts, p)
	}
	return "PATH=" + strings.Join(parts, string(os.PathListSeparator))
}
