package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/transcript"
)

const fixtureSession = testutil.FixtureSessionID

// oldTranscript copies the fixture transcript into a temp dir laid out as
// ~/.claude/projects, dated an hour ago (a session that has ended), with
// edit applied to its text.
func oldTranscript(t *testing.T, edit ...func([]byte) []byte) string {
	t.Helper()
	src := filepath.Join(testutil.FixtureDir(t), "session-basic.transcript.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edit {
		data = e(data)
	}
	dir := filepath.Join(t.TempDir(), "projects", "-home-dev-projects-notes-app")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, fixtureSession+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	return filepath.Dir(dir)
}

func importInto(t *testing.T, srv *testutil.Server, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"import", "--data-dir", srv.DataDir}, args...), nil, &out, &errb)
	if code != 0 {
		t.Fatalf("mneme import %v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
	return out.String() + errb.String()
}

func sessionDigest(t *testing.T, srv *testutil.Server, id string) []string {
	t.Helper()
	var d api.SessionDetail
	srv.GetJSON(t, "/api/sessions/"+id, &d)
	return testutil.SessionDigest(d)
}

func counts(t *testing.T, srv *testutil.Server) [3]int64 {
	t.Helper()
	c, err := srv.Store.Counts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return [3]int64{c.Sessions, c.Prompts, c.Observations}
}

// TestImportMatchesLiveHooks: the fixture transcript imported into one
// worker gives the same session, prompt and tool calls as the same run's
// hook payloads posted live into another; importing again, or into the
// worker that captured it live, adds nothing.
func TestImportMatchesLiveHooks(t *testing.T) {
	t.Parallel()
	projects := oldTranscript(t)

	live := testutil.NewServer(t)
	live.SeedFixture(t)
	want := sessionDigest(t, live, fixtureSession)

	imported := testutil.NewServer(t)
	out := importInto(t, imported, projects)
	if !strings.Contains(out, "imported 1 session, 1 prompt, 4 tool calls (0 failed), 1 turn") {
		t.Errorf("summary:\n%s", out)
	}
	got := sessionDigest(t, imported, fixtureSession)
	t.Logf("imported:\n  %s\n%s", strings.Join(got, "\n  "), out)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("import differs from live capture:\nimport:\n  %s\nlive:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if strings.Contains(strings.Join(got, "\n"), "hunter2") {
		t.Error("the private part of the prompt was stored")
	}

	first := counts(t, imported)
	out = importInto(t, imported, projects)
	if again := counts(t, imported); again != first {
		t.Errorf("second import changed the counts: %v → %v", first, again)
	}
	if !strings.Contains(out, "new in memory: 0 sessions, 0 prompts, 0 observations") {
		t.Errorf("second import summary:\n%s", out)
	}

	before := counts(t, live)
	importInto(t, live, projects)
	if after := counts(t, live); after != before {
		t.Errorf("import after live capture duplicated: %v → %v", before, after)
	}
	if got := sessionDigest(t, live, fixtureSession); !reflect.DeepEqual(got, want) {
		t.Errorf("import after live capture changed the session:\n  %s", strings.Join(got, "\n  "))
	}
}

// TestImportDryRun counts and stores nothing.
func TestImportDryRun(t *testing.T) {
	t.Parallel()
	projects := oldTranscript(t)
	srv := testutil.NewServer(t)
	out := importInto(t, srv, "--dry-run", projects)
	if !strings.Contains(out, "would import 1 session, 1 prompt, 4 tool calls") || !strings.Contains(out, "notes-app") {
		t.Errorf("dry run:\n%s", out)
	}
	if c := counts(t, srv); c != [3]int64{} {
		t.Errorf("dry run stored %v", c)
	}
	if !strings.Contains(out, "would be new in memory: 1 session; already there: 0 sessions") || strings.Contains(out, "1 sessions") {
		t.Errorf("dry run does not tell new from stored:\n%s", out)
	}
	importInto(t, srv, projects)
	// Stored now: a dry run says so, not "would import" alone.
	out = importInto(t, srv, "--dry-run", projects)
	if !strings.Contains(out, "would be new in memory: 0 sessions; already there: 1 session") {
		t.Errorf("dry run of a stored session:\n%s", out)
	}
	out = importInto(t, srv, "--project", "other", projects)
	if !strings.Contains(out, "imported 0 sessions") {
		t.Errorf("--project other:\n%s", out)
	}
	out = importInto(t, srv, "--since", "2030-01-01", projects)
	if !strings.Contains(out, "imported 0 sessions") {
		t.Errorf("--since 2030:\n%s", out)
	}
}

// TestImportPrivatePrompt: a prompt that is private as a whole is handled
// as the hooks handle it: no prompt text, and the tool calls of its turn
// dropped.
func TestImportPrivatePrompt(t *testing.T) {
	t.Parallel()
	const public, private = "write notes please <private>my password is hunter2</private>", "<private>write notes please, my password is hunter2</private>"
	projects := oldTranscript(t, func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(public), []byte(private)) })

	live := testutil.NewServer(t)
	for _, raw := range testutil.FixtureEvents(t) {
		var head struct {
			Event string `json:"hook_event_name"`
		}
		json.Unmarshal(raw, &head)
		live.Hook(t, head.Event, bytes.ReplaceAll(raw, []byte(public), []byte(private)))
	}
	want := sessionDigest(t, live, fixtureSession)

	imported := testutil.NewServer(t)
	importInto(t, imported, projects)
	got := sessionDigest(t, imported, fixtureSession)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("import differs from live capture:\nimport:\n  %s\nlive:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if c := counts(t, imported); c != [3]int64{1, 0, 0} {
		t.Errorf("stored %v, want the session only", c)
	}
}

// TestImportOneAtATime: while another import runs (the viewer's, or
// another `mneme import`), a second one says so and stores nothing.
func TestImportOneAtATime(t *testing.T) {
	t.Parallel()
	projects := oldTranscript(t)
	srv := testutil.NewServer(t)
	unlock, err := transcript.Lock(srv.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var out, errb bytes.Buffer
	code := run([]string{"import", "--data-dir", srv.DataDir, projects}, nil, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "an import is already running") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	if c := counts(t, srv); c != [3]int64{} {
		t.Errorf("stored %v", c)
	}
}
