package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// A poison event in the middle of a 1,000-event spool: a prompt the
// database refuses (its number is taken: a session whose prompt counter
// was left behind its prompts, as a crafted import could leave it), which
// the worker answers 500 marked permanent. Through `mneme hook` the 999
// other events are stored, the poison is quarantined in spool/rejected/,
// the spool ends empty, and `mneme status` and /api/health say what was
// set aside and where (issue 21: the replay stopped at the first failure,
// and every later event of every session waited behind it).
func TestHookQuarantinesPoisonEvent(t *testing.T) {
	t.Setenv("MNEME_NO_AUTOSTART", "1")
	t.Setenv(EnvURL, "")
	srv := testutil.NewServer(t)
	dir := srv.DataDir

	// The poison's session: its counter is behind the prompt it holds.
	runHook(t, srv.Port, dir, "user-prompt-submit", []byte(`{"session_id":"poisoned","cwd":"/tmp/q","hook_event_name":"UserPromptSubmit","prompt":"one","prompt_id":"q1"}`))
	modelstest.Exec(t, srv.Store, `UPDATE sessions SET prompt_counter = 0 WHERE claude_session_id = 'poisoned'`)

	const total, poisonAt = 1000, 500
	var spool bytes.Buffer
	at := time.Now().UTC().Add(-time.Minute)
	for i := range total {
		slug, body := "post-tool-use", fmt.Sprintf(`{"session_id":"sp-%d","cwd":"/tmp/q","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"sp-t%04d","tool_input":{"command":"echo %d"},"tool_response":{"stdout":"%d"}}`, i%4, i, i, i)
		if i == poisonAt {
			slug, body = "user-prompt-submit", `{"session_id":"poisoned","cwd":"/tmp/q","hook_event_name":"UserPromptSubmit","prompt":"POISON prompt","prompt_id":"q2"}`
		}
		line, err := json.Marshal(hookwire.SpoolLine{V: hookwire.SpoolVersion, Event: slug, SpooledAt: at, Body: json.RawMessage(body)})
		if err != nil {
			t.Fatal(err)
		}
		spool.Write(append(line, '\n'))
	}
	sp := hookwire.Spool{Dir: filepath.Join(dir, "spool")}
	os.MkdirAll(sp.Dir, 0o700)
	if err := os.WriteFile(filepath.Join(sp.Dir, "pending.jsonl"), spool.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	// Each hook call replays what it can within its budget, then sends its
	// own event (a SessionStart: the longest budget).
	for n := 0; sp.Pending(); n++ {
		if n == 200 {
			t.Fatalf("the spool is not empty after %d hook calls", n)
		}
		runHook(t, srv.Port, dir, "session-start", fmt.Appendf(nil, `{"session_id":"driver","cwd":"/tmp/q","hook_event_name":"SessionStart","source":"startup","n":%d}`, n))
	}

	var stored int64
	modelstest.Row(t, srv.Store, []any{&stored}, `SELECT COUNT(DISTINCT tool_use_id) FROM observations WHERE tool_use_id LIKE 'sp-t%'`)
	if stored != total-1 {
		t.Errorf("%d spooled tool calls stored, want %d", stored, total-1)
	}
	var poisonStored int64
	modelstest.Row(t, srv.Store, []any{&poisonStored}, `SELECT COUNT(*) FROM prompts WHERE text LIKE '%POISON%'`)
	if poisonStored != 0 {
		t.Errorf("the poison was stored")
	}
	n, rejectedDir := sp.Rejected()
	if n != 1 {
		t.Fatalf("%d events quarantined, want 1", n)
	}
	files, _ := filepath.Glob(filepath.Join(rejectedDir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("rejected/ holds %v", files)
	}
	kept, _ := os.ReadFile(files[0])
	if !bytes.Contains(kept, []byte("POISON prompt")) || !bytes.Contains(kept, []byte("worker answered 500")) {
		t.Errorf("the quarantined file must hold the event and why: %s", kept)
	}

	var h api.Health
	srv.GetJSON(t, "/api/health", &h)
	if h.Quarantined.Events != 1 || len(h.Quarantined.Dirs) != 1 || h.Quarantined.Dirs[0] != rejectedDir || !strings.Contains(h.Quarantined.Message, rejectedDir) {
		t.Errorf("/api/health quarantined = %+v, want 1 event in %s", h.Quarantined, rejectedDir)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--data-dir", dir, "--port", strconv.Itoa(srv.Port), "status"}, nil, &out, &errb); code != 0 {
		t.Fatalf("status exited %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "set aside:      1 spooled event") || !strings.Contains(out.String(), rejectedDir) || !strings.Contains(out.String(), "spool:          empty") {
		t.Errorf("mneme status:\n%s", out.String())
	}
}
