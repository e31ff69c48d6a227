package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// `mneme doctor` against a real worker and Claude Code's settings in a
// temp HOME. The tests set HOME and the working directory (a project
// without mneme's wiring), so they do not run in parallel.

// doctorHome makes a temp HOME and working directory for doctor.
func doctorHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(EnvURL, "")
	t.Setenv("MNEME_DATABASE_URL", "")
	t.Chdir(t.TempDir())
	return home
}

// privateDataDir is a data directory as `mneme serve` makes it: 0700
// (t.TempDir's are open to others).
func privateDataDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := hookwire.PrepareDataDir(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sameVersion makes the test worker say this binary's version, as a
// worker started by it would.
func sameVersion(o *app.Options) { o.Build = thisBuild }

// flags are the global flags naming a worker's port and data directory.
func flags(port int, dataDir string) []string {
	return []string{"--port", strconv.Itoa(port), "--data-dir", dataDir}
}

// install runs `mneme install --bin bin` in-process for the worker.
func installFor(t *testing.T, port int, dataDir, bin string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append(flags(port, dataDir), "install", "--bin", bin), nil, &out, &errb); code != 0 {
		t.Fatalf("install: exit %d: %s %s", code, out.String(), errb.String())
	}
}

// doctor runs `mneme doctor` in-process and returns its output and exit code.
func runDoctor(t *testing.T, port int, dataDir string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append(flags(port, dataDir), "doctor"), nil, &out, &errb)
	if errb.Len() > 0 {
		t.Errorf("doctor wrote on stderr: %s", errb.String())
	}
	return out.String(), code
}

// wantProblem checks doctor failed, on check's line saying problem, with a
// fix line right under it saying fix.
func wantProblem(t *testing.T, out string, code int, check, problem, fix string) {
	t.Helper()
	if code == 0 {
		t.Errorf("doctor exited 0 with %s broken:\n%s", check, out)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "FAIL  "+check+":") && strings.Contains(l, problem) {
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "      fix: ") && strings.Contains(lines[i+1], fix) {
				return
			}
			t.Errorf("the %s problem has no fix line saying %q:\n%s", check, fix, out)
			return
		}
	}
	t.Errorf("no FAIL line for %s saying %q:\n%s", check, problem, out)
}

// healthy is a worker of this version with mneme's binaries installed into
// Claude Code's user settings in a temp HOME: what doctor finds well.
func healthy(t *testing.T, opts ...testutil.Option) *testutil.Server {
	t.Helper()
	doctorHome(t)
	srv := testutil.NewServerIn(t, privateDataDir(t), append([]testutil.Option{sameVersion}, opts...)...)
	mneme, _ := buildBinaries(t)
	installFor(t, srv.Port, srv.DataDir, mneme)
	return srv
}

func TestDoctorHealthy(t *testing.T) {
	srv := healthy(t)
	out, code := runDoctor(t, srv.Port, srv.DataDir)
	if code != 0 || strings.Contains(out, "FAIL") || !strings.HasSuffix(out, "all is well\n") {
		t.Fatalf("exit %d on a healthy install:\n%s", code, out)
	}
	hookBin := filepath.Join(filepath.Dir(mnemeBin(t)), "mneme-hook")
	for _, want := range []string{
		"ok    hooks:         all 7 events, in " + filepath.Join(os.Getenv("HOME"), ".claude", "settings.json"),
		"ok    MCP server:    \"mneme\" registered in " + filepath.Join(os.Getenv("HOME"), ".claude.json"),
		"ok    /mem-search:",
		"ok    binaries:      " + hookBin + " (hooks (user)), version " + version,
		"ok    binaries:      " + mnemeBin(t) + " (MCP server (user)), version " + version,
		"ok    worker:        pid ",
		"ok    port:          the viewer answers at http://127.0.0.1:" + strconv.Itoa(srv.Port),
		"ok    data dir:      " + srv.DataDir + ", mode 0700",
		"ok    secret:",
		"ok    spool:         empty, nothing set aside",
		"ok    embeddings:    off",
		"ok    summarizer:    heuristic",
		"ok    database:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not say %q:\n%s", want, out)
		}
	}
}

