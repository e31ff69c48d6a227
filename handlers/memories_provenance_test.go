package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// rememberAs is POST /api/memories with header's credentials (nil: the
// owner's secret); it fails the test unless the answer is 200.
func rememberAs(t *testing.T, srv *testutil.Server, header http.Header, body map[string]any) models.Memory {
	t.Helper()
	status, out := srv.Do(t, http.MethodPost, "/api/memories", body, header)
	var m models.Memory
	if status != http.StatusOK || json.Unmarshal(out, &m) != nil || m.ID == 0 {
		t.Fatalf("POST /api/memories %v: %d %s", body, status, out)
	}
	return m
}

// listMemories is GET /api/memories?query as the owner: the ids, or the
// status and body of an error.
func listMemories(t *testing.T, srv *testutil.Server, query string) ([]int64, int, string) {
	t.Helper()
	status, body := srv.Do(t, http.MethodGet, "/api/memories?"+query, nil, nil)
	if status != http.StatusOK {
		return nil, status, string(body)
	}
	var page api.Page[models.Memory]
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, m := range page.Items {
		ids = append(ids, m.ID)
	}
	return ids, status, string(body)
}

func sameIDs(got []int64, want ...int64) bool {
	if len(got) != len(want) {
		return false
	}
	seen := map[int64]bool{}
	for _, id := range got {
		seen[id] = true
	}
	for _, id := range want {
		if !seen[id] {
			return false
		}
	}
	return true
}

// TestRememberSpeakers: POST /api/memories records who said it: the
// owner's source user is the user, source claude is Claude; a person's
// token makes it that teammate's, proposed unless the settings trust
// them, and the owner's accept and reject settle it. A person's token
// may not accept, reject or change any memory.
func TestRememberSpeakers(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	bob, carol := createToken(t, srv, "bob"), createToken(t, srv, "carol")
	if status, body := srv.Do(t, http.MethodPut, "/api/settings", map[string]any{"memory": map[string]any{"trust": []string{"carol"}}}, nil); status != http.StatusOK {
		t.Fatalf("trust carol: %d %s", status, body)
	}
	mem := func(header http.Header, source, text string) models.Memory {
		t.Helper()
		return rememberAs(t, srv, header, map[string]any{"project": "team", "kind": "decision", "text": text, "source": source})
	}
	user := mem(nil, "user", "Use pnpm, not npm")
	claude := mem(nil, "claude", "Went with River for the job queue")
	bobs := mem(as(bob.Token), "claude", "Switch the cache to Redis")
	carols := mem(as(carol.Token), "user", "Keep retries at three")
	for _, c := range []struct {
		m                   models.Memory
		speaker, ref, state string
		voice               string
		inForce             bool
	}{
		{user, models.SpeakerUser, "", models.MemoryCurrent, "you", true},
		{claude, models.SpeakerClaude, "", models.MemoryCurrent, "Claude", true},
		{bobs, models.SpeakerTeammate, "bob", models.MemoryProposed, "bob", false},
		{carols, models.SpeakerTeammate, "carol", models.MemoryCurrent, "carol", true},
	} {
		if c.m.Speaker != c.speaker || c.m.SpeakerRef != c.ref || c.m.State != c.state || c.m.Voice() != c.voice || (c.m.InForceAt != nil) != c.inForce {
			t.Errorf("%q: speaker %q ref %q state %q voice %q in force at %v; want %s %q %s %s", c.m.Text, c.m.Speaker, c.m.SpeakerRef,
				c.m.State, c.m.Voice(), c.m.InForceAt, c.speaker, c.ref, c.state, c.voice)
		}
	}

	// A person's token is refused every change, accept and reject first.
	for _, action := range []string{"accept", "reject", "retire", "pin"} {
		status, body := srv.Do(t, http.MethodPost, fmt.Sprintf("/api/memories/%d", bobs.ID), map[string]any{"action": action}, as(bob.Token))
		if status != http.StatusForbidden {
			t.Errorf("%s with bob's own token: %d %s, want 403", action, status, body)
		}
	}
	if m, err := srv.Store.MemoryByID(t.Context(), bobs.ID); err != nil || m.State != models.MemoryProposed {
		t.Fatalf("after the refused changes bob's memory is %s", m.State)
	}
	change := func(id int64, action string) (int, models.Memory, string) {
		t.Helper()
		status, body := srv.Do(t, http.MethodPost, fmt.Sprintf("/api/memories/%d", id), map[string]any{"action": action}, nil)
		var m models.Memory
		json.Unmarshal(body, &m)
		return status, m, string(body)
	}
	if status, m, body := change(bobs.ID, "accept"); status != http.StatusOK || m.State != models.MemoryCurrent || m.InForceAt == nil || m.Voice() != "bob" {
		t.Errorf("the owner's accept: %d %s", status, body)
	}
	if status, _, body := change(bobs.ID, "accept"); status != http.StatusBadRequest || !strings.Contains(body, "not proposed") {
		t.Errorf("accepting a memory in force: %d %s, want 400 saying it is not proposed", status, body)
	}
	second := mem(as(bob.Token), "claude", "Drop the legacy importer")
	if status, m, body := change(second.ID, "reject"); status != http.StatusOK || m.State != models.MemoryRetired || m.InForceAt != nil {
		t.Errorf("the owner's reject: %d %s", status, body)
	}
	if status, _, body := change(user.ID, "reject"); status != http.StatusBadRequest {
		t.Errorf("rejecting the user's memory: %d %s, want 400", status, body)
	}
	if status, _, body := change(user.ID, "frobnicate"); status != http.StatusBadRequest || !strings.Contains(body, "accept or reject") {
		t.Errorf("an unknown action: %d %s", status, body)
	}
}

