//go:build unix

package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// forgetEvents is a session of project through the hook: a prompt and
// two tool calls holding mark (when not empty), then the turn's end.
func forgetEvents(session, project, mark string) [][2]string {
	base := func(event string, extra string) string {
		return fmt.Sprintf(`{"session_id":%q,"transcript_path":"","cwd":%q,"hook_event_name":%q,"permission_mode":"default"%s}`,
			session, "/tmp/soak-forget/"+project, event, extra)
	}
	return [][2]string{
		{"session-start", base("SessionStart", `,"source":"startup"`)},
		{"user-prompt-submit", base("UserPromptSubmit", fmt.Sprintf(`,"prompt_id":"p1","prompt":"remember %s please"`, mark))},
		{"post-tool-use", base("PostToolUse", fmt.Sprintf(`,"prompt_id":"p1","tool_name":"Bash","tool_use_id":"t1-%s","tool_input":{"command":"cat notes-%s.txt"},"tool_response":{"stdout":"%s line","stderr":"","interrupted":false}`, session, mark, mark))},
		{"post-tool-use-failure", base("PostToolUseFailure", fmt.Sprintf(`,"prompt_id":"p1","tool_name":"Bash","tool_use_id":"t2-%s","tool_input":{"command":"grep %s"},"error":"exit 1 %s","is_interrupt":false`, session, mark, mark))},
		{"stop", base("Stop", fmt.Sprintf(`,"prompt_id":"p1","stop_hook_active":false,"last_assistant_message":"noted %s\n\nKey decisions:\n- Went with the %s store over the flat files, since it keeps history."`, mark, mark))},
	}
}

