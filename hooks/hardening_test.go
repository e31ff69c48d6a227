package hooks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/hooks/hookhttp"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// These tests run the hook's client against a real worker (or a port no
// worker listens on) with real directories; the package's own code stays
// standard library only, the tests may use the worker.

func prompt(text string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": "hardening", "cwd": "/tmp/hardening", "hook_event_name": "UserPromptSubmit", "prompt": text})
	return b
}

// tool is a PostToolUse payload: the hot-path event, with the shortest
// auto-start budget.
func tool(id string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": "hardening", "cwd": "/tmp/hardening", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": "echo " + id}, "tool_response": map[string]any{"stdout": id}})
	return b
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// newClient is the client `mneme hook` builds for port and dataDir, with
// diagnostics on (MNEME_DEBUG) into the returned buffer, auto-start off.
func newClient(t *testing.T, port int, dataDir string) (*hooks.Client, *bytes.Buffer) {
	t.Helper()
	t.Setenv(hookwire.EnvDebug, "1")
	t.Setenv(hookwire.EnvNoStart, "1")
	var stderr bytes.Buffer
	c := hooks.NewClient(hooks.Options{Port: port, DataDir: dataDir, Remote: hookhttp.Sender}, &stderr)
	return c, &stderr
}

// run is one hook invocation: it must answer one line of valid JSON.
func run(t *testing.T, c *hooks.Client, slug string, body []byte) string {
	t.Helper()
	var out bytes.Buffer
	c.Run(slug, bytes.NewReader(body), &out)
	if !json.Valid(out.Bytes()) || bytes.Count(bytes.TrimSpace(out.Bytes()), []byte("\n")) != 0 {
		t.Fatalf("hook answered %q, want one line of JSON", out.String())
	}
	return strings.TrimSpace(out.String())
}

// plant makes the fallback spool directory at path the way someone else
// could have, first, in a shared temp directory. It returns where files
// written "into" it land, and skips kinds this user cannot make.
func plant(t *testing.T, kind, path string) string {
	t.Helper()
	switch kind {
	case "other-user":
		if os.Getuid() != 0 {
			t.Skip("making a directory of another user needs root (os.Chown)")
		}
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	case "group-writable", "world-writable":
		mode := map[string]os.FileMode{"group-writable": 0o770, "world-writable": 0o777}[kind]
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	case "symlink":
		target := t.TempDir() // someone else's directory, elsewhere
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		return target
	default:
		t.Fatalf("unknown kind %s", kind)
	}
	return path
}

var plantedKinds = []string{"other-user", "group-writable", "world-writable", "symlink"}

func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestHookRefusesPlantedFallbackForWrites: the data directory's spool
// cannot be written and the fallback spool directory was made by someone
// else (or is open to others, or a symbolic link): the hook does not write
// the event there (it would leak), answers Claude Code as usual, and says
// why under MNEME_DEBUG.
func TestHookRefusesPlantedFallbackForWrites(t *testing.T) {
	for _, kind := range plantedKinds {
		t.Run(kind, func(t *testing.T) {
			t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
			dataDir := t.TempDir()
			// The spool cannot be made: a file stands where it goes.
			os.WriteFile(filepath.Join(dataDir, "spool"), nil, 0o600)
			c, stderr := newClient(t, freePort(t), dataDir)
			landed := plant(t, kind, c.Fallback.Dir)

			if out := run(t, c, "user-prompt-submit", prompt("secret: must not leak")); out != hookwire.ContinueJSON {
				t.Errorf("answer %s, want %s", out, hookwire.ContinueJSON)
			}
			if files := dirFiles(t, landed); len(files) != 0 {
				t.Errorf("the hook wrote %v into the planted directory", files)
			}
			if !strings.Contains(stderr.String(), "fallback spool refused") || !strings.Contains(stderr.String(), "not a private directory") {
				t.Errorf("MNEME_DEBUG does not explain the refusal: %s", stderr)
			}
			t.Logf("stderr: %s", bytes.TrimSpace(stderr.Bytes()))
		})
	}
}

// TestHookRefusesPlantedFallbackForReplay: a planted fallback spool holds
// an event: the hook, with the worker up, stores its own event and does
// not replay the planted one into our memory, nor touch it.
func TestHookRefusesPlantedFallbackForReplay(t *testing.T) {
	for _, kind := range plantedKinds {
		t.Run(kind, func(t *testing.T) {
			t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
			srv := testutil.NewServer(t)
			c, stderr := newClient(t, srv.Port, srv.DataDir)
			landed := plant(t, kind, c.Fallback.Dir)
			if err := (hookwire.Spool{Dir: landed}).Append("user-prompt-submit", prompt("injected")); err != nil {
				t.Fatal(err)
			}
			if kind == "other-user" {
				os.Chown(filepath.Join(landed, "pending.jsonl"), 65534, 65534)
			}
			before, _ := os.ReadFile(filepath.Join(landed, "pending.jsonl"))

			run(t, c, "user-prompt-submit", prompt("ours"))
			var texts []string
			modelstest.Scan(t, srv.Store, &texts, `SELECT text FROM prompts ORDER BY id`)
			if strings.Join(texts, ",") != "ours" {
				t.Errorf("stored prompts %q, want only ours", texts)
			}
			if after, _ := os.ReadFile(filepath.Join(landed, "pending.jsonl")); !bytes.Equal(before, after) {
				t.Error("the planted spool was changed")
			}
			if !strings.Contains(stderr.String(), "fallback spool refused") {
				t.Errorf("MNEME_DEBUG does not explain the refusal: %s", stderr)
			}
		})
	}
}