func mnemeBin(t *testing.T) string {
	m, _ := buildBinaries(t)
	return m
}

func TestDoctorHooksMissing(t *testing.T) {
	doctorHome(t)
	srv := testutil.NewServer(t, sameVersion)
	out, code := runDoctor(t, srv.Port, srv.DataDir)
	wantProblem(t, out, code, "hooks", "not installed", "run `mneme install`")
	wantProblem(t, out, code, "MCP server", "not registered", "run `mneme install`")
}

// A hook command pointing at a binary of another version (a stale
// go install, an old make build) is a mismatch.
func TestDoctorVersionMismatch(t *testing.T) {
	doctorHome(t)
	srv := testutil.NewServer(t, sameVersion)
	dir := t.TempDir()
	for _, name := range []string{"mneme", "mneme-hook"} {
		script := "#!/bin/sh\necho \"" + name + " version 0.0.1-other\"\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	installFor(t, srv.Port, srv.DataDir, filepath.Join(dir, "mneme-hook"))
	out, code := runDoctor(t, srv.Port, srv.DataDir)
	wantProblem(t, out, code, "binaries", filepath.Join(dir, "mneme-hook")+", which the hooks (user) run, is version 0.0.1-other; this mneme is "+version,
		"install one version of both binaries")
	wantProblem(t, out, code, "binaries", filepath.Join(dir, "mneme")+", which the MCP server (user) run, is version 0.0.1-other", "then run `mneme install` with it")
	if !strings.Contains(out, "ok    hooks:") {
		t.Errorf("the hooks themselves are installed:\n%s", out)
	}
}

// A worker of another version than this mneme (not restarted after an
// upgrade) is a mismatch too.
func TestDoctorWorkerVersionMismatch(t *testing.T) {
	srv := healthy(t, func(o *app.Options) { o.Build.Version = "0.0.2-old" })
	out, code := runDoctor(t, srv.Port, srv.DataDir)
	wantProblem(t, out, code, "worker", "with version 0.0.2-old; this mneme is "+version, "restart the worker")
}

func TestDoctorWorkerDown(t *testing.T) {
	doctorHome(t)
	dataDir := privateDataDir(t)
	if _, err := hookwire.EnsureSecretFile(dataDir); err != nil {
		t.Fatal(err)
	}
	mneme, _ := buildBinaries(t)
	port := freePort(t)
	installFor(t, port, dataDir, mneme)
	out, code := runDoctor(t, port, dataDir)
	wantProblem(t, out, code, "worker", "does not answer on "+hookwire.SocketPath(dataDir), "start it with `mneme serve`")
	if strings.Count(out, "FAIL") != 1 {
		t.Errorf("only the worker is down:\n%s", out)
	}
}

// Something else on the worker's port: the viewer is not mneme's.
func TestDoctorPortTaken(t *testing.T) {
	srv := healthy(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // a port where nothing answers
	out, code := runDoctor(t, ln.Addr().(*net.TCPAddr).Port, srv.DataDir)
	wantProblem(t, out, code, "port", "nothing answers http://127.0.0.1:", "the worker runs with another port")
}

func TestDoctorSecretWorldReadable(t *testing.T) {
	srv := healthy(t)
	secret := filepath.Join(srv.DataDir, hookwire.SecretFile)
	if err := os.Chmod(secret, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runDoctor(t, srv.Port, srv.DataDir)
	wantProblem(t, out, code, "secret", "has mode 0644, open to others", "chmod 600 "+secret)
}

func TestDoctorDataDirOpen(t *testing.T) {
	srv := healthy(t)
	if err := os.Chmod(srv.DataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(srv.DataDir, 0o700) })
	out, code := runDoctor(t, srv.Port, srv.DataDir)
	wantProblem(t, out, code, "data dir", "has mode 0755, open to others", "chmod 700 "+srv.DataDir)
}

// An event the spool set aside (in spool/rejected/, as the hook's replay
// writes it) is a problem until read and removed.
func TestDoctorQuarantinedEvents(t *testing.T) {
	srv := healthy(t)
	rejected := filepath.Join(srv.DataDir, "spool", hookwire.RejectedDir)
	if err := os.MkdirAll(rejected, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rejected, "20250101T000000.000000000Z-0.jsonl"), []byte("# 2025-01-01T00:00:00Z worker said 400\n{\"event\":\"stop\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := runDoctor(t, srv.Port, srv.DataDir)
	wantProblem(t, out, code, "spool", "1 spooled event refused by the worker for good", "read the reason at the top of each file in "+rejected)
}

// An embeddings endpoint that refuses connections: the worker's health
// says so, and doctor passes it on with a fix.
func TestDoctorEmbeddingsFailing(t *testing.T) {
	srv := healthy(t, testutil.FastEmbed)
	srv.SeedFixture(t)
	refused := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	body := `{"embeddings":{"url":"` + refused + `","model":"m","dimensions":8}}`
	if status, b := srv.Do(t, "PUT", "/api/settings", body, nil); status != 200 {
		t.Fatalf("PUT embeddings settings: %d %s", status, b)
	}
	srv.WaitEmbeddings(t, "the endpoint failing", func(h api.EmbeddingsHealth) bool { return h.LastError != "" })
	out, code := runDoctor(t, srv.Port, srv.DataDir)
	wantProblem(t, out, code, "embeddings", "the endpoint "+refused+" fails: ", "start the embeddings server, or fix or clear its address")
}

// With the mneme plugin enabled (no hooks of `mneme install`), the hooks,
// MCP server and /mem-search are the plugin's, and its bin/ holds the
// binaries Claude Code runs: of another version, they are a mismatch.
func TestDoctorPlugin(t *testing.T) {
	home := doctorHome(t)
	srv := testutil.NewServerIn(t, privateDataDir(t), sameVersion)
	plugin := filepath.Join(home, ".claude", "plugins", "cache", "mneme", "mneme", "0.1.0")
	os.MkdirAll(filepath.Join(plugin, "bin"), 0o755)
	writeBin := func(v string) {
		for _, name := range []string{"mneme", "mneme-hook"} {
			os.WriteFile(filepath.Join(plugin, "bin", name), []byte("#!/bin/sh\necho \""+name+" version "+v+"\"\n"), 0o755)
		}
	}
	writeBin(version)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"enabledPlugins":{"mneme@mneme":true}}`), 0o644)
	os.WriteFile(filepath.Join(home, ".claude", "plugins", "installed_plugins.json"),
		[]byte(`{"version":2,"plugins":{"mneme@mneme":[{"scope":"user","installPath":`+strconv.Quote(plugin)+`,"version":"0.1.0"}]}}`), 0o644)

	out, code := runDoctor(t, srv.Port, srv.DataDir)
	for _, want := range []string{
		"ok    hooks:         from the plugin mneme@mneme (" + plugin + ")",
		"ok    MCP server:    from the plugin mneme@mneme",
		"ok    /mem-search:   from the plugin mneme@mneme",
		"ok    binaries:      " + filepath.Join(plugin, "bin", "mneme-hook") + " (plugin mneme@mneme), version " + version,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not say %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d with the plugin installed:\n%s", code, out)
	}

	writeBin("0.0.3-plugin")
	out, code = runDoctor(t, srv.Port, srv.DataDir)
	wantProblem(t, out, code, "binaries", filepath.Join(plugin, "bin", "mneme-hook")+", which the plugin mneme@mneme run, is version 0.0.3-plugin", "make them one version: update the plugin")
}