// TestForgetLeavesNoTrace: a session and a project recorded through the
// hook, part of them spooled while the worker was down and replayed, are
// forgotten with `mneme forget`; afterwards no byte of the data directory
// (database, -wal, -shm, spool, logs), nothing the worker printed after,
// search, the full export and the stream's replay hold their text, and
// the session that was kept is intact.
func TestForgetLeavesNoTrace(t *testing.T) {
	parallel(t)
	const mark, mark2 = "Wombat5521PrivateNote", "Platypus0917OtherNote"
	dir := t.TempDir()
	p := startWorker(t, dir)
	fake := semanticOn(t, p) // forget must take the vectors too
	p.Stop()
	for _, ev := range forgetEvents("soak-forget-1", "soakforget", mark) {
		hook(t, p.Port, dir, ev[0], []byte(ev[1]), "MNEME_NO_AUTOSTART=1")
	}
	if spool, _ := filepath.Glob(filepath.Join(dir, "spool", "*.jsonl")); len(spool) == 0 {
		t.Fatal("the hook spooled nothing with the worker down")
	}
	p = restart(t, p)
	waitFor(t, 60*time.Second, "the spool to be replayed", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "spool", "pending*.jsonl"))
		return len(m) == 0
	})
	for _, evs := range [][][2]string{
		forgetEvents("soak-forget-2", "soakforget", mark),
		forgetEvents("soak-other-1", "soakother", mark2),
		forgetEvents("soak-keep-1", "soakkeep", "kept"),
	} {
		for _, ev := range evs {
			hook(t, p.Port, dir, ev[0], []byte(ev[1]))
		}
	}
	waitFor(t, 60*time.Second, "the turn summaries", func() bool {
		resp, err := p.Get("/api/summaries?limit=500")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var page struct{ Items []json.RawMessage }
		json.NewDecoder(resp.Body).Decode(&page)
		return len(page.Items) >= 4
	})
	// The decision in each Stop became a memory that quotes the mark: the
	// forget must take those too.
	waitFor(t, 60*time.Second, "the decisions as memories", func() bool {
		resp, err := p.Get("/api/memories?limit=500")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(b), mark) && strings.Contains(string(b), mark2) && strings.Contains(string(b), "kept store")
	})
	// A memory keeps the span it was read from and what it is about: the
	// forget must take those columns too, so they must hold the mark now.
	var mems struct {
		Items []struct{ Evidence, Subject string }
	}
	getJSON(t, p, "/api/memories?limit=500", &mems)
	var evidence, subject bool
	for _, m := range mems.Items {
		evidence = evidence || strings.Contains(m.Evidence, mark)
		subject = subject || strings.Contains(strings.ToLower(m.Subject), strings.ToLower(mark))
	}
	if !evidence || !subject {
		t.Fatalf("no memory's evidence (%v) or subject (%v) holds %s before the forget: %+v", evidence, subject, mark, mems.Items)
	}
	for _, m := range []string{mark, mark2} {
		if len(testutil.FilesHolding(t, dir, m)) == 0 {
			t.Fatalf("%s is not on disk before the forget: the test proves nothing", m)
		}
	}
	// Every row is embedded, the forgotten ones included.
	waitEmbedded(t, p)
	gone := rowsOf(t, p, "soak-forget-1", "soak-forget-2", "soak-other-1")
	if len(gone[models.SearchMemory]) == 0 || len(gone[models.SearchObservation]) == 0 || len(gone[models.SearchPrompt]) == 0 || len(gone[models.SearchSummary]) == 0 {
		t.Fatalf("rows to forget: %v; want some of each type", gone)
	}
	// A semantic search finds them now (what is checked after the forget
	// is not vacuous).
	var found struct{ Items []json.RawMessage }
	getJSON(t, p, "/api/search?mode=semantic&q="+mark, &found)
	if len(found.Items) == 0 {
		t.Fatal("a semantic search finds nothing before the forget")
	}
	logBefore := len(p.Log())

	mneme := func(args ...string) string {
		cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(p.Port), "--data-dir", dir}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mneme %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	start := time.Now()
	out := mneme("forget", "--session", "soak-forget-1", "--yes")
	out += mneme("forget", "--session", "soak-forget-2", "--yes")
	out += mneme("forget", "--project", "soakother", "--yes")
	t.Logf("three forgets in %s:\n%s", time.Since(start).Round(time.Millisecond), out)

	for _, m := range []string{mark, mark2, strings.ToLower(mark)} {
		if files := testutil.FilesHolding(t, dir, m); len(files) > 0 {
			t.Errorf("after forgetting, %v hold %s", files, m)
		}
		if strings.Contains(p.Log()[logBefore:], m) {
			t.Errorf("the worker printed %s after the forget", m)
		}
		// Words alone find nothing (embeddings being on, the default
		// search is hybrid: checked below, by the rows it names).
		textSearch := "/api/search?mode=text&q=" + m
		for _, path := range []string{textSearch, "/api/search?q=" + m, "/api/export/all", "/api/memories?limit=500", "/memory",
			"/api/search?mode=semantic&q=" + m, "/api/search?mode=hybrid&q=remember+" + m + "+please", "/api/memories?mode=semantic&q=" + m} {
			resp, err := p.Get(path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			semantic := strings.HasPrefix(path, "/api/search") && path != textSearch || strings.Contains(path, "mode=")
			if !semantic && path != textSearch && strings.Contains(string(b), m) || path == textSearch && strings.Contains(string(b), `"items":[{`) {
				t.Errorf("GET %s still finds %s: %.300s", path, m, b)
			}
			if resp.StatusCode != 200 {
				t.Errorf("GET %s: %d %.300s", path, resp.StatusCode, b)
			}
			if semantic {
				// The answer names the query; its hits must be none of
				// the forgotten rows, nor hold their text.
				hitsNone(t, path, b, gone, m)
			}
		}
	}
	if fake.Texts.Load() == 0 {
		t.Error("the fake embeddings endpoint embedded nothing: the semantic checks prove nothing")
	}
	// The replay of the whole event log, read to the log's last event (it
	// was read for 3 s: a slow machine cut it short).
	var last int64
	if err := openDB(t, dir).QueryRow(`SELECT COALESCE(MAX(id), 0) FROM events`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := httpRequest(ctx, p.URL+"/stream")
	req.Header.Set("Last-Event-ID", "1")
	p.Authorize(req)
	resp, err := defaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	atLast := false
	for sc.Scan() {
		line := sc.Text()
		b.WriteString(line + "\n")
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			n, _ := strconv.ParseInt(id, 10, 64)
			atLast = n >= last
		}
		if line == "" && atLast {
			break
		}
	}
	resp.Body.Close()
	if !atLast {
		t.Fatalf("the stream's replay ended before the log's last event, %d (%v): %.500s", last, ctx.Err(), b.String())
	}
	if strings.Contains(b.String(), mark) || strings.Contains(b.String(), mark2) {
		t.Errorf("the stream's replay still sends the forgotten text")
	}
	if !strings.Contains(b.String(), "event: forgotten") || !strings.Contains(b.String(), "soakkeep") {
		t.Errorf("the replay lacks the forgotten events or the kept session: %.500s", b.String())
	}
	resp, err = p.Get("/api/sessions/soak-keep-1")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the kept session: %v %v", resp, err)
	}
	resp.Body.Close()
	if _, err := os.Stat(filepath.Join(dir, "logs")); err != nil {
		t.Errorf("no logs directory to search: %v", err)
	}
	// No vector is left of a forgotten row (the worker stopped; the store
	// read as it is on disk).
	p.Stop()
	st, err := models.OpenReadOnly(filepath.Join(dir, "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for typ, ids := range gone {
		var n int64
		for chunk := range slices.Chunk(ids, 500) {
			n += modelstest.Int(t, st, "SELECT count(*) FROM embeddings WHERE item_type = ? AND item_id IN ?", typ, chunk)
		}
		if n != 0 {
			t.Errorf("%d vectors of the %d forgotten %s rows are left", n, len(ids), typ)
		}
	}
	if n := modelstest.Int(t, st, "SELECT count(*) FROM embeddings WHERE item_type = ?", models.SearchObservation); n == 0 {
		t.Errorf("no observation vector at all is left: the kept session's should be")
	}
}

