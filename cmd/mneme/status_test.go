package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// spoolWith fills dir's spool as the hook does: one event the worker
// refused for good (set aside), then waiting events, in the spool and
// in the fallback spool.
func spoolWith(t *testing.T, dir string, waiting, fallback int) {
	t.Helper()
	sp := hookwire.Spool{Dir: filepath.Join(dir, "spool")}
	if err := sp.Append("user-prompt-submit", []byte(`{"session_id":"refused","prompt":"POISON"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Replay(func(string, []byte) error { return hookwire.Permanent(errors.New("worker answered 500")) }); err != nil {
		t.Fatal(err)
	}
	for i := range waiting {
		if err := sp.Append("post-tool-use", fmt.Appendf(nil, `{"session_id":"s","tool_use_id":"t%d"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	fb := hookwire.Spool{Dir: hookwire.FallbackSpoolDir(dir)}
	for i := range fallback {
		if err := fb.Append("stop", fmt.Appendf(nil, `{"session_id":"f%d"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
}

func statusRun(t *testing.T, args ...string) (int, string, statusReport) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, nil, &out, &errb)
	var rep statusReport
	if strings.Contains(strings.Join(args, " "), "--json") {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("status --json: %v\n%s%s", err, out.String(), errb.String())
		}
	}
	return code, out.String(), rep
}

// TestStatusCountsTheSpool: `mneme status` counts the events waiting in
// a real spool (the data directory's and the fallback's) and those set
// aside, with the worker down (exit 3) and up (exit 0), and --json says
// the same numbers with the worker's state.
func TestStatusCountsTheSpool(t *testing.T) {
	t.Setenv("MNEME_NO_AUTOSTART", "1")
	t.Setenv(EnvURL, "")
	t.Setenv("MNEME_TOKEN", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the fallback spool's place

	t.Run("worker down", func(t *testing.T) {
		dir := t.TempDir()
		spoolWith(t, dir, 3, 2)
		args := []string{"--data-dir", dir, "--port", strconv.Itoa(freePort(t)), "status"}
		code, out, _ := statusRun(t, args...)
		if code != exitWorker || !strings.Contains(out, "spool:          5 events waiting to be replayed\n") ||
			!strings.Contains(out, "set aside:      1 spooled event refused") || !strings.Contains(out, "worker:         not running") {
			t.Errorf("exit %d:\n%s", code, out)
		}
		code, _, rep := statusRun(t, append(args, "--json")...)
		if code != exitWorker || rep.Spool.Waiting != 5 || rep.Spool.SetAside != 1 || len(rep.Spool.SetAsideIn) != 1 || rep.Worker.State != "down" || rep.Worker.Health != nil {
			t.Errorf("--json: exit %d, %+v", code, rep)
		}
	})
	t.Run("worker up", func(t *testing.T) {
		srv := testutil.NewServer(t)
		spoolWith(t, srv.DataDir, 1, 0)
		args := []string{"--data-dir", srv.DataDir, "--port", strconv.Itoa(srv.Port), "status"}
		code, out, _ := statusRun(t, args...)
		if code != 0 || !strings.Contains(out, "spool:          1 event waiting to be replayed\n") || !strings.Contains(out, "worker:         ok") {
			t.Errorf("exit %d:\n%s", code, out)
		}
		code, _, rep := statusRun(t, append(args, "--json")...)
		if code != 0 || rep.Spool.Waiting != 1 || rep.Spool.SetAside != 1 || rep.Worker.State != "running" || rep.Worker.Health == nil || rep.Worker.Health.Service != "mneme" || rep.Viewer == "" {
			t.Errorf("--json: exit %d, %+v", code, rep)
		}
	})
	t.Run("empty", func(t *testing.T) {
		dir := t.TempDir()
		code, out, rep := statusRun(t, "--data-dir", dir, "--port", strconv.Itoa(freePort(t)), "status", "--json")
		if code != exitWorker || rep.Spool.Waiting != 0 || rep.Spool.SetAside != 0 || !strings.Contains(out, `"waiting": 0`) {
			t.Errorf("exit %d: %s", code, out)
		}
	})
}
