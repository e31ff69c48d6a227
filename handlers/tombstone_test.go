package handlers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// Issue 36: after the owner forgets a person's live session, someone
// else's event with its Claude Code session id must not take it: only its
// captor records it again. The forget keeps who captured it and a hash
// of the id, nothing of what the session held.
func TestForgottenSessionIDStaysItsCaptors(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	alice, bob := createToken(t, srv, "alice"), createToken(t, srv, "bob")
	const sid = "tomb-live-7f3c2a9e"
	send := func(header http.Header, slug, prompt string) int {
		t.Helper()
		payload := map[string]any{"session_id": sid, "cwd": "/src/tomb"}
		switch slug {
		case "session-start":
			payload["source"] = "startup"
		case "user-prompt-submit":
			payload["prompt"], payload["prompt_id"] = prompt, sid+"-"+prompt
		}
		status, _ := sendAs(t, srv, header, slug, payload)
		return status
	}
	forget := func() {
		t.Helper()
		s := sessionRow(t, srv, sid)
		if status, body := srv.Do(t, http.MethodDelete, fmt.Sprintf("/api/sessions/%d", s.ID), nil, nil); status != http.StatusOK {
			t.Fatalf("forget: %d %s", status, body)
		}
	}
	if send(as(alice.Token), "session-start", "") != 200 || send(as(alice.Token), "user-prompt-submit", "TombPromptSecret01") != 200 {
		t.Fatal("alice's session was not recorded")
	}
	forget()
	if raw := dbBytes(t, srv); bytes.Contains(raw, []byte(sid)) || bytes.Contains(raw, []byte("TombPromptSecret01")) {
		t.Error("the forget left the session's id or content in the database files")
	}

	// Bob sends the next event first: refused, nothing stored.
	if status := send(as(bob.Token), "user-prompt-submit", "bobs-claim"); status != http.StatusForbidden {
		t.Errorf("bob's event for alice's forgotten session: %d, want 403", status)
	}
	if _, err := srv.Store.SessionByClaudeID(t.Context(), sid); err != models.ErrNotFound {
		t.Errorf("bob's event recorded the session: %v", err)
	}
	// The owner cannot take it either.
	if status := send(nil, "user-prompt-submit", "owners-claim"); status != http.StatusForbidden {
		t.Errorf("the owner's event for alice's forgotten session: %d, want 403", status)
	}
	// Alice's next event records it again, as hers.
	if status := send(as(alice.Token), "user-prompt-submit", "alice-again"); status != http.StatusOK {
		t.Fatalf("alice's next event: %d", status)
	}
	if s := sessionRow(t, srv, sid); s.CapturedBy != "alice" {
		t.Errorf("recorded again for %q", s.CapturedBy)
	}
	if status := send(as(bob.Token), "user-prompt-submit", "bobs-second-claim"); status != http.StatusForbidden {
		t.Errorf("bob's event for alice's session: %d, want 403", status)
	}

	// The owner's own forgotten session stays the owner's.
	const own = "tomb-own-1b2c"
	sendAs(t, srv, nil, "session-start", map[string]any{"session_id": own, "cwd": "/src/tomb", "source": "startup"})
	s := sessionRow(t, srv, own)
	srv.Do(t, http.MethodDelete, fmt.Sprintf("/api/sessions/%d", s.ID), nil, nil)
	if status, _ := sendAs(t, srv, as(alice.Token), "session-start", map[string]any{"session_id": own, "cwd": "/src/tomb", "source": "startup"}); status != http.StatusForbidden {
		t.Errorf("alice's event for the owner's forgotten session: %d, want 403", status)
	}
	if status, _ := sendAs(t, srv, nil, "session-start", map[string]any{"session_id": own, "cwd": "/src/tomb", "source": "startup"}); status != http.StatusOK {
		t.Errorf("the owner's next event: %d", status)
	}
}
