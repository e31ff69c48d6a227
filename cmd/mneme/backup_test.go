package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/fullexport"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// toolCall is a PostToolUse payload with its own tool_use_id.
func toolCall(session, id string) map[string]any {
	return map[string]any{
		"session_id": session, "transcript_path": "", "cwd": "/tmp/mneme-backup/proj", "hook_event_name": "PostToolUse",
		"permission_mode": "default", "tool_name": "Bash", "tool_use_id": id,
		"tool_input":    map[string]any{"command": "echo " + id},
		"tool_response": map[string]any{"stdout": id, "stderr": "", "interrupted": false},
	}
}

func mnemeIn(t *testing.T, dataDir string, port int, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"--port", fmt.Sprint(port), "--data-dir", dataDir}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// storedToolUseIDs reads the tool_use_ids in the database file at path.
func storedToolUseIDs(t *testing.T, path string) map[string]bool {
	t.Helper()
	s, err := models.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	modelstest.Scan(t, s, &ids, `SELECT tool_use_id FROM observations WHERE tool_use_id IS NOT NULL`)
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// A backup taken while four clients ingest passes its integrity check,
// is mode 0600, and holds every observation acknowledged before it was
// asked for; restoring it into a stopped data directory keeps the old
// database as .bak, refuses while a worker runs, and a worker started on
// it serves what the backup holds.
func TestBackupWhileIngestingAndRestore(t *testing.T) {
	srv := testutil.NewServer(t)
	var (
		mu     sync.Mutex
		acked  []string
		stop   atomic.Bool
		wg     sync.WaitGroup
		failed atomic.Int64
	)
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				id := fmt.Sprintf("bk-%d-%d", c, i)
				b, _ := json.Marshal(toolCall(fmt.Sprintf("backup-s%d", c), id))
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/hooks/post-tool-use", bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+srv.Secret)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	waitAcked := func(n int) {
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			got := len(acked)
			mu.Unlock()
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %d ingests acknowledged", got)
			}
		}
	}
	waitAcked(200)

	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	backup := filepath.Join(t.TempDir(), "snap.db")
	start := time.Now()
	code, out, errOut := mnemeIn(t, srv.DataDir, srv.Port, "backup", backup)
	took := time.Since(start)
	if code != 0 || !strings.Contains(out, "integrity ok") {
		t.Fatalf("backup: exit %d\n%s%s", code, out, errOut)
	}
	waitAcked(len(before) + 50) // ingest went on
	stop.Store(true)
	wg.Wait()
	if failed.Load() > 0 {
		t.Errorf("%d ingests failed during the backup", failed.Load())
	}
	info, err := os.Stat(backup)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v, %v", info, err)
	}
	fc, err := models.CheckFile(backup)
	if err != nil || fc.Integrity != "ok" || fc.SchemaVersion != models.SchemaVersion() {
		t.Fatalf("backup check: %+v, %v", fc, err)
	}
	stored := storedToolUseIDs(t, backup)
	for _, id := range before {
		if !stored[id] {
			t.Fatalf("%s was acknowledged before the backup but is not in it", id)
		}
	}
	t.Logf("backup of %d observations (%d acknowledged before it, %d in all): %d bytes in %s",
		len(stored), len(before), len(acked), fc.Bytes, took.Round(time.Millisecond))
	if code, _, _ := mnemeIn(t, srv.DataDir, srv.Port, "backup", backup); code == 0 {
		t.Error("a backup over an existing file was not refused")
	}

	// Restore: refused while the worker runs.
	code, _, errOut = mnemeIn(t, srv.DataDir, srv.Port, "restore", backup)
	if code == 0 || !strings.Contains(errOut, "worker is running") {
		t.Fatalf("restore with a running worker: exit %d %s", code, errOut)
	}
	// Into a stopped data directory holding another database.
	dir := t.TempDir()
	other, err := models.Open(filepath.Join(dir, "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	code, out, errOut = mnemeIn(t, dir, srv.Port, "restore", backup)
	if code != 0 || !strings.Contains(out, "integrity ok") || !strings.Contains(out, "mneme.db.bak") {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "mneme.db.bak")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, "mneme.db")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("restored database: %v, %v", info, err)
	}
	if ids := storedToolUseIDs(t, filepath.Join(dir, "mneme.db")); len(ids) != len(stored) {
		t.Fatalf("restored %d observations, the backup holds %d", len(ids), len(stored))
	}
	restored := testutil.NewServerIn(t, dir)
	var doc struct {
		Format  string        `json:"format"`
		Version int           `json:"version"`
		Counts  models.Counts `json:"counts"`
	}
	exported := filepath.Join(t.TempDir(), "all.json")
	if code, _, errOut := mnemeIn(t, dir, restored.Port, "export", "--all", "--out", exported); code != 0 {
		t.Fatalf("export --all from the restored worker: exit %d %s", code, errOut)
	}
	b, _ := os.ReadFile(exported)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("export --all is not JSON: %v", err)
	}
	if doc.Format != fullexport.Format || doc.Version != fullexport.Version || doc.Counts != fc.Counts {
		t.Fatalf("export of the restored worker: %s %d %+v; the backup holds %+v", doc.Format, doc.Version, doc.Counts, fc.Counts)
	}
}

// A file that is not a mneme database, or is damaged, is refused and the
// database left as it was.
func TestRestoreRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	s, err := models.Open(filepath.Join(dir, "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	orig, _ := os.ReadFile(filepath.Join(dir, "mneme.db"))
	junk := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(junk, bytes.Repeat([]byte("not a database "), 1000), 0o600)
	torn := filepath.Join(t.TempDir(), "torn.db")
	os.WriteFile(torn, orig[:len(orig)/2], 0o600)
	for _, f := range []string{junk, torn, filepath.Join(dir, "missing.db")} {
		if code, out, errOut := mnemeIn(t, dir, 1, "restore", f); code == 0 {
			t.Errorf("restore %s: exit 0\n%s", f, out)
		} else {
			t.Logf("restore %s: %s", filepath.Base(f), strings.TrimSpace(errOut))
		}
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "mneme.db")); !bytes.Equal(now, orig) {
		t.Fatal("a refused restore changed the database")
	}
	if _, err := os.Stat(filepath.Join(dir, "mneme.db.bak")); err == nil {
		t.Fatal("a refused restore made a .bak")
	}
}