// rowsOf lists the ids of the rows of the sessions (Claude's ids), by
// search type, memories included.
func rowsOf(t *testing.T, p *Proc, sessions ...string) map[string][]int64 {
	t.Helper()
	out := map[string][]int64{}
	for _, sid := range sessions {
		var d api.SessionDetail
		getJSON(t, p, "/api/sessions/"+sid, &d)
		for _, x := range d.Prompts {
			out[models.SearchPrompt] = append(out[models.SearchPrompt], x.ID)
		}
		for _, x := range d.Observations {
			out[models.SearchObservation] = append(out[models.SearchObservation], x.ID)
		}
		for _, x := range d.Summaries {
			out[models.SearchSummary] = append(out[models.SearchSummary], x.ID)
		}
		var mems api.Page[models.Memory]
		getJSON(t, p, fmt.Sprintf("/api/memories?limit=500&session=%d", d.Session.ID), &mems)
		for _, x := range mems.Items {
			out[models.SearchMemory] = append(out[models.SearchMemory], x.ID)
		}
	}
	return out
}

// getJSON decodes the worker's answer to GET path into v.
func getJSON(t *testing.T, p *Proc, path string, v any) {
	t.Helper()
	resp, err := p.Get(path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %.300s", path, resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// hitsNone fails when a search's answer (hits, or memories) names one of
// the gone rows or holds mark.
func hitsNone(t *testing.T, path string, b []byte, gone map[string][]int64, mark string) {
	t.Helper()
	var res struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Errorf("GET %s: %v", path, err)
		return
	}
	for _, raw := range res.Items {
		var h struct {
			Type string `json:"type"`
			ID   int64  `json:"id"`
		}
		json.Unmarshal(raw, &h)
		if h.Type == "" { // a memory listing
			h.Type = models.SearchMemory
		}
		for _, id := range gone[h.Type] {
			if id == h.ID {
				t.Errorf("GET %s finds the forgotten %s %d", path, h.Type, id)
			}
		}
		if strings.Contains(string(raw), mark) {
			t.Errorf("GET %s: a hit holds %s: %.300s", path, mark, raw)
		}
	}
}

var defaultClient = &http.Client{}

func httpRequest(ctx context.Context, url string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
}
