package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The plugin installs its own binaries: scripts/run.sh, finding no
// binary in the plugin's bin/, downloads the release archive of the
// plugin's version for this platform, checks it against the checksum the
// plugin records, unpacks it into bin/ and runs it. These tests run the
// real script with sh against a loopback server serving archives built
// here (fake mneme and mneme-hook scripts that print their arguments).

// bootTools is a directory of links to the programs run.sh uses, and only
// them (curl and wget when withDownloader), to be the whole PATH: no mneme
// installed on this machine is found, and a machine without curl or wget
// can be played.
func bootTools(t *testing.T, withDownloader bool) string {
	t.Helper()
	for _, need := range []string{"sh", "tar"} {
		if _, err := exec.LookPath(need); err != nil {
			t.Skipf("%s is not installed: the plugin's run.sh cannot be tested", need)
		}
	}
	dir := t.TempDir()
	tools := []string{"sh", "tar", "gzip", "dirname", "sed", "head", "mkdir", "rm", "rmdir", "mv", "mktemp", "date",
		"find", "sha256sum", "shasum", "openssl", "cat", "chmod", "sleep", "tr", "uname", "printf", "kill", "unzip"}
	if withDownloader {
		tools = append(tools, "curl", "wget")
	}
	for _, name := range tools {
		if p, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if withDownloader {
		if _, err := os.Lstat(filepath.Join(dir, "curl")); err != nil {
			if _, err := os.Lstat(filepath.Join(dir, "wget")); err != nil {
				t.Skip("neither curl nor wget is installed: run.sh cannot download")
			}
		}
	}
	return dir
}

// pluginVersion is the version in the repository's plugin.json.
func pluginVersion(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(), ".claude-plugin", "plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Version string }
	if err := json.Unmarshal(raw, &m); err != nil || m.Version == "" {
		t.Fatalf("plugin.json: %v %q", err, m.Version)
	}
	return m.Version
}

// bootArchiveName is the release archive run.sh wants on this machine.
func bootArchiveName(t *testing.T) string {
	ext := "tar.gz"
	if runtime.GOOS == "windows" {
		ext = "zip"
	}
	return fmt.Sprintf("mneme_%s_%s_%s.%s", pluginVersion(t), runtime.GOOS, runtime.GOARCH, ext)
}

// fakeArchive is a release archive as GoReleaser lays it out: mneme and
// mneme-hook (shell scripts printing their name and each argument in
// brackets), LICENSE and README.md.
func fakeArchive(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	files := []struct {
		name string
		mode int64
		body string
	}{
		{"LICENSE", 0o644, "Apache-2.0\n"},
		{"README.md", 0o644, "# mneme\n"},
		{"mneme", 0o755, "#!/bin/sh\necho fake-mneme\nfor a in \"$@\"; do echo \"[$a]\"; done\n"},
		{"mneme-hook", 0o755, "#!/bin/sh\necho fake-mneme-hook\nfor a in \"$@\"; do echo \"[$a]\"; done\n"},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg, ModTime: time.Unix(1700000000, 0)}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// bootPlugin is a copy of the plugin (plugin.json and scripts/run.sh)
// in a temp dir with checksums.txt recording sum for this platform's
// archive ("" records none), like the release step writes it.
func bootPlugin(t *testing.T, sum string) string {
	t.Helper()
	root := t.TempDir()
	for _, rel := range []string{filepath.Join(".claude-plugin", "plugin.json"), filepath.Join("scripts", "run.sh")} {
		raw, err := os.ReadFile(filepath.Join(repoRoot(), rel))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(root, rel), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sums strings.Builder
	other := strings.Repeat("ab", 32)
	fmt.Fprintf(&sums, "%s  mneme_%s_plan9_mips.tar.gz\n", other, pluginVersion(t))
	if sum != "" {
		fmt.Fprintf(&sums, "%s  %s\n", sum, bootArchiveName(t))
	}
	if err := os.WriteFile(filepath.Join(root, ".claude-plugin", "checksums.txt"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// archiveServer serves handle at /<archive> and 404 elsewhere, counting
// the requests for the archive.
func archiveServer(t *testing.T, handle http.HandlerFunc) (base string, hits *atomic.Int64) {
	t.Helper()
	hits = new(atomic.Int64)
	dir := "/releases/v" + pluginVersion(t)
	name := dir + "/" + bootArchiveName(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != name {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + dir, hits
}

// serveBytes answers with b.
func serveBytes(b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/gzip")
		w.Write(b)
	}
}

type bootRun struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// runBoot runs the plugin's run.sh as Claude Code does, with only tools
// on PATH and base as the download location.
func runBoot(t *testing.T, root, tools, base string, extraEnv []string, args ...string) bootRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(tools, "sh"), append([]string{filepath.Join(root, "scripts", "run.sh")}, args...)...)
	cmd.Env = append([]string{"CLAUDE_PLUGIN_ROOT=" + root, "PATH=" + tools, "HOME=" + root, "MNEME_DOWNLOAD_URL=" + base}, extraEnv...)
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"SessionStart","session_id":"s1"}`)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := bootRun{stdout: strings.TrimSpace(out.String()), stderr: strings.TrimSpace(errb.String()), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run.sh %v: %v", args, err)
	}
	return r
}

// assertInstalled checks bin/ holds both fake binaries, whole and
// executable, and nothing of the install is left around it.
func assertInstalled(t *testing.T, root string) {
	t.Helper()
	for _, name := range []string{"mneme", "mneme-hook"} {
		p := filepath.Join(root, "bin", name)
		info, err := os.Stat(p)
		if err != nil || info.Mode().Perm()&0o100 == 0 {
			t.Fatalf("bin/%s: %v %v", name, info, err)
		}
		b, _ := os.ReadFile(p)
		if !bytes.HasPrefix(b, []byte("#!/bin/sh\necho fake-"+name+"\n")) || !bytes.HasSuffix(b, []byte("done\n")) {
			t.Errorf("bin/%s is not the archive's: %q", name, b)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "bin")); len(entries) != 2 {
		t.Errorf("bin/ holds %d entries, want mneme and mneme-hook", len(entries))
	}
	assertNoLeftovers(t, root, false)
}

// assertNoLeftovers checks that no temporary directory or lock of an
// install is left in the plugin, nor (after a failure) any bin/; failed
// says whether the failure marker must be there.
func assertNoLeftovers(t *testing.T, root string, failed bool) {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case name == ".claude-plugin" || name == "scripts" || name == "bin" && !failed:
		case name == ".install-failed" && failed:
		default:
			t.Errorf("left behind in the plugin: %s", name)
		}
	}
	_, err = os.Stat(filepath.Join(root, ".install-failed"))
	if failed != (err == nil) {
		t.Errorf("failure marker present: %v, want %v", err == nil, failed)
	}
}

// TestPluginBootstrapInstalls: the first run downloads, checks and
// unpacks the archive and runs the binary with its arguments intact; the
// next ones run it from bin/ without downloading again.
func TestPluginBootstrapInstalls(t *testing.T) {
	t.Parallel()
	archive := fakeArchive(t)
	tools := bootTools(t, true)
	base, hits := archiveServer(t, serveBytes(archive))
	// The checksums as the release step records them: GoReleaser's
	// dist/checksums.txt through scripts/pluginsums.
	root := bootPlugin(t, "")
	dist := filepath.Join(t.TempDir(), "checksums.txt")
	os.WriteFile(dist, []byte(sha256Hex(archive)+"  "+bootArchiveName(t)+"\n"+sha256Hex([]byte("deb"))+"  mneme_"+pluginVersion(t)+"_linux_amd64.deb\n"), 0o644)
	cmd := exec.Command("go", "run", "./scripts/pluginsums", "-dist", dist, "-plugin", filepath.Join(root, ".claude-plugin"))
	cmd.Dir = repoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pluginsums: %v\n%s", err, out)
	}

	r := runBoot(t, root, tools, base, nil, "mneme-hook", "session-start")
	if r.code != 0 || r.stdout != "fake-mneme-hook\n[session-start]" {
		t.Fatalf("first run: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	assertInstalled(t, root)
	r = runBoot(t, root, tools, base, nil, "mneme", "search", "two words", `a "quoted" $arg`)
	if r.code != 0 || r.stdout != "fake-mneme\n[search]\n[two words]\n[a \"quoted\" $arg]" {
		t.Fatalf("second run: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the archive was downloaded %d times, want once", n)
	}
}

// TestPluginBootstrapFailures: whatever goes wrong (a checksum that does
// not match, a cut download, a 404, a server slower than the budget, no
// curl or wget, a plugin that records no checksum), no bin/ is left, a
// session start answers Claude Code with one line saying why and how to
// install by hand, other hooks answer a quiet continue, all exiting 0,
// and the MCP server says it on stderr and exits 1.
func TestPluginBootstrapFailures(t *testing.T) {
	t.Parallel()
	archive := fakeArchive(t)
	for _, c := range []struct {
		name       string
		sum        string // recorded in the plugin; "good" for the archive's
		handle     http.HandlerFunc
		noDownload bool   // PATH without curl and wget
		timeout    string // MNEME_DOWNLOAD_TIMEOUT
		why        string
		requests   int64 // -1: any
	}{
		{name: "wrong checksum", sum: strings.Repeat("0", 64), handle: serveBytes(archive),
			why: "does not match the checksum the plugin records", requests: 1},
		{name: "truncated", sum: "good", handle: func(w http.ResponseWriter, r *http.Request) {
			// Says the whole length, sends half, and hangs up.
			w.Header().Set("Content-Length", fmt.Sprint(len(archive)))
			w.Write(archive[:len(archive)/2])
		}, why: "download of http://", requests: 1},
		{name: "not found", sum: "good", handle: http.NotFound, why: "HTTP 404", requests: 1},
		{name: "slow server", sum: "good", timeout: "1", handle: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(archive)))
			w.Write(archive[:10])
			w.(http.Flusher).Flush()
			<-r.Context().Done() // until the script gives up
		}, why: "did not finish within 1s", requests: 1},
		{name: "no curl or wget", sum: "good", handle: serveBytes(archive), noDownload: true,
			why: "neither curl nor wget is installed", requests: 0},
		{name: "no checksum recorded", sum: "", handle: serveBytes(archive),
			why: "the plugin records no checksum for " + bootArchiveName(t), requests: 0},
		{name: "not an archive", sum: sha256Hex([]byte("not an archive")), handle: serveBytes([]byte("not an archive")),
			why: "could not be unpacked", requests: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tools := bootTools(t, !c.noDownload)
			base, hits := archiveServer(t, c.handle)
			sum := c.sum
			if sum == "good" {
				sum = sha256Hex(archive)
			}
			root := bootPlugin(t, sum)
			var env []string
			if c.timeout != "" {
				env = append(env, "MNEME_DOWNLOAD_TIMEOUT="+c.timeout)
			}

			r := runBoot(t, root, tools, base, env, "mneme-hook", "session-start")
			var ans struct {
				HookSpecificOutput struct {
					HookEventName     string `json:"hookEventName"`
					AdditionalContext string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &ans); err != nil || r.code != 0 || ans.HookSpecificOutput.HookEventName != "SessionStart" {
				t.Fatalf("session-start: exit %d, stdout %q (%v), stderr %q", r.code, r.stdout, err, r.stderr)
			}
			ctx := ans.HookSpecificOutput.AdditionalContext
			if !strings.HasPrefix(ctx, "mneme: could not install its binaries (") || !strings.Contains(ctx, c.why) ||
				!strings.Contains(ctx, "); install by hand: unpack "+bootArchiveName(t)+" from https://github.com/mneme-dev/mneme/releases/download/v") ||
				!strings.Contains(ctx, "go install github.com/mneme-dev/mneme/cmd/...@latest") {
				t.Errorf("session-start says %q, want why (%q) and how to install by hand", ctx, c.why)
			}
			// Within SessionStart's timeout in hooks/hooks.json.
			if r.took >= 10*time.Second {
				t.Errorf("session-start took %s, past its 10 s hook timeout", r.took)
			}
			assertNoLeftovers(t, root, true)
			if c.requests >= 0 && hits.Load() != c.requests {
				t.Errorf("%d requests for the archive, want %d", hits.Load(), c.requests)
			}

			// A tool call right after a failed install does not try again.
			before := hits.Load()
			r = runBoot(t, root, tools, base, env, "mneme-hook", "post-tool-use")
			if r.code != 0 || r.stdout != `{"continue":true,"suppressOutput":true}` {
				t.Errorf("post-tool-use: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if hits.Load() != before {
				t.Errorf("post-tool-use downloaded again moments after a failed install")
			}

			// The MCP server tries again, and says why it cannot start.
			before = hits.Load()
			r = runBoot(t, root, tools, base, env, "mneme", "mcp")
			if c.requests > 0 && hits.Load() != before+1 {
				t.Errorf("the MCP server did not try to download again")
			}
			if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, "mneme: could not install its binaries (") || !strings.Contains(r.stderr, c.why) {
				t.Errorf("mcp: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			assertNoLeftovers(t, root, true)
		})
	}
}

// TestPluginBootstrapRecovers: a failed install does not stop the next
// session start from trying again, and from succeeding once the archive
// can be had; the marker of the failure goes.
func TestPluginBootstrapRecovers(t *testing.T) {
	t.Parallel()
	archive := fakeArchive(t)
	tools := bootTools(t, true)
	var broken atomic.Bool
	broken.Store(true)
	base, _ := archiveServer(t, func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		w.Write(archive)
	})
	root := bootPlugin(t, sha256Hex(archive))
	if r := runBoot(t, root, tools, base, nil, "mneme-hook", "session-start"); r.code != 0 || !strings.Contains(r.stdout, "HTTP 502") {
		t.Fatalf("while down: exit %d, stdout %q", r.code, r.stdout)
	}
	broken.Store(false)
	if r := runBoot(t, root, tools, base, nil, "mneme-hook", "session-start"); r.code != 0 || r.stdout != "fake-mneme-hook\n[session-start]" {
		t.Fatalf("once up: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	assertInstalled(t, root)
}

// TestPluginBootstrapConcurrent: sessions starting at once (hooks and the
// MCP server) all run their binary; bin/ ends whole, downloaded once or
// more but never unpacked over itself.
func TestPluginBootstrapConcurrent(t *testing.T) {
	t.Parallel()
	archive := fakeArchive(t)
	tools := bootTools(t, true)
	started := make(chan struct{})
	base, hits := archiveServer(t, func(w http.ResponseWriter, r *http.Request) {
		<-started // every run is under way before the first download ends
		w.Write(archive)
	})
	root := bootPlugin(t, sha256Hex(archive))
	const n = 4
	var wg sync.WaitGroup
	results := make([]bootRun, n)
	var launched sync.WaitGroup
	launched.Add(n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			launched.Done()
			if i%2 == 0 {
				results[i] = runBoot(t, root, tools, base, nil, "mneme-hook", "session-start")
			} else {
				results[i] = runBoot(t, root, tools, base, nil, "mneme", "mcp")
			}
		}()
	}
	launched.Wait()
	close(started)
	wg.Wait()
	for i, r := range results {
		want := "fake-mneme-hook\n[session-start]"
		if i%2 == 1 {
			want = "fake-mneme\n[mcp]"
		}
		if r.code != 0 || r.stdout != want {
			t.Errorf("run %d: exit %d, stdout %q, stderr %q", i, r.code, r.stdout, r.stderr)
		}
	}
	assertInstalled(t, root)
	if h := hits.Load(); h < 1 || h > n {
		t.Errorf("%d downloads", h)
	}
}

// TestPluginBootstrapStaleLock: a lock left by a run that was killed (two
// minutes old or more) does not stop the install.
func TestPluginBootstrapStaleLock(t *testing.T) {
	t.Parallel()
	archive := fakeArchive(t)
	tools := bootTools(t, true)
	base, _ := archiveServer(t, serveBytes(archive))
	root := bootPlugin(t, sha256Hex(archive))
	lock := filepath.Join(root, ".install-lock")
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-10 * time.Minute)
	os.Chtimes(lock, old, old)
	if r := runBoot(t, root, tools, base, nil, "mneme-hook", "session-start"); r.code != 0 || r.stdout != "fake-mneme-hook\n[session-start]" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	assertInstalled(t, root)
}

// TestPluginBootstrapWaitsForLock: while another run holds the install's
// lock (a fresh one) and no bin/ appears, a run waits no longer than its
// budget, downloads nothing, and answers as for any failure; the lock is
// the other run's and stays.
func TestPluginBootstrapWaitsForLock(t *testing.T) {
	t.Parallel()
	archive := fakeArchive(t)
	tools := bootTools(t, true)
	base, hits := archiveServer(t, serveBytes(archive))
	root := bootPlugin(t, sha256Hex(archive))
	lock := filepath.Join(root, ".install-lock")
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runBoot(t, root, tools, base, []string{"MNEME_DOWNLOAD_TIMEOUT=1"}, "mneme-hook", "session-start")
	if r.code != 0 || !strings.Contains(r.stdout, `"additionalContext":"mneme: could not install its binaries (another session was still installing`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if hits.Load() != 0 {
		t.Errorf("downloaded while another run held the lock")
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("the other run's lock was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "bin")); err == nil {
		t.Errorf("bin/ appeared")
	}
}

// TestPluginBootstrapWget: without curl, wget downloads; a 404 through
// it fails as through curl.
func TestPluginBootstrapWget(t *testing.T) {
	t.Parallel()
	archive := fakeArchive(t)
	tools := bootTools(t, true)
	os.Remove(filepath.Join(tools, "curl"))
	if _, err := os.Lstat(filepath.Join(tools, "wget")); err != nil {
		t.Skip("wget is not installed")
	}
	base, hits := archiveServer(t, serveBytes(archive))
	root := bootPlugin(t, sha256Hex(archive))
	if r := runBoot(t, root, tools, base, nil, "mneme", "mcp"); r.code != 0 || r.stdout != "fake-mneme\n[mcp]" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	assertInstalled(t, root)
	if hits.Load() != 1 {
		t.Errorf("%d downloads", hits.Load())
	}

	missing := bootPlugin(t, sha256Hex(archive))
	r := runBoot(t, missing, tools, base+"/nowhere", nil, "mneme-hook", "session-start")
	if r.code != 0 || !strings.Contains(r.stdout, "the server answered with an error") {
		t.Errorf("404 through wget: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	assertNoLeftovers(t, missing, true)
}

// TestPluginBootstrapSnapshot: the whole path with the real release
// archive of this machine's platform, from GoReleaser's snapshot in
// $MNEME_RELEASE_DIST (make test-packaging sets it after make
// release-snapshot; skipped otherwise): the plugin records its checksum
// through scripts/pluginsums, run.sh downloads it from a loopback server,
// checks and unpacks it, and the binaries it installed say the version
// GoReleaser stamped. The archive is served under the plugin's version,
// as a release's is (the snapshot's own version has a "-snapshot" tail).
func TestPluginBootstrapSnapshot(t *testing.T) {
	t.Parallel()
	dist := os.Getenv("MNEME_RELEASE_DIST")
	if dist == "" {
		t.Skip("MNEME_RELEASE_DIST is not set: make test-packaging runs this against make release-snapshot's dist/")
	}
	raw, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Version, Commit string }
	if err := json.Unmarshal(raw, &meta); err != nil || meta.Version == "" {
		t.Fatalf("metadata.json: %v %q", err, raw)
	}
	ext := "tar.gz"
	if runtime.GOOS == "windows" {
		ext = "zip"
	}
	archive, err := os.ReadFile(filepath.Join(dist, fmt.Sprintf("mneme_%s_%s_%s.%s", meta.Version, runtime.GOOS, runtime.GOARCH, ext)))
	if err != nil {
		t.Fatal(err)
	}
	// The sum the release step records: the archive's, from GoReleaser's
	// checksums.txt, which must agree with the bytes served.
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sums), sha256Hex(archive)+"  ") {
		t.Fatalf("checksums.txt has no line for the archive's SHA-256 %s", sha256Hex(archive))
	}
	root := bootPlugin(t, "")
	recorded := filepath.Join(t.TempDir(), "checksums.txt")
	os.WriteFile(recorded, []byte(sha256Hex(archive)+"  "+bootArchiveName(t)+"\n"), 0o644)
	cmd := exec.Command("go", "run", "./scripts/pluginsums", "-dist", recorded, "-plugin", filepath.Join(root, ".claude-plugin"))
	cmd.Dir = repoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pluginsums: %v\n%s", err, out)
	}
	base, hits := archiveServer(t, serveBytes(archive))
	tools := bootTools(t, true)

	for _, c := range []struct{ prog, arg string }{{"mneme", "version"}, {"mneme-hook", "--version"}} {
		r := runBoot(t, root, tools, base, nil, c.prog, c.arg)
		want := fmt.Sprintf("%s version %s\ncommit %s (", c.prog, meta.Version, meta.Commit)
		if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
			t.Errorf("run.sh %s %s: exit %d, stdout %q, stderr %q; want it to begin %q", c.prog, c.arg, r.code, r.stdout, r.stderr, want)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the archive was downloaded %d times, want once", n)
	}
	for _, name := range []string{"mneme", "mneme-hook"} {
		if info, err := os.Stat(filepath.Join(root, "bin", name)); err != nil || info.Size() < 1<<20 {
			t.Errorf("bin/%s is not the release binary: %v %v", name, info, err)
		}
	}
	assertNoLeftovers(t, root, false)
}
