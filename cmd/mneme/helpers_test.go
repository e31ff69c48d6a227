package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// builtBins holds the binaries built once per test run.
var builtBins struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// repoRoot is the module root, seen from this file.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// buildBinaries builds ./cmd/mneme and ./cmd/mneme-hook side by side, as
// make build and an install lay them out, and a no-op Go binary for
// comparison into a temp dir, once per test process. The dir is removed by
// TestMain. hookBinary returns mneme-hook's path.
// toolchainEnv pins the go command's caches to those in force when the
// test binary started. Tests that set HOME (doctorHome, the install tests)
// would otherwise send a `go build` to an empty cache under the temporary
// HOME: a rebuild of every dependency, four minutes on two cores.
var toolchainEnv = func() []string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(f) != 3 {
		return nil
	}
	return []string{"GOCACHE=" + f[0], "GOMODCACHE=" + f[1], "GOPATH=" + f[2]}
}()

// goCommand is `go args...` in dir with the caches of toolchainEnv.
func goCommand(dir string, extraEnv []string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), toolchainEnv...), extraEnv...)
	return cmd
}

func buildBinaries(tb testing.TB) (mneme, noop string) {
	tb.Helper()
	builtBins.once.Do(func() {
		builtBins.dir, builtBins.err = os.MkdirTemp("", "mneme-bin-")
		if builtBins.err != nil {
			return
		}
		// One go build for both: the packages they share compile once.
		// -buildvcs=false: a clean checkout would stamp them with a pseudo-version
		// from git, a dirty one not; the test binary itself has neither.
		// Built as make build and the releases build them (-trimpath, and
		// -s -w: no symbol table or DWARF), so the hook benchmarks time
		// the binaries users run; the no-op and the floor hook below too.
		cmd := goCommand(repoRoot(), []string{"CGO_ENABLED=0"}, "build", "-buildvcs=false", "-trimpath", "-ldflags=-s -w", "-o", builtBins.dir+string(filepath.Separator), "./cmd/mneme", "./cmd/mneme-hook")
		if builtBins.out, builtBins.err = cmd.CombinedOutput(); builtBins.err != nil {
			return
		}
		// The no-op: a Go binary that reads stdin and prints {} — the floor
		// any Go hook command pays for process start.
		src := filepath.Join(builtBins.dir, "noop")
		os.MkdirAll(src, 0o755)
		os.WriteFile(filepath.Join(src, "go.mod"), []byte("module noop\n\ngo 1.25\n"), 0o644)
		os.WriteFile(filepath.Join(src, "main.go"), []byte(`package main

import (
	"io"
	"os"
)

func main() {
	io.Copy(io.Discard, os.Stdin)
	os.Stdout.WriteString("{}\n")
}
`), 0o644)
		cmd = goCommand(src, []string{"CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod"}, "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(builtBins.dir, "noop-bin"), ".")
		if builtBins.out, builtBins.err = cmd.CombinedOutput(); builtBins.err != nil {
			return
		}
		// The floor of a hook that waits for the worker's commit: the
		// no-op plus one request over the worker's socket and its answer,
		// nothing else (no flags, redaction, spool or JSON).
		src = filepath.Join(builtBins.dir, "floor")
		os.MkdirAll(src, 0o755)
		os.WriteFile(filepath.Join(src, "go.mod"), []byte("module floor\n\ngo 1.25\n"), 0o644)
		os.WriteFile(filepath.Join(src, "main.go"), []byte(floorSource), 0o644)
		cmd = goCommand(src, []string{"CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod"}, "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(builtBins.dir, "floor-bin"), ".")
		builtBins.out, builtBins.err = cmd.CombinedOutput()
	})
	if builtBins.err != nil {
		tb.Fatalf("build: %v\n%s", builtBins.err, builtBins.out)
	}
	return filepath.Join(builtBins.dir, "mneme"), filepath.Join(builtBins.dir, "noop-bin")
}

// floorSource is the floor hook's program (floorBinary): it reads the
// event, posts it to the worker's socket (MNEME_FLOOR_SOCKET) as
// mneme-hook does, and prints the answer's body.
const floorSource = `package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"strconv"
)

func main() {
	body, _ := io.ReadAll(os.Stdin)
	conn, err := net.Dial("unix", os.Getenv("MNEME_FLOOR_SOCKET"))
	if err != nil {
		os.Exit(1)
	}
	req := "POST /api/hooks/" + os.Args[1] + " HTTP/1.1\r\nHost: mneme\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	conn.Write(append([]byte(req), body...))
	ans, _ := io.ReadAll(conn)
	if !bytes.HasPrefix(ans, []byte("HTTP/1.1 200")) {
		os.Exit(1)
	}
	_, after, _ := bytes.Cut(ans, []byte("\r\n\r\n"))
	os.Stdout.Write(append(after, '\n'))
}
`

// floorBinary is the floor hook built beside buildBinaries' no-op.
func floorBinary(tb testing.TB) string {
	tb.Helper()
	_, noop := buildBinaries(tb)
	return filepath.Join(filepath.Dir(noop), "floor-bin")
}

// hookBinary is the mneme-hook built beside buildBinaries' mneme: the
// binary `mneme install` makes Claude Code run.
func hookBinary(tb testing.TB) string {
	tb.Helper()
	mneme, _ := buildBinaries(tb)
	return filepath.Join(filepath.Dir(mneme), "mneme-hook")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBins.dir != "" {
		os.RemoveAll(builtBins.dir)
	}
	os.Exit(code)
}

// freePort returns a loopback port that was free a moment ago.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// binEnv is the environment of a spawned mneme: the test's data dir and
// port, nothing inherited that could point at a real install.
func binEnv(dataDir string, port int, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dataDir,
		"MNEME_DATA_DIR=" + dataDir,
		"MNEME_PORT=" + strconv.Itoa(port),
	}
	return append(env, extra...)
}

// runBin runs the built binary with stdin and returns stdout, stderr and
// the exit code.
func runBin(tb testing.TB, bin string, env []string, stdin []byte, args ...string) (stdout, stderr []byte, code int) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.Bytes(), e.Bytes(), ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("run %s %v: %v", bin, args, err)
	}
	return o.Bytes(), e.Bytes(), 0
}

// healthPID asks the worker of dataDir, over its socket, for its pid; 0
// when none answers.
func healthPID(dataDir string) int {
	c := socketClient(hookwire.SocketPath(dataDir))
	c.Timeout = 500 * time.Millisecond
	resp, err := c.Get(socketBase + "/api/health")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var h struct {
		Service string `json:"service"`
		PID     int    `json:"pid"`
	}
	if json.NewDecoder(resp.Body).Decode(&h) != nil || h.Service != "mneme" {
		return 0
	}
	return h.PID
}
