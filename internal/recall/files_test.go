package recall_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// fileEv is a hook event of a session working in dir.
func fileEv(session, dir, event string, extra map[string]any) map[string]any {
	m := map[string]any{"session_id": session, "cwd": dir, "transcript_path": "", "hook_event_name": event, "project": "app"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// gate posts PreToolUse for tool on path in session and returns the
// additional context answered ("" for none), checking the answer is only
// ever context: no permission decision, no blocking.
func gate(t *testing.T, srv *testutil.Server, session, dir, tool, path string) string {
	t.Helper()
	body := srv.Hook(t, "pre-tool-use", fileEv(session, dir, hookwire.PreToolUse, map[string]any{
		"tool_name": tool, "tool_input": map[string]any{"file_path": path}, "tool_use_id": "pre-" + session}))
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "permissionDecision") || raw["decision"] != nil || raw["continue"] == false {
		t.Fatalf("the gate must never decide for the tool: %s", body)
	}
	ctx := additional(t, body)
	if ctx != "" {
		var out hookOut
		json.Unmarshal(body, &out)
		if out.HookSpecificOutput.HookEventName != hookwire.PreToolUse {
			t.Errorf("hookEventName %q", out.HookSpecificOutput.HookEventName)
		}
	}
	return ctx
}

// sessionOne writes path (Write, recorded after the file is on disk),
// then fails an Edit of it, in session s1 of dir; it returns the ids.
func sessionOne(t *testing.T, srv *testutil.Server, dir, path string) (write, failed int64) {
	t.Helper()
	if err := os.WriteFile(path, []byte("status: draft\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Hook(t, "session-start", fileEv("s1", dir, "SessionStart", map[string]any{"source": "startup"}))
	srv.Hook(t, "user-prompt-submit", fileEv("s1", dir, "UserPromptSubmit", map[string]any{"prompt": "draft the release notes", "prompt_id": "p1"}))
	srv.Hook(t, "post-tool-use", fileEv("s1", dir, "PostToolUse", map[string]any{
		"tool_name": "Write", "tool_input": map[string]any{"file_path": path, "content": "status: draft\n"},
		"tool_response": map[string]any{"type": "create"}, "tool_use_id": "w1", "prompt_id": "p1"}))
	srv.Hook(t, "post-tool-use-failure", fileEv("s1", dir, "PostToolUseFailure", map[string]any{
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": path, "old_string": "status: final", "new_string": "status: done"},
		"tool_use_id": "e1", "prompt_id": "p1", "error": "String to replace not found in file."}))
	srv.Hook(t, "session-end", fileEv("s1", dir, "SessionEnd", map[string]any{"reason": "exit"}))
	obs, err := srv.Store.RecallObservations(t.Context(), models.RecallFilter{Project: "app", Limit: 10})
	if err != nil || len(obs) != 2 {
		t.Fatalf("session 1 stored %d observations: %v", len(obs), err)
	}
	return obs[1].ID, obs[0].ID
}

// TestFileGate: the Read gate answers with the failure (not fixed) and the
// file's last change, each with its #id, once per file per session; a
// changed file marks them "changed since", a removed one "file gone
// since", in the gate, at SessionStart and in the read API.
func TestFileGate(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.md")
	write, failed := sessionOne(t, srv, dir, path)

	// The state was recorded: the file's hash as the worker read it.
	states, err := srv.Store.FileStatesOf(t.Context(), []int64{write, failed})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("status: draft\n"))
	if st := states[write]; len(st) != 1 || st[0].Path != path || st[0].Kind != "sha256" || st[0].SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("recorded state of the Write: %+v", st)
	}

	got := gate(t, srv, "s2", dir, "Read", path)
	t.Logf("gate:\n%s", got)
	for _, want := range []string{recall.OpenTag, "memory of file notes.md", fmt.Sprintf("#%d Edit notes.md failed: String to replace not found", failed),
		"FAILED, not fixed", fmt.Sprintf("#%d Created notes.md", write), "(just now)"} {
		if !strings.Contains(got, want) {
			t.Errorf("gate lacks %q", want)
		}
	}
	if strings.Contains(got, "changed since") {
		t.Errorf("nothing changed yet: %s", got)
	}
	// Once per file per session: the same file again, by another tool, is
	// answered with nothing.
	if again := gate(t, srv, "s2", dir, "Edit", path); again != "" {
		t.Errorf("the same file twice in one session: %q", again)
	}
	// A file mneme knows nothing of: nothing.
	if other := gate(t, srv, "s2", dir, "Read", filepath.Join(dir, "other.md")); other != "" {
		t.Errorf("an unknown file: %q", other)
	}
	// The session that made the memories gets nothing of its own.
	if own := gate(t, srv, "s1", dir, "Read", path); own != "" {
		t.Errorf("session 1 got its own work back: %q", own)
	}

	// Edited outside Claude Code: the memories are stale.
	if err := os.WriteFile(path, []byte("status: edited by hand\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stale := gate(t, srv, "s3", dir, "Read", path)
	t.Logf("gate after the outside edit:\n%s", stale)
	if strings.Count(stale, "changed since") != 2 || !strings.Contains(stale, "not fixed") {
		t.Errorf("both memories must be marked changed since: %s", stale)
	}
	start := additional(t, srv.Hook(t, "session-start", fileEv("s4", dir, "SessionStart", map[string]any{"source": "startup"})))
	t.Logf("SessionStart after the outside edit:\n%s", start)
	if !strings.Contains(start, fmt.Sprintf("#%d Edit notes.md failed", failed)) || !strings.Contains(start, "(changed since)") ||
		!strings.Contains(start, "changed `notes.md` (1×, latest #"+fmt.Sprint(write)) || !strings.Contains(start, ", changed since)") {
		t.Errorf("SessionStart does not mark the stale memories:\n%s", start)
	}
	var batch struct{ Items []models.Observation }
	status, body := srv.Post(t, "/api/observations/batch", map[string]any{"ids": []int64{write, failed}})
	if status != 200 || json.Unmarshal(body, &batch) != nil || len(batch.Items) != 2 {
		t.Fatalf("batch: %d %s", status, body)
	}
	for _, o := range batch.Items {
		if o.Stale == nil || !*o.Stale || o.FileStatus[path] != "changed" {
			t.Errorf("batch item %d: stale %v status %v", o.ID, o.Stale, o.FileStatus)
		}
	}
	var detail struct{ Observations []models.Observation }
	srv.GetJSON(t, "/api/sessions/1", &detail)
	for _, o := range detail.Observations {
		if o.Stale == nil || !*o.Stale {
			t.Errorf("session API observation %d: stale %v", o.ID, o.Stale)
		}
	}
	var tl models.Timeline
	srv.GetJSON(t, fmt.Sprintf("/api/timeline?anchor=%d", write), &tl)
	for _, it := range tl.Items {
		if it.Observation != nil && (it.Observation.Stale == nil || !*it.Observation.Stale) {
			t.Errorf("timeline observation %d not stale: %+v", it.Observation.ID, it.Observation.FileStatus)
		}
	}
	var res struct {
		Items []models.SearchHit `json:"items"`
	}
	srv.GetJSON(t, "/api/search?q=notes", &res)
	n := 0
	for _, h := range res.Items {
		if h.Type == models.SearchObservation {
			n++
			if h.Stale == nil || !*h.Stale {
				t.Errorf("search hit %d not stale", h.ID)
			}
		}
	}
	if n == 0 {
		t.Errorf("search found no observation: %+v", res.Items)
	}

	// Removed: the gate says so; SessionStart leaves the file out of the
	// files changed and still marks the failure.
	os.Remove(path)
	gone := gate(t, srv, "s5", dir, "Read", path)
	if strings.Count(gone, "file gone since") != 2 {
		t.Errorf("gone file: %s", gone)
	}
	start = additional(t, srv.Hook(t, "session-start", fileEv("s6", dir, "SessionStart", map[string]any{"source": "startup"})))
	if strings.Contains(start, "changed `notes.md`") || !strings.Contains(start, "failed: String to replace not found in file. [FAILED] (") {
		t.Errorf("SessionStart with the file gone:\n%s", start)
	}
}

// TestFileGateFixedAndBudget: a failure followed by a successful change
// is "fixed by #id"; fileRecallCount caps the lines, fileRecallTokens the
// bytes (whole lines only), and the gate can be switched off.
func TestFileGateFixedAndBudget(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "main.go")
	os.WriteFile(path, []byte("package main\n"), 0o600)
	srv.Hook(t, "post-tool-use-failure", fileEv("a", dir, "PostToolUseFailure", map[string]any{
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": path, "old_string": "x", "new_string": "y"},
		"tool_use_id": "f1", "error": "String to replace not found in file."}))
	for i := 0; i < 8; i++ {
		srv.Hook(t, "post-tool-use", fileEv("a", dir, "PostToolUse", map[string]any{
			"tool_name": "Edit", "tool_input": map[string]any{"file_path": path, "old_string": "a", "new_string": strings.Repeat("b", i)},
			"tool_use_id": fmt.Sprintf("ok%d", i)}))
	}
	obs, _ := srv.Store.RecallObservations(t.Context(), models.RecallFilter{Project: "app", Limit: 20})
	firstFix := obs[len(obs)-2].ID

	got := gate(t, srv, "b", dir, "Read", path)
	t.Logf("default settings:\n%s", got)
	if !strings.Contains(got, fmt.Sprintf("FAILED, fixed by #%d", firstFix)) {
		t.Errorf("the failure is fixed by the next change #%d: %s", firstFix, got)
	}
	if n := strings.Count(got, "\n- "); n != 3 {
		t.Errorf("default fileRecallCount 3, got %d lines", n)
	}
	if len(got) > models.DefaultSettings().Injection.FileRecallTokens*recall.BytesPerToken {
		t.Errorf("over budget: %d bytes", len(got))
	}

	st := srv.Capture.Policy().Settings
	st.Injection.FileRecallCount = 10
	st.Injection.FileRecallTokens = 70
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
	srv.UseSettings(t, st)
	small := gate(t, srv, "c", dir, "Read", path)
	t.Logf("70 tokens:\n%s", small)
	if small == "" || len(small) > 280 || !strings.HasSuffix(small, recall.CloseTag) || strings.Count(small, "\n- ") >= 3 {
		t.Errorf("70 tokens gave %d bytes: %q", len(small), small)
	}
	st.Injection.FileRecallTokens = 10 // not even the header fits: nothing
	srv.UseSettings(t, st)
	if tiny := gate(t, srv, "d", dir, "Read", path); tiny != "" {
		t.Errorf("10 tokens: %q", tiny)
	}
	st.Injection.FileRecallTokens = 200
	st.Injection.FileRecallEnabled = false
	srv.UseSettings(t, st)
	if off := gate(t, srv, "e", dir, "Read", path); off != "" {
		t.Errorf("switched off: %q", off)
	}
	// Nothing was given to d and e: switched on again, they get it.
	st.Injection.FileRecallEnabled = true
	srv.UseSettings(t, st)
	if on := gate(t, srv, "e", dir, "Read", path); on == "" {
		t.Errorf("a session given nothing before gets the file later")
	}

	for _, bad := range []struct {
		field string
		set   func(*models.Settings)
	}{
		{"injection.fileRecallCount", func(s *models.Settings) { s.Injection.FileRecallCount = 11 }},
		{"injection.fileRecallCount", func(s *models.Settings) { s.Injection.FileRecallCount = -1 }},
		{"injection.fileRecallTokens", func(s *models.Settings) { s.Injection.FileRecallTokens = 1001 }},
	} {
		s := models.DefaultSettings()
		bad.set(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), bad.field) {
			t.Errorf("%s: %v", bad.field, err)
		}
	}
}

// TestFileStatesRecorded: what ingest records for each kind of file, and
// what it never reads.
func TestFileStatesRecorded(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.log")
	os.WriteFile(big, make([]byte, 2<<20), 0o600)
	secret := filepath.Join(dir, ".env")
	os.WriteFile(secret, []byte("TOKEN=x\n"), 0o600)
	for i, p := range []string{big, filepath.Join(dir, "missing.go"), secret, "rel.go", "/dev/zero"} {
		srv.Hook(t, "post-tool-use", fileEv("s", dir, "PostToolUse", map[string]any{
			"tool_name": "Read", "tool_input": map[string]any{"file_path": p}, "tool_use_id": fmt.Sprintf("r%d", i)}))
	}
	srv.Hook(t, "post-tool-use", fileEv("s", dir, "PostToolUse", map[string]any{
		"tool_name": "Grep", "tool_input": map[string]any{"pattern": "x", "path": dir}, "tool_use_id": "g"}))
	sess, err := srv.Store.SessionByClaudeID(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	obs, _ := srv.Store.ObservationsOfSession(t.Context(), sess.ID)
	ids := make([]int64, len(obs))
	for i, o := range obs {
		ids[i] = o.ID
	}
	states, _ := srv.Store.FileStatesOf(t.Context(), ids)
	want := []string{"stat", "missing", "", "sha256?", "missing", ""} // by observation
	for i, o := range obs {
		st := states[o.ID]
		switch want[i] {
		case "":
			if len(st) != 0 {
				t.Errorf("%s: recorded %+v (excluded files and searches are not read)", o.Title, st)
			}
		case "sha256?": // rel.go, joined with cwd: missing there
			if len(st) != 1 || st[0].Path != filepath.Join(dir, "rel.go") || st[0].Kind != "missing" {
				t.Errorf("%s: %+v", o.Title, st)
			}
		default:
			if len(st) != 1 || st[0].Kind != want[i] || st[0].SHA256 != "" {
				t.Errorf("%s: %+v, want kind %s", o.Title, st, want[i])
			}
		}
	}
	// A replayed event keeps the first state.
	os.WriteFile(filepath.Join(dir, "missing.go"), []byte("now here"), 0o600)
	srv.Hook(t, "post-tool-use", fileEv("s", dir, "PostToolUse", map[string]any{
		"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(dir, "missing.go")}, "tool_use_id": "r1"}))
	again, _ := srv.Store.FileStatesOf(t.Context(), []int64{obs[1].ID})
	if st := again[obs[1].ID]; len(st) != 1 || st[0].Kind != "missing" {
		t.Errorf("a replay changed the recorded state: %+v", st)
	}
}
