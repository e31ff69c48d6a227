package summarize_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestParseStrictMemories: the optional MEMORIES list after the five
// fields is read line by line whatever the markup (bullets, bold,
// numbering, lower case, the first statement on the label's line),
// unknown kinds and chatter are skipped, "none" states an empty list, and
// an answer without it has no list (the extractor reads the answer).
func TestParseStrictMemories(t *testing.T) {
	t.Parallel()
	answer := strictAnswer + "\nMEMORIES: DECISION: Use HS256 JWTs over server-side sessions.\n" +
		"- **Constraint:** Never commit JWT_SECRET to the repository.\n" +
		"2. cause — go test failed because JWT_SECRET was unset in CI.\n" +
		"* TODO: Rotate the signing key in internal/auth/jwt.go.\n" +
		"OPINION: the code is nice\n" +
		"some chatter\n" +
		"TODO: x\n"
	got, err := summarize.ParseStrict(answer)
	if err != nil {
		t.Fatal(err)
	}
	if got.NextSteps != "" || got.Completed != "Created internal/auth/jwt.go; tests pass." {
		t.Errorf("the list ran into a field: %+v", got)
	}
	want := []struct{ kind, text string }{
		{"decision", "Use HS256 JWTs over server-side sessions."},
		{"constraint", "Never commit JWT_SECRET to the repository."},
		{"cause", "Go test failed because JWT_SECRET was unset in CI."},
		{"todo", "Rotate the signing key in internal/auth/jwt.go."},
	}
	if len(got.Memories) != len(want) {
		t.Fatalf("memories %+v, want %d", got.Memories, len(want))
	}
	for i, w := range want {
		m := got.Memories[i]
		if string(m.Kind) != w.kind || m.Text != w.text || m.Source != models.SourceSummary {
			t.Errorf("memory %d: %s %q (%s), want %s %q", i, m.Kind, m.Text, m.Source, w.kind, w.text)
		}
	}
	if f := got.Memories[3].Files; len(f) != 1 || f[0] != "internal/auth/jwt.go" {
		t.Errorf("the todo's files: %q", f)
	}

	// The list may come between fields too, and "none" is an empty list.
	mid := "REQUEST: a\nMEMORIES: none\nINVESTIGATED: b\nLEARNED: c\nCOMPLETED: d\nNEXT_STEPS: e"
	if got, err := summarize.ParseStrict(mid); err != nil || got.Memories == nil || len(got.Memories) != 0 || got.Investigated != "b" {
		t.Errorf("MEMORIES: none between fields: %+v %v", got, err)
	}
	if got, _ := summarize.ParseStrict(strictAnswer); got.Memories != nil {
		t.Errorf("no list stated, memories %+v", got.Memories)
	}
	if _, err := summarize.ParseStrict(strictAnswer + "\nMEMORIES: none\nMEMORIES: none"); err == nil {
		t.Error("MEMORIES twice is accepted")
	}
	many := strictAnswer + "\nMEMORIES:\n" + "- DECISION: Use the gRPC client for billing calls\n" +
		strings.Repeat("- TODO: Write one more test for the billing client\n", 20)
	if got, err := summarize.ParseStrict(many); err != nil || len(got.Memories) != 8 {
		t.Errorf("a long list: %d memories (%v), want the first 8", len(got.Memories), err)
	}
}

// TestQueueStoresLLMStatedMemories: the Messages API (an httptest server
// speaking it) answers a turn with a MEMORIES list; the decision and the
// cause it states are stored as memory rows of the turn, with source
// "summary", and the prompt asked for the list.
func TestQueueStoresLLMStatedMemories(t *testing.T) {
	t.Parallel()
	answer := strictAnswer + "\nMEMORIES:\n- DECISION: Use HS256 JWTs signed with JWT_SECRET over cookie sessions.\n- CAUSE: go test failed because JWT_SECRET was unset."
	api := newMessagesAPI(t, reply{200, messageBody(answer)})
	srv := testutil.NewServer(t)
	setSummarizer(t, srv, func(s *models.SummarizerSettings) {
		s.Kind, s.APIKey, s.BaseURL = "anthropic-api", "sk-ant-test-key-000000000000000000", api.URL
	})
	replay(t, srv, jwtSession("api-memories")[:12])
	waitJobs(t, srv.Store, 30*time.Second)
	sid := sessionID(t, srv.Store, "api-memories")
	sums, _ := srv.Store.SummariesOfSession(context.Background(), sid)
	if len(sums) != 1 || sums[0].Generator != "anthropic-api" {
		t.Fatalf("summaries: %+v", sums)
	}
	if api.count() == 0 || !strings.Contains(requestText(api), "MEMORIES:") {
		t.Errorf("the request did not ask for memories")
	}
	ms, err := srv.Store.Memories(context.Background(), models.MemoryFilter{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]models.Memory{}
	for _, m := range ms {
		found[m.Kind] = m
		if m.Source != models.SourcePrompt && m.Source != models.SourceSummary {
			t.Errorf("memory %q from %s: the LLM's list replaces the answer's reading", m.Text, m.Source)
		}
	}
	d, c := found[models.MemoryDecision], found[models.MemoryCause]
	if d.Text != "Use HS256 JWTs signed with JWT_SECRET over cookie sessions." || d.Source != models.SourceSummary ||
		d.PromptNumber != sums[0].PromptNumber || d.State != models.MemoryCurrent {
		t.Errorf("decision: %+v (memories %+v)", d, ms)
	}
	if c.Text != "Go test failed because JWT_SECRET was unset." || c.Source != models.SourceSummary {
		t.Errorf("cause: %+v", c)
	}
}

// requestText is everything the API was sent, as one string.
func requestText(api *messagesAPI) string {
	api.mu.Lock()
	defer api.mu.Unlock()
	var b strings.Builder
	for _, r := range api.requests {
		j, _ := json.Marshal(r)
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(string(j), `\n`, "\n"), `\"`, `"`))
	}
	return b.String()
}
