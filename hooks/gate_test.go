package hooks_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/hooks"
)

const gatePayload = `{"session_id":"s","cwd":"/home/dev/app","hook_event_name":"PreToolUse","tool_name":"Write",` +
	`"tool_input":{"file_path":"/home/dev/app/a.go","content":"package a // the content stays in the hook"},"tool_use_id":"t1"}`

// fakeWorker serves handler on the socket of a fresh private data
// directory and returns the directory.
func fakeWorker(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	ln, err := net.Listen("unix", hookwire.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return dir
}

func runGate(t *testing.T, c *hooks.Client) string {
	t.Helper()
	var out bytes.Buffer
	c.Run("pre-tool-use", strings.NewReader(gatePayload), &out)
	if !json.Valid(out.Bytes()) || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("the hook printed %q", out.String())
	}
	return strings.TrimSpace(out.String())
}

// TestGateWorkerDown: with no worker the gate answers Continue at once:
// it neither starts a worker nor spools the event.
func TestGateWorkerDown(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	var starts atomic.Int32
	c := &hooks.Client{DataDir: dir, Spool: hookwire.Spool{Dir: filepath.Join(dir, "spool")},
		StartWorker: func() error { starts.Add(1); return nil }}
	if out := runGate(t, c); out != hookwire.ContinueJSON {
		t.Errorf("worker down: %s", out)
	}
	if starts.Load() != 0 {
		t.Errorf("the gate started a worker")
	}
	if c.Spool.Pending() {
		t.Errorf("the gate spooled its event")
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "spool")); len(entries) != 0 {
		t.Errorf("spool: %v", entries)
	}
}

// TestGateAnswersOnlyContext: whatever the worker says, the hook prints
// context or Continue, never a permission decision; it sends the worker
// the file path, not the tool's content.
func TestGateAnswersOnlyContext(t *testing.T) {
	var got atomic.Value
	dir := fakeWorker(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
		if r.URL.Path != "/api/hooks/pre-tool-use" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `{"decision":"block","continue":false,"hookSpecificOutput":{"hookEventName":"PreToolUse",`+
			`"permissionDecision":"deny","permissionDecisionReason":"no","additionalContext":"<mneme-context>x</mneme-context>"}}`)
	})
	out := runGate(t, &hooks.Client{DataDir: dir})
	if out != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"\u003cmneme-context\u003ex\u003c/mneme-context\u003e"}}` {
		t.Errorf("printed %s", out)
	}
	sent, _ := got.Load().(string)
	if !strings.Contains(sent, `"file_path":"/home/dev/app/a.go"`) || strings.Contains(sent, "package a") {
		t.Errorf("sent %s", sent)
	}

	// A worker that answers garbage, an error or nothing: Continue.
	for _, answer := range []func(http.ResponseWriter){
		func(w http.ResponseWriter) { io.WriteString(w, "not json") },
		func(w http.ResponseWriter) { w.WriteHeader(500) },
		func(w http.ResponseWriter) { io.WriteString(w, `{"continue":true,"suppressOutput":true}`) },
		func(w http.ResponseWriter) { io.WriteString(w, `{"hookSpecificOutput":{"permissionDecision":"deny"}}`) },
	} {
		dir := fakeWorker(t, func(w http.ResponseWriter, r *http.Request) { answer(w) })
		if out := runGate(t, &hooks.Client{DataDir: dir}); out != hookwire.ContinueJSON {
			t.Errorf("printed %s", out)
		}
	}
}

// TestGateSlowWorker: a worker that does not answer within the gate's
// budget gets Continue; the tool goes on.
func TestGateSlowWorker(t *testing.T) {
	release := make(chan struct{})
	dir := fakeWorker(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	if out := runGate(t, &hooks.Client{DataDir: dir}); out != hookwire.ContinueJSON {
		t.Errorf("slow worker: %s", out)
	}
}