// TestListMemoriesAsOfAndSpeaker: GET /api/memories?as_of= lists what was
// in force then (a date as that day ended, or an RFC 3339 time), with q
// too; state=all lists every state, quotes included; speaker= keeps one
// voice; what cannot be read is a 400 saying why.
func TestListMemoriesAsOfAndSpeaker(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 10, 0, 0, 0, time.UTC) }
	var old, newer, rule, quote, proposed models.Memory
	err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		old = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Use SQLite for the cache", CreatedAt: day(10)}
		newer = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Switched the cache to bbolt", CreatedAt: day(25)}
		rule = models.Memory{Project: "app", Source: models.SourcePrompt, Kind: models.MemoryConstraint, Text: "Never touch the cache by hand", CreatedAt: day(1)}
		quote = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Decision: the cache is Redis",
			Speaker: models.SpeakerQuoted, SpeakerRef: "README.md", CreatedAt: day(12)}
		proposed = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Make the cache shared",
			Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed, CreatedAt: day(13)}
		for _, m := range []*models.Memory{&old, &newer, &rule, &quote, &proposed} {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		_, err := tx.SupersedeMemory(old.ID, newer.ID) // ended now, after the 25th
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Add(time.Second).Format(time.RFC3339)
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"project=app", []int64{old.ID, newer.ID, rule.ID, quote.ID, proposed.ID}},
		{"project=app&state=all", []int64{old.ID, newer.ID, rule.ID, quote.ID, proposed.ID}},
		{"project=app&state=current", []int64{newer.ID, rule.ID}},
		{"project=app&as_of=2026-11-20", []int64{old.ID, rule.ID}},
		{"project=app&as_of=2026-11-10", []int64{old.ID, rule.ID}}, // in force from 10:00 that day
		{"project=app&as_of=2026-11-10T09:00:00Z", []int64{rule.ID}},
		{"project=app&as_of=2026-10-01", nil},
		{"project=app&as_of=" + url.QueryEscape(now), []int64{newer.ID, rule.ID}},
		{"project=app&as_of=2026-11-20&state=all", []int64{old.ID, rule.ID}},
		{"project=app&as_of=2026-11-20&q=cache", []int64{old.ID, rule.ID}},
		{"project=app&as_of=2026-11-20&speaker=user", []int64{rule.ID}},
		{"project=app&speaker=quoted", []int64{quote.ID}},
		{"project=app&speaker=teammate,user", []int64{proposed.ID, rule.ID}},
		{"project=app&q=cache&speaker=claude", []int64{old.ID, newer.ID}},
		{"project=app&state=noted,proposed", []int64{quote.ID, proposed.ID}},
	} {
		got, status, body := listMemories(t, srv, c.query)
		if status != http.StatusOK || !sameIDs(got, c.want...) {
			t.Errorf("%s: %d %v, want %v (%s)", c.query, status, got, c.want, body)
		}
	}
	for _, c := range []struct{ query, says string }{
		{"as_of=yesterday", "as_of must be a date (YYYY-MM-DD) or an RFC 3339 time"},
		{"as_of=2026-13-01", "as_of must be a date"},
		{"as_of=2026-11-20&state=current", "leave state out"},
		{"speaker=you", `speaker: unknown value`},
		{"state=forgotten", `state: unknown value`},
	} {
		if _, status, body := listMemories(t, srv, c.query); status != http.StatusBadRequest || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want 400 saying %q", c.query, status, body, c.says)
		}
	}
}

