package handlers_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// createToken makes a person token through the owner's API.
func createToken(t *testing.T, srv *testutil.Server, person string) api.CreatedToken {
	t.Helper()
	status, body := srv.Post(t, "/api/tokens", map[string]string{"person": person})
	var out api.CreatedToken
	if status != http.StatusOK || json.Unmarshal(body, &out) != nil || !models.IsPersonToken(out.Token) {
		t.Fatalf("POST /api/tokens: %d %s", status, body)
	}
	return out
}

// as is the header of a request made with a person's token.
func as(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// A session whose first event came with a person's token records that
// person; the owner's sessions record nobody. The token reads memory too,
// and its use is recorded.
func TestTokenCapturesPerson(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	alice := createToken(t, srv, " alice ")
	if alice.Person != "alice" || !strings.HasPrefix(alice.Token, alice.Prefix) || alice.Prefix == alice.Token {
		t.Fatalf("created %+v", alice)
	}
	for _, ev := range []struct{ slug, body string }{
		{"session-start", `{"session_id":"tok-a","cwd":"/src/team","source":"startup"}`},
		{"user-prompt-submit", `{"session_id":"tok-a","cwd":"/src/team","prompt_id":"p1","prompt":"fix the build"}`},
	} {
		if status, body := srv.Do(t, http.MethodPost, "/api/hooks/"+ev.slug, ev.body, as(alice.Token)); status != http.StatusOK {
			t.Fatalf("%s with alice's token: %d %s", ev.slug, status, body)
		}
	}
	srv.Hook(t, "session-start", map[string]any{"session_id": "tok-owner", "cwd": "/src/team", "source": "startup"})

	for id, want := range map[string]string{"tok-a": "alice", "tok-owner": ""} {
		s, err := srv.Store.SessionByClaudeID(t.Context(), id)
		if err != nil || s.CapturedBy != want {
			t.Errorf("session %s captured by %q (%v), want %q", id, s.CapturedBy, err, want)
		}
	}
	status, body := srv.Do(t, http.MethodGet, "/api/sessions?person=alice", nil, as(alice.Token))
	var page api.Page[models.SessionStats]
	if status != http.StatusOK || json.Unmarshal(body, &page) != nil || len(page.Items) != 1 || page.Items[0].CapturedBy != "alice" {
		t.Errorf("GET /api/sessions?person=alice with alice's token: %d %s", status, body)
	}
	var obs api.Page[models.Observation]
	srv.GetJSON(t, "/api/observations?person=nobody", &obs)
	if len(obs.Items) != 0 {
		t.Errorf("observations of nobody: %+v", obs.Items)
	}
	for who, want := range map[string]int{"alice": 1, "nobody": 0, "": 1} {
		var prompts api.Page[models.Prompt]
		srv.GetJSON(t, "/api/prompts?person="+who, &prompts)
		if len(prompts.Items) != want {
			t.Errorf("prompts of %q: %+v, want %d", who, prompts.Items, want)
		}
	}
	var used *string
	if modelstest.Scan(t, srv.Store, &used, `SELECT CAST(last_used_at AS TEXT) FROM api_tokens WHERE id = ?`, alice.ID); used == nil {
		t.Error("last_used_at is not set after use")
	}
}

// A revoked or unknown token gets 401 with a reason, and nothing it sent
// is stored.
func TestTokenRevokedAndUnknown(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	bob := createToken(t, srv, "bob")
	status, body := srv.Do(t, http.MethodDelete, fmt.Sprintf("/api/tokens/%d", bob.ID), nil, nil)
	if status != http.StatusOK || !strings.Contains(string(body), `"revokedAt"`) {
		t.Fatalf("revoke: %d %s", status, body)
	}
	unknown := models.TokenPrefix + strings.Repeat("ab", 32)
	for name, tc := range map[string]struct{ token, says string }{
		"revoked": {bob.Token, "was revoked"},
		"unknown": {unknown, "unknown API token"},
	} {
		for _, path := range []string{"/api/hooks/session-start", "/api/sessions"} {
			method := http.MethodPost
			if path == "/api/sessions" {
				method = http.MethodGet
			}
			status, body := srv.Do(t, method, path, `{"session_id":"tok-`+name+`","cwd":"/src/x","source":"startup"}`, as(tc.token))
			var e struct{ Error string }
			json.Unmarshal(body, &e)
			if status != http.StatusUnauthorized || !strings.Contains(e.Error, tc.says) {
				t.Errorf("%s token on %s: %d %s", name, path, status, body)
			}
		}
	}
	if c, _ := srv.Store.Counts(t.Context()); c.Sessions != 0 {
		t.Errorf("stored %+v from refused tokens", c)
	}
	// Revoking twice keeps the first time; an unknown id is 404.
	if status, _ := srv.Do(t, http.MethodDelete, fmt.Sprintf("/api/tokens/%d", bob.ID), nil, nil); status != http.StatusOK {
		t.Errorf("revoke again: %d", status)
	}
	if status, _ := srv.Do(t, http.MethodDelete, "/api/tokens/999", nil, nil); status != http.StatusNotFound {
		t.Errorf("revoke an unknown id: %d", status)
	}
}

// A person's token reaches hooks and reads only: the owner's routes
// answer 403 and change nothing.
func TestTokenOwnerRoutesForbidden(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	carol := createToken(t, srv, "carol")
	srv.Hook(t, "session-start", map[string]any{"session_id": "keep", "cwd": "/src/keep", "source": "startup"})
	for _, r := range []struct{ method, path, body string }{
		{http.MethodGet, "/api/tokens", ""},
		{http.MethodPost, "/api/tokens", `{"person":"mallory"}`},
		{http.MethodDelete, fmt.Sprintf("/api/tokens/%d", carol.ID), ""},
		{http.MethodGet, "/api/settings", ""},
		{http.MethodPut, "/api/settings", `{}`},
		{http.MethodPost, "/api/settings/reapply-redaction", ""},
		{http.MethodDelete, "/api/sessions/keep", ""},
		{http.MethodDelete, "/api/projects/keep", ""},
		{http.MethodGet, "/api/backup", ""},
		{http.MethodGet, "/api/export/all", ""},
		{http.MethodPost, "/api/login-links", ""},
		{http.MethodPost, "/api/import/events", ""},
		{http.MethodGet, "/settings", ""},
		{http.MethodGet, "/", ""},
	} {
		var body any
		if r.body != "" {
			body = r.body
		}
		status, out := srv.Do(t, r.method, r.path, body, as(carol.Token))
		if status != http.StatusForbidden {
			t.Errorf("%s %s with a person's token: %d %s", r.method, r.path, status, out)
		}
	}
	if _, err := srv.Store.SessionByClaudeID(t.Context(), "keep"); err != nil {
		t.Errorf("the session is gone: %v", err)
	}
	if toks, _ := srv.Store.APITokens(t.Context()); len(toks) != 1 || toks[0].RevokedAt != nil {
		t.Errorf("tokens after the refused calls: %+v", toks)
	}
}

// The list shows prefixes, never a token; the store keeps only the
// token's SHA-256.
func TestTokenListAndStorage(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	dan := createToken(t, srv, "dan")
	status, body := srv.Get(t, "/api/tokens")
	if status != http.StatusOK || strings.Contains(string(body), dan.Token) || strings.Contains(string(body), dan.Token[len(dan.Prefix):]) ||
		!strings.Contains(string(body), dan.Prefix) || !strings.Contains(string(body), `"person":"dan"`) || strings.Contains(string(body), "Hash") {
		t.Errorf("GET /api/tokens: %d %s", status, body)
	}
	var stored []struct{ TokenHash, Prefix string }
	if modelstest.Scan(t, srv.Store, &stored, `SELECT token_hash, prefix FROM api_tokens`); len(stored) != 1 {
		t.Fatalf("api_tokens: %+v", stored)
	}
	if stored[0].TokenHash == dan.Token || stored[0].TokenHash != sha256Hex(dan.Token) || len(stored[0].TokenHash) != 64 || stored[0].Prefix != dan.Prefix {
		t.Errorf("stored %+v for token %s", stored[0], dan.Token)
	}
	for _, bad := range []string{"", "   ", strings.Repeat("x", 65), "a\nb"} {
		if status, body := srv.Post(t, "/api/tokens", map[string]string{"person": bad}); status != http.StatusBadRequest {
			t.Errorf("person %q: %d %s", bad, status, body)
		}
	}
}

// A token pasted in a prompt is redacted before it is stored.
func TestTokenInPromptRedacted(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	erin := createToken(t, srv, "erin")
	srv.Hook(t, "user-prompt-submit", map[string]any{"session_id": "paste", "cwd": "/src/p", "prompt_id": "p1",
		"prompt": "use MNEME_TOKEN=" + erin.Token + " for the team worker"})
	var text string
	modelstest.Scan(t, srv.Store, &text, `SELECT text FROM prompts`)
	if strings.Contains(text, erin.Token[len(models.TokenPrefix):]) || !strings.Contains(text, "[REDACTED:mneme_token]") {
		t.Errorf("stored prompt %q", text)
	}
}

// The session list shows who captured each session and filters by person
// (?person=, the select lists who captured sessions); a session's page
// says who captured it. Outside team mode there is neither filter nor
// column.
func TestTokenPersonFilterInViewer(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.Hook(t, "session-start", map[string]any{"session_id": "mine", "cwd": "/src/own-proj", "source": "startup"})
	if _, body := srv.Get(t, "/sessions"); strings.Contains(string(body), `name="person"`) || strings.Contains(string(body), "<th>By</th>") {
		t.Errorf("a person filter without persons")
	}
	for _, who := range []string{"alice", "bob <b>"} {
		tok := createToken(t, srv, who)
		body := `{"session_id":"s-` + who + `","cwd":"/src/proj-` + strings.Fields(who)[0] + `","source":"startup"}`
		if status, out := srv.Do(t, http.MethodPost, "/api/hooks/session-start", body, as(tok.Token)); status != http.StatusOK {
			t.Fatalf("hook as %s: %d %s", who, status, out)
		}
	}
	status, page := srv.Get(t, "/sessions?person=alice")
	html := string(page)
	if status != http.StatusOK || !strings.Contains(html, `<span class="project-name">proj-alice</span>`) || strings.Contains(html, `project-name">proj-bob<`) || strings.Contains(html, `project-name">own-proj<`) ||
		!strings.Contains(html, `<option value="alice" selected>alice</option>`) || !strings.Contains(html, `<option value="bob &lt;b&gt;">bob &lt;b&gt;</option>`) ||
		!strings.Contains(html, `<td class="captured-by">alice</td>`) {
		t.Errorf("GET /sessions?person=alice: %d\n%s", status, html)
	}
	_, page = srv.Get(t, "/sessions")
	if html = string(page); !strings.Contains(html, `<td class="captured-by">owner</td>`) || !strings.Contains(html, `<td class="captured-by">bob &lt;b&gt;</td>`) || strings.Contains(html, "<b>") {
		t.Errorf("GET /sessions:\n%s", html)
	}
	s, err := srv.Store.SessionByClaudeID(t.Context(), "s-alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, page = srv.Get(t, fmt.Sprintf("/sessions/%d", s.ID)); !strings.Contains(string(page), "captured by alice") {
		t.Errorf("session page:\n%s", page)
	}
}

// sha256Hex is what the store keeps of a token: its SHA-256, in hex.
func sha256Hex(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
