package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestForgetCountsMemories: the confirmation page, the API's answer and
// the notice after the form count the memories that go with a session,
// and forgetting one memory from the Memory page goes back there saying
// so.
func TestForgetCountsMemories(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	sid, ms := memorySeed(t, srv)
	c := srv.LoggedIn(t)
	noRedirect := *c
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	// One memory, from the Memory page's link.
	status, body, tok := memGet(t, c, srv, fmt.Sprintf("/forget/memory/%d", ms[2].ID))
	if status != http.StatusOK || !strings.Contains(body, "1 memory") {
		t.Fatalf("GET /forget/memory: %d, no count of 1 memory:\n%s", status, body)
	}
	resp := memPost(t, &noRedirect, srv, fmt.Sprintf("/forget/memory/%d", ms[2].ID), url.Values{"_csrf": {tok}})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || loc != "/memory?project=memproj&forgotten=0.0.0.0.1" {
		t.Fatalf("POST /forget/memory: %d to %q", resp.StatusCode, loc)
	}
	if _, body, _ := memGet(t, c, srv, loc); !strings.Contains(body, "Forgotten: 1 memory.") {
		t.Errorf("the Memory page after the forget lacks the notice:\n%s", body)
	}

	// The session, with its two memories.
	var preview struct {
		Counts struct {
			Memories int64 `json:"memories"`
		} `json:"counts"`
	}
	srv.GetJSON(t, fmt.Sprintf("/api/forget/session/%d", sid), &preview)
	if preview.Counts.Memories != 2 {
		t.Errorf("the API preview counts %d memories, want 2", preview.Counts.Memories)
	}
	status, body, tok = memGet(t, c, srv, fmt.Sprintf("/forget/session/%d", sid))
	if status != http.StatusOK || !strings.Contains(body, "2 memories") {
		t.Fatalf("GET /forget/session: %d, no count of 2 memories", status)
	}
	resp = memPost(t, &noRedirect, srv, fmt.Sprintf("/forget/session/%d", sid), url.Values{"_csrf": {tok}})
	loc = resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || loc != "/sessions?forgotten=1.1.0.0.2" {
		t.Fatalf("POST /forget/session: %d to %q", resp.StatusCode, loc)
	}
	if _, body, _ := memGet(t, c, srv, loc); !strings.Contains(body, "Forgotten: 1 session, 1 prompt, 2 memories.") {
		t.Errorf("the session list after the forget lacks the notice")
	}
	// A link from before memories (four numbers) still reads; junk does not.
	if _, body, _ := memGet(t, c, srv, "/sessions?forgotten=0.1.2.0"); !strings.Contains(body, "Forgotten: 1 prompt, 2 tool calls.") {
		t.Errorf("the four-number notice is gone")
	}
	if _, body, _ := memGet(t, c, srv, "/sessions?forgotten=0.1.x.0.1"); strings.Contains(body, "Forgotten:") {
		t.Errorf("a malformed count gave a notice")
	}
}
