package handlers_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// TestReapplyRedactionCoversDerivedColumns: a rule added after a turn was
// captured, then re-applied, leaves none of what it matches anywhere in
// the database (every byte of the SQLite files, every row of every table
// on PostgreSQL), in no letter case: not in the texts, nor in what was
// derived from them (a memory's key words, identifiers, files and file
// states, the session's title, the file states' paths, the stream's
// events), and the API does not answer it. One rule is plain (the key
// words hold its match in lower case), one redacts a value by what
// precedes it (which an identifier taken out of its sentence no longer
// has), one spans lines (which a title cut from them no longer does).
func TestReapplyRedactionCoversDerivedColumns(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const plain, labelled, block = "AcmeInternal-7731", "Qx7Rk2Lm9Zt", "Zq81xLv0Wm"
	dir := t.TempDir()
	file := dir + "/deploy/" + plain + ".yaml"
	prompt := "BEGIN KEY " + block + " MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nEND KEY\nDeploy the staging stack with `" + plain + "` and the vault pass " + labelled
	answer := "Decision: we deploy the staging stack with `" + plain + "` from deploy/" + plain + ".yaml instead of the vault pass `" + labelled + "`, because the old key expired."
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "d", "cwd": dir, "hook_event_name": "UserPromptSubmit", "prompt": prompt, "prompt_id": "d1"})
	srv.Hook(t, "post-tool-use", map[string]any{"session_id": "d", "cwd": dir, "hook_event_name": "PostToolUse", "prompt_id": "d1",
		"tool_name": "Write", "tool_input": map[string]any{"file_path": file, "content": "key: " + plain}, "tool_response": map[string]any{"filePath": file}, "tool_use_id": "w1"})
	srv.Hook(t, "stop", map[string]any{"session_id": "d", "cwd": dir, "hook_event_name": "Stop", "last_assistant_message": answer})
	testutil.WaitJobs(t, srv.Store, time.Minute)

	mems, err := srv.Store.Memories(context.Background(), models.MemoryFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	seeded := false
	for _, m := range mems {
		t.Logf("memory %d: %q files %q idents %q terms %q subject %q evidence %q", m.ID, m.Text, m.Files, m.Idents, m.Terms, m.Subject, m.Evidence)
		lower := func(l []string) string { return strings.ToLower(strings.Join(l, "\n")) }
		seeded = seeded || strings.Contains(lower(m.Terms), strings.ToLower(plain)) && strings.Contains(lower(m.Terms), strings.ToLower(labelled)) &&
			strings.Contains(lower(m.Idents), strings.ToLower(labelled)) && strings.Contains(lower(m.Files), strings.ToLower(plain))
	}
	if !seeded {
		t.Fatal("no memory holds the values in its terms, idents and files: the test proves nothing")
	}
	if n := modelstest.Int(t, srv.Store, `SELECT COUNT(*) FROM events WHERE kind = 'memory'`); n == 0 {
		t.Fatal("no memory event: the test proves nothing")
	}
	for _, v := range []string{plain, labelled, block} {
		if !bytes.Contains(bytes.ToLower(testutil.StoredBytes(t, srv.Store)), []byte(strings.ToLower(v))) {
			t.Fatalf("%q is not stored: the test proves nothing", v)
		}
	}

	if status, out := putSettings(t, srv, `{"privacy":{"redactionRules":[`+
		`{"name":"acme","pattern":"AcmeInternal-\\d+","enabled":true},`+
		`{"name":"vault","pattern":"vault pass `+"`"+`?(?P<secret>\\w+)","enabled":true},`+
		`{"name":"block","pattern":"(?s)BEGIN KEY.*?END KEY","enabled":true}]}}`); status != 200 {
		t.Fatalf("PUT: %d %s", status, out)
	}
	if status, out := srv.Post(t, "/api/settings/reapply-redaction", `{"confirm":true}`); status != 200 {
		t.Fatalf("re-apply: %d %s", status, out)
	} else {
		t.Logf("re-apply: %s", out)
	}

	stored := bytes.ToLower(testutil.StoredBytes(t, srv.Store))
	for _, v := range []string{plain, labelled, block} {
		if i := bytes.Index(stored, []byte(strings.ToLower(v))); i >= 0 {
			t.Errorf("after re-applying the rules the database still holds %q: …%q…", v, stored[max(0, i-80):min(len(stored), i+40)])
		}
	}
	for _, path := range []string{"/api/memories", "/api/memories?q=staging", "/api/observations", "/api/prompts", "/api/summaries", "/api/sessions"} {
		status, body := srv.Get(t, path)
		if status != 200 {
			t.Fatalf("GET %s: %d %s", path, status, body)
		}
		for _, v := range []string{plain, labelled, block} {
			if bytes.Contains(bytes.ToLower(body), []byte(strings.ToLower(v))) {
				t.Errorf("GET %s still answers %q: %s", path, v, body)
			}
		}
	}
}
