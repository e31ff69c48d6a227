//go:build unix

package soak

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// observationRow is what the hostile-input test reads back.
type observationRow struct {
	title, input, output string
	n                    int
}

func readObservation(t *testing.T, db *sql.DB, toolUseID string) observationRow {
	t.Helper()
	var r observationRow
	db.QueryRow(`SELECT COUNT(*) FROM observations WHERE tool_use_id = ?`, toolUseID).Scan(&r.n)
	db.QueryRow(`SELECT title, input, output FROM observations WHERE tool_use_id = ?`, toolUseID).Scan(&r.title, &r.input, &r.output)
	return r
}

func nested(depth int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", depth) + `"deep"` + strings.Repeat("]", depth))
}

// TestHostileInput sends oversized and pathological events through the
// built `mneme hook` and straight to the ingest route: a 50 MB tool
// response, 100,000 lines of output, deeply nested JSON, invalid UTF-8,
// 10,000 <private> tags and NUL bytes. Each is either stored once, bounded
// (at most the output cap, valid UTF-8, no NUL, no private content), or
// refused with a clear 4xx and nothing stored; memory and time stay bounded.
func TestHostileInput(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	p := startWorker(t, dir)
	rssBefore, _ := RSSKiB(p.PID())
	c := p.NewClient(60 * time.Second)

	big := strings.Repeat("0123456789abcdef ", 50<<20/17) // ~50 MB
	lines := buildLines(100000)                           // 100k lines
	privateTags := strings.Repeat("visible <private>HIDDEN-TAG-CONTENT</private> ", 10000)
	type tc struct {
		name       string
		id         string
		response   any
		viaHook    bool
		wantStored bool
		wantStatus int // for direct posts
	}
	cases := []tc{
		{"50 MB tool response via mneme hook", "toolu_h_big_hook", map[string]any{"stdout": big}, true, true, 0},
		{"50 MB tool response direct", "toolu_h_big_direct", map[string]any{"stdout": big}, false, false, 413},
		{"100k-line output via mneme hook", "toolu_h_lines_hook", map[string]any{"stdout": lines}, true, true, 0},
		{"100k-line output direct", "toolu_h_lines_direct", map[string]any{"stdout": lines}, false, true, 200},
		{"nested JSON depth 5,000 via mneme hook", "toolu_h_nest5k", nested(5000), true, true, 0},
		{"nested JSON depth 100,000 via mneme hook", "toolu_h_nest100k", nested(100000), true, false, 0},
		{"nested JSON depth 100,000 direct", "toolu_h_nest100k_direct", nested(100000), false, false, 400},
		{"10,000 <private> tags via mneme hook", "toolu_h_private_hook", map[string]any{"stdout": privateTags}, true, true, 0},
		{"10,000 <private> tags direct", "toolu_h_private_direct", map[string]any{"stdout": privateTags}, false, true, 200},
		// The opening tag falls in the middle that Window omits; the
		// tail that Window keeps is private content.
		{"<private> opened in the omitted middle, direct", "toolu_h_longprivate", map[string]any{"stdout": "start " + strings.Repeat("filler ", 50000) + "<private>" + strings.Repeat("HIDDEN-TAG-CONTENT ", 50000) + "</private> end"}, false, true, 200},
		{"NUL bytes direct", "toolu_h_nul", map[string]any{"stdout": "a\x00b\x00c", "stderr": strings.Repeat("\x00", 1000)}, false, true, 200},
	}
	rows := [][]string{}
	for _, k := range cases {
		// Built by hand: json.Marshal refuses the deepest nesting itself.
		resp, ok := k.response.(json.RawMessage)
		if !ok {
			resp, _ = json.Marshal(k.response)
		}
		body := []byte(`{"session_id":"hostile","cwd":"/home/dev/projects/hostile","hook_event_name":"PostToolUse",` +
			`"tool_name":"Bash","tool_use_id":"` + k.id + `","tool_input":{"command":"cat big.log"},"tool_response":` + string(resp) + `}`)
		var elapsed time.Duration
		var rss int64
		var outcome string
		if k.viaHook {
			r := HookMaxRSS(t.Context(), bin, p.Port, dir, "post-tool-use", body, "MNEME_NO_AUTOSTART=1", "MNEME_DEBUG=1")
			if r.Err != nil {
				t.Fatalf("%s: mneme hook: %v %s", k.name, r.Err, r.Stderr)
			}
			elapsed, rss = r.Elapsed, r.MaxRSSKB
			outcome = strings.TrimSpace(string(r.Stdout))
			if outcome != continueJSON {
				t.Errorf("%s: hook printed %s", k.name, outcome)
			}
			if msg := strings.TrimSpace(string(r.Stderr)); msg != "" {
				outcome = msg
			}
		} else {
			st, resp, err := tryPost(p, "post-tool-use", body)
			outcome = fmt.Sprintf("%d %s", st, resp)
			if err != nil && k.wantStatus == 413 && (strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe")) {
				// fasthttp answers 413 and closes as soon as the body
				// passes the cap; the client may see the reset first.
				outcome = "refused mid-upload (connection reset after the 2 MiB cap)"
			} else if err != nil {
				t.Fatalf("%s: %v", k.name, err)
			} else if st != k.wantStatus {
				t.Errorf("%s: status %d (%s), want %d", k.name, st, resp, k.wantStatus)
			}
		}
		rows = append(rows, []string{k.name, fmt.Sprintf("%.1f MB", float64(len(body))/1e6), elapsed.Round(time.Millisecond).String(), fmt.Sprintf("%d MiB", rss/1024), truncate(outcome, 90)})
	}
	// Hostile prompts: 10,000 tags, NUL bytes, invalid UTF-8.
	prompts := map[string]string{
		"sp-tags": strings.Repeat("<private>HIDDEN-TAG-CONTENT</private> ok ", 10000),
		"sp-nul":  "fix\x00 the\x00 bug",
	}
	for pid, text := range prompts {
		body, _ := json.Marshal(map[string]any{"session_id": "hostile", "cwd": "/home/dev/projects/hostile", "prompt_id": pid, "prompt": text})
		hook(t, p.Port, dir, "user-prompt-submit", body, "MNEME_NO_AUTOSTART=1")
	}
	invalid := []byte(`{"session_id":"hostile","prompt_id":"sp-utf8","prompt":"bad ` + "\xff\xfe\xc3" + ` bytes","cwd":"/home/dev/projects/hostile"}`)
	st, resp := postRaw(t, p, "user-prompt-submit", invalid)
	rows = append(rows, []string{"invalid UTF-8 prompt direct", "0.0 MB", "", "", truncate(fmt.Sprintf("%d %s", st, resp), 90)})
	_ = c

	// Whatever missed the hooks' 400 ms budget is in the spool; the
	// worker's health watcher replays it within seconds.
	waitSpoolEmpty(t, dir, 30*time.Second)
	rssAfter, _ := RSSKiB(p.PID())
	t.Logf("hostile input (worker RSS %d → %d MiB):\n%s", rssBefore/1024, rssAfter/1024,
		Table([]string{"input", "size", "hook time", "hook max RSS", "outcome"}, rows))
	if rssAfter-rssBefore > 200<<10 {
		t.Errorf("worker RSS grew by %d MiB", (rssAfter-rssBefore)>>10)
	}
	p.Stop()

	db := openDB(t, dir)
	integrity(t, db)
	for _, k := range cases {
		r := readObservation(t, db, k.id)
		switch {
		case !k.wantStored && r.n != 0:
			t.Errorf("%s: stored %d rows, want none", k.name, r.n)
		case k.wantStored && r.n != 1:
			t.Errorf("%s: stored %d rows, want one", k.name, r.n)
		case k.wantStored:
			for field, v := range map[string]string{"title": r.title, "input": r.input, "output": r.output} {
				if !utf8.ValidString(v) || strings.ContainsRune(v, 0) || strings.Contains(v, "HIDDEN-TAG-CONTENT") || len(v) > 12<<10 {
					t.Errorf("%s: stored %s is not bounded and clean (%d bytes, valid UTF-8 %v, NUL %v): %.200q",
						k.name, field, len(v), utf8.ValidString(v), strings.ContainsRune(v, 0), v)
				}
			}
		}
	}
	prow, err := db.Query(`SELECT prompt_id, text FROM prompts WHERE prompt_id LIKE 'sp-%'`)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for prow.Next() {
		var pid, text string
		prow.Scan(&pid, &text)
		seen[pid] = true
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) || strings.Contains(text, "HIDDEN-TAG-CONTENT") {
			t.Errorf("prompt %s stored as %.200q", pid, text)
		}
	}
	prow.Close()
	for _, pid := range []string{"sp-tags", "sp-nul", "sp-utf8"} {
		if !seen[pid] {
			t.Errorf("prompt %s not stored", pid)
		}
	}
}

func buildLines(n int) string {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func tryPost(p *Proc, slug string, body []byte) (int, string, error) {
	req, err := http.NewRequest(http.MethodPost, p.URL+"/api/hooks/"+slug, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	p.Authorize(req)
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}