// TestPersonSessionHoldsOwnProposals: a teammate's session starts with
// the memories in force and that teammate's own proposed ones (marked
// proposed, the teammate as "user", the owner as "owner"), never another
// teammate's; the owner's sessions hold neither proposal.
func TestPersonSessionHoldsOwnProposals(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	bob, alice := createToken(t, srv, "bob"), createToken(t, srv, "alice")
	rule := rememberAs(t, srv, nil, map[string]any{"project": "team", "kind": "constraint", "text": "Never push to main directly", "source": "user"})
	bobs := rememberAs(t, srv, as(bob.Token), map[string]any{"project": "team", "kind": "decision", "text": "Switch the cache to Redis"})
	alices := rememberAs(t, srv, as(alice.Token), map[string]any{"project": "team", "kind": "decision", "text": "Drop the legacy importer"})
	start := func(header http.Header, sid string) string {
		t.Helper()
		status, body := sendAs(t, srv, header, "session-start", map[string]any{"session_id": sid, "cwd": "/src/team", "hook_event_name": "SessionStart", "source": "startup"})
		if status != http.StatusOK {
			t.Fatalf("session-start %s: %d %s", sid, status, body)
		}
		var out struct {
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatalf("session-start %s: %s (%v)", sid, body, err)
		}
		return out.HookSpecificOutput.AdditionalContext
	}
	ref := func(id int64) string { return fmt.Sprintf("m%d ", id) }

	ctx := start(as(bob.Token), "bob-1")
	t.Logf("bob's context:\n%s", ctx)
	for _, want := range []string{ref(rule.ID) + "constraint, owner, ", ref(bobs.ID) + "decision, user, ", ", proposed: Switch the cache to Redis"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("bob's context lacks %q", want)
		}
	}
	if strings.Contains(ctx, ref(alices.ID)) {
		t.Error("bob's context holds alice's proposal")
	}
	ctx = start(nil, "owner-1")
	t.Logf("the owner's context:\n%s", ctx)
	if !strings.Contains(ctx, ref(rule.ID)+"constraint, user, ") || strings.Contains(ctx, ref(bobs.ID)) || strings.Contains(ctx, ref(alices.ID)) {
		t.Error("the owner's context is not the memories in force alone")
	}

	// A teammate's constraint reaches the others only once the owner
	// accepts it.
	alicesRule := rememberAs(t, srv, as(alice.Token), map[string]any{"project": "team", "kind": "constraint", "text": "Never log request bodies"})
	if ctx := start(as(bob.Token), "bob-2"); strings.Contains(ctx, ref(alicesRule.ID)) {
		t.Fatalf("bob's context holds alice's constraint before the owner accepted it:\n%s", ctx)
	}
	if status, body := srv.Post(t, fmt.Sprintf("/api/memories/%d", alicesRule.ID), map[string]any{"action": "accept"}); status != http.StatusOK {
		t.Fatalf("accept: %d %s", status, body)
	}
	for _, c := range []struct {
		who    http.Header
		sid    string
		prefix string
	}{{as(bob.Token), "bob-3", "constraint, alice, "}, {nil, "owner-2", "constraint, alice, "}, {as(alice.Token), "alice-1", "constraint, user, "}} {
		if ctx := start(c.who, c.sid); !strings.Contains(ctx, ref(alicesRule.ID)+c.prefix) {
			t.Errorf("%s's context lacks the accepted constraint as %q:\n%s", c.sid, c.prefix, ctx)
		}
	}
}

// Accepting a teammate's proposal is the owner's act: it replaces the
// memories on its subject that the owner's word would, the owner's
// constraint included, and each records the teammate as who ended it.
// While it waits, it replaces nothing.
func TestAcceptReplaces(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	bob := createToken(t, srv, "bob")
	old := rememberAs(t, srv, nil, map[string]any{"project": "team", "kind": "decision", "text": "The cache lives in Memcached for now"})
	prop := rememberAs(t, srv, as(bob.Token), map[string]any{"project": "team", "kind": "decision", "text": "Switched the cache from Memcached to Redis instead"})
	get := func(id int64) models.Memory {
		t.Helper()
		m, err := srv.Store.MemoryByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return *m
	}
	if m := get(old.ID); m.State != models.MemoryCurrent {
		t.Fatalf("a proposal replaced %+v while it waits", m)
	}
	if status, body := srv.Post(t, fmt.Sprintf("/api/memories/%d", prop.ID), map[string]any{"action": "accept"}); status != http.StatusOK {
		t.Fatalf("accept: %d %s", status, body)
	}
	if m := get(old.ID); m.State != models.MemorySuperseded || m.SupersededBy != prop.ID || m.EndedBy != "teammate:bob" || m.EndedAt == nil {
		t.Errorf("after the accept the old decision is %s by #%d, ended by %q at %v", m.State, m.SupersededBy, m.EndedBy, m.EndedAt)
	}
}