// startCounter is an auto-start that runs a real process which exits at
// once, as a mneme serve that cannot run does, and counts the attempts.
func startCounter(t *testing.T) (func() error, *atomic.Int32) {
	t.Helper()
	exit, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) on PATH")
	}
	var n atomic.Int32
	return func() error {
		n.Add(1)
		cmd := exec.Command(exit)
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait()
		return nil
	}, &n
}

func marker(dir string) string { return filepath.Join(dir, ".autostart-failed") }

// TestAutoStartBackoff: after an auto-start that failed, the hooks of the
// next 30 s spool at once instead of trying (and waiting) again; an old
// mark, or one from the future (the clock went back), does not hold them
// back; an answer from the worker clears the mark; every event is stored
// once, in order, once a worker runs.
func TestAutoStartBackoff(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dataDir := t.TempDir()
	port := freePort(t)
	c, stderr := newClient(t, port, dataDir)
	start, starts := startCounter(t)
	c.StartWorker = start
	var want []string
	hook := func(id string) string {
		stderr.Reset()
		want = append(want, id)
		return run(t, c, "post-tool-use", tool(id))
	}

	hook("e1")
	if starts.Load() != 1 || !strings.Contains(stderr.String(), "did not become healthy") {
		t.Fatalf("first hook: %d starts; stderr %s", starts.Load(), stderr)
	}
	mark := marker(c.Spool.Dir)
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the failed auto-start was not recorded: %v", err)
	}
	for i := 2; i <= 4; i++ {
		hook(fmt.Sprintf("e%d", i))
		if starts.Load() != 1 || !strings.Contains(stderr.String(), "auto-start skipped") {
			t.Fatalf("hook %d within the back-off: %d starts; stderr %s", i, starts.Load(), stderr)
		}
	}
	old := time.Now().Add(-hooks.StartBackoff - time.Second)
	os.Chtimes(mark, old, old)
	hook("e5")
	if starts.Load() != 2 {
		t.Fatalf("after the back-off: %d starts, want 2; stderr %s", starts.Load(), stderr)
	}
	future := time.Now().Add(time.Hour)
	os.Chtimes(mark, future, future)
	hook("e6")
	if starts.Load() != 3 {
		t.Fatalf("with a mark an hour ahead: %d starts, want 3; stderr %s", starts.Load(), stderr)
	}

	// A worker appears (started by hand): the next hooks reach it, flush
	// the spool, and clear the mark. Each hook replays only within its own
	// budget (on a loaded machine one hook may send a single event, or
	// time out on a worker still warming up), so hooks go on until the
	// spool is empty, as Claude Code's would.
	srv := testutil.NewServerAt(t, dataDir, port)
	deadline := time.Now().Add(2 * time.Minute)
	for i := 7; ; i++ {
		if out := hook(fmt.Sprintf("e%d", i)); out == "" {
			t.Fatal("no answer")
		}
		if !c.Spool.Pending() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spool still holds events after %d hooks with a worker up; stderr %s", i-6, stderr)
		}
	}
	if starts.Load() != 3 {
		t.Errorf("a hook that reached the worker tried to start one: %d starts", starts.Load())
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Errorf("the mark is still there after the worker answered: %v", err)
	}
	var ids []string
	modelstest.Scan(t, srv.Store, &ids, `SELECT tool_use_id FROM observations ORDER BY id`)
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("stored %v, want %v; stderr %s", ids, want, stderr)
	}
}

// TestAutoStartBackoffInFallback: with the data directory's spool not
// writable, the failed auto-start is recorded in the (private) fallback
// spool, and holds back the next hooks the same way.
func TestAutoStartBackoffInFallback(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dataDir := t.TempDir()
	os.WriteFile(filepath.Join(dataDir, "spool"), nil, 0o600)
	c, stderr := newClient(t, freePort(t), dataDir)
	start, starts := startCounter(t)
	c.StartWorker = start

	run(t, c, "post-tool-use", tool("t1"))
	if _, err := os.Stat(marker(c.Fallback.Dir)); err != nil {
		t.Fatalf("no mark in the fallback spool: %v; stderr %s", err, stderr)
	}
	stderr.Reset()
	run(t, c, "post-tool-use", tool("t2"))
	if starts.Load() != 1 || !strings.Contains(stderr.String(), "auto-start skipped") {
		t.Errorf("second hook: %d starts; stderr %s", starts.Load(), stderr)
	}
	if !(hookwire.Spool{Dir: c.Fallback.Dir}).Pending() {
		t.Error("the events are not in the fallback spool")
	}
}
