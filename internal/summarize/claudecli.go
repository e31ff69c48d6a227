package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// ClaudeCLI summarizes with the user's own Claude Code in print mode. It
// runs exactly one child process at a time, in its own process group, with
// a bounded lifetime and a bounded output, and always reaps it: on timeout
// the whole group is killed. Claude Code's hooks are disabled for the run
// (--settings {"disableAllHooks":true}) and hookwire.EnvSummarizer is set as a second
// guard.
type ClaudeCLI struct {
	// Path is the claude executable; "" finds it (findClaude).
	Path string
	// Model is passed as --model when set.
	Model string
	// MaxOutput bounds what is read from its stdout (default 256 KiB).
	MaxOutput int
	// Dir is the working directory of the run (default: the temp dir, so
	// no project's CLAUDE.md is loaded).
	Dir string
	// Env is added to the environment (tests point Claude Code at a fake
	// API with it).
	Env []string
	// Clean, when set, cleans what the run printed before it is cut into
	// an error message (a cut secret would escape redaction later).
	Clean func(string) string

	mu   sync.Mutex
	slot chan struct{}
	once sync.Once
}

// Name is "claude-cli".
func (c *ClaudeCLI) Name() string { return GenClaudeCLI }

// Configure sets the path and model, e.g. when the settings change.
func (c *ClaudeCLI) Configure(path, model string) {
	c.mu.Lock()
	c.Path, c.Model = path, model
	c.mu.Unlock()
}

func (c *ClaudeCLI) clean(s string) string {
	if c.Clean == nil {
		return s
	}
	return c.Clean(s)
}

// Args are the command-line arguments of a run.
func (c *ClaudeCLI) Args(model string) []string {
	args := []string{"-p",
		"--output-format", "json",
		"--no-session-persistence",
		"--tools", "",
		"--settings", `{"disableAllHooks":true}`,
		"--system-prompt", SystemPrompt,
	}
	if model != "" {
		args = append(args, "--model", model)
	}
	return args
}

// Prompt is what the run reads on stdin.
func Prompt(in *Input) string {
	return "Summarize this record of a Claude Code session.\n\n<record>\n" + Digest(in, 24000) + "</record>\n\n" + FormatInstructions + "\n"
}

// cliResult is Claude Code's --output-format json answer.
type cliResult struct {
	Type    string  `json:"type"`
	Subtype string  `json:"subtype"`
	IsError bool    `json:"is_error"`
	Result  string  `json:"result"`
	CostUSD float64 `json:"total_cost_usd"`
	Usage   struct {
		InputTokens         int64 `json:"input_tokens"`
		OutputTokens        int64 `json:"output_tokens"`
		CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadTokens     int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
	ModelUsage map[string]json.RawMessage `json:"modelUsage"`
}

// Summarize runs `claude -p` over the digest of in. ctx bounds the run.
func (c *ClaudeCLI) Summarize(ctx context.Context, in *Input) (Result, error) {
	c.once.Do(func() { c.slot = make(chan struct{}, 1) })
	select {
	case c.slot <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	defer func() { <-c.slot }()

	c.mu.Lock()
	path, model := c.Path, c.Model
	c.mu.Unlock()
	bin, err := findClaude(path)
	if err != nil {
		name := path
		if name == "" {
			name = "claude"
		}
		return Result{}, hookwire.Permanent(fmt.Errorf("claude executable %q not found: %w", name, err))
	}
	stdout, stderr, err := c.run(ctx, bin, c.Args(model), Prompt(in))
	res := Result{Generator: GenClaudeCLI, Model: model}
	var out cliResult
	if jerr := json.Unmarshal(stdout, &out); jerr == nil && out.Type == "result" {
		res.InputTokens = out.Usage.InputTokens + out.Usage.CacheCreationTokens + out.Usage.CacheReadTokens
		res.OutputTokens = out.Usage.OutputTokens
		res.CostUSD = out.CostUSD
		for m := range out.ModelUsage {
			res.Model = m
		}
		if res.CostUSD == 0 {
			res.CostUSD = EstimateCost(res.Model, res.InputTokens, res.OutputTokens)
		}
		if err == nil && out.IsError {
			err = fmt.Errorf("claude reported an error: %s", clip(oneLine(c.clean(out.Result)), 200))
		}
	} else if err == nil {
		// Not Claude Code's JSON: read stdout as the answer itself.
		out.Result = string(stdout)
	}
	if err != nil {
		if msg := strings.TrimSpace(string(stderr)); msg != "" {
			err = fmt.Errorf("%w: %s", err, clip(oneLine(c.clean(msg)), 300))
		}
		return res, err
	}
	parsed, perr := ParseStrict(out.Result)
	if perr != nil {
		return res, perr
	}
	parsed.Generator, parsed.Model = res.Generator, res.Model
	parsed.InputTokens, parsed.OutputTokens, parsed.CostUSD = res.InputTokens, res.OutputTokens, res.CostUSD
	return parsed, nil
}

// run starts bin in its own process group and waits for it, killing the
// whole group when ctx ends. The group is killed after a normal exit too,
// so nothing the child left behind survives it.
func (c *ClaudeCLI) run(ctx context.Context, bin string, args []string, stdin string) ([]byte, []byte, error) {
	max := c.MaxOutput
	if max <= 0 {
		max = 256 << 10
	}
	dir := c.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	stdout := &capped{max: max}
	stdout.onOver = func() { _ = killGroup(cmd) } // a flood ends the run at once
	stderr := &capped{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = append(append(os.Environ(), hookwire.EnvSummarizer+"=1"), c.Env...)
	cmd.SysProcAttr = groupAttr()
	cmd.Cancel = func() error { return killGroup(cmd) }
	// If a grandchild holds the pipes open after the kill, stop waiting
	// for it (the group kill has already been sent).
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, nil, hookwire.Permanent(fmt.Errorf("start %s: %w", bin, err))
	}
	err := cmd.Wait()
	_ = killGroup(cmd)
	if ctx.Err() != nil {
		return stdout.Bytes(), stderr.Bytes(), fmt.Errorf("claude -p did not finish in time; killed: %w", ctx.Err())
	}
	if stdout.over {
		return stdout.Bytes(), stderr.Bytes(), hookwire.Permanent(fmt.Errorf("claude -p wrote more than %d bytes", max))
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stdout.Bytes(), stderr.Bytes(), fmt.Errorf("claude -p exited with status %d", ee.ExitCode())
		}
		return stdout.Bytes(), stderr.Bytes(), err
	}
	return stdout.Bytes(), stderr.Bytes(), nil
}

// capped is a buffer that keeps at most max bytes and remembers overflow.
// It deliberately has no ReadFrom, so io.Copy goes through Write.
type capped struct {
	buf    bytes.Buffer
	max    int
	over   bool
	onOver func()
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		if !c.over && c.onOver != nil {
			c.onOver()
		}
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// Bytes is what was kept.
func (c *capped) Bytes() []byte { return c.buf.Bytes() }
