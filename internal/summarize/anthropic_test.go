package summarize_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/summarize"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

const strictAnswer = "REQUEST: Add JWT auth middleware.\nINVESTIGATED: Why go test failed: JWT_SECRET unset.\nLEARNED: Tests need JWT_SECRET.\nCOMPLETED: Created internal/auth/jwt.go; tests pass.\nNEXT_STEPS: none"

// messagesAPI is an httptest server speaking the Messages API: answers
// holds one status/body per request (the last repeats).
type messagesAPI struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	headers  []http.Header
}

type reply struct {
	status int
	body   string
}

func messageBody(text string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
		"content":     []map[string]any{{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 812, "output_tokens": 64, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	})
	return string(b)
}

func newMessagesAPI(t *testing.T, replies ...reply) *messagesAPI {
	m := &messagesAPI{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		json.Unmarshal(body, &req)
		m.mu.Lock()
		n := len(m.requests)
		m.requests = append(m.requests, req)
		m.headers = append(m.headers, r.Header.Clone())
		m.mu.Unlock()
		if r.URL.Path != "/v1/messages" {
			http.Error(w, "not found", 404)
			return
		}
		rp := replies[min(n, len(replies)-1)]
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("retry-after-ms", "5") // keep the SDK's retries fast
		w.WriteHeader(rp.status)
		io.WriteString(w, rp.body)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *messagesAPI) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

func TestAnthropicAPI(t *testing.T) {
	t.Parallel()
	in := sampleInput(t)
	apiErr := func(typ string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"test"}}`
	}
	tests := []struct {
		name      string
		replies   []reply
		wantErr   string
		permanent bool
		requests  int
	}{
		{"success", []reply{{200, messageBody(strictAnswer)}}, "", false, 1},
		{"429 then success", []reply{{429, apiErr("rate_limit_error")}, {200, messageBody(strictAnswer)}}, "", false, 2},
		{"500 every time", []reply{{500, apiErr("api_error")}}, "the Messages API answered 500", false, 3},
		{"malformed body", []reply{{200, `{"id":"msg_01","type":"message","content":[{"type":"text","text":`}}, "Messages API", false, 1},
		{"not the format", []reply{{200, messageBody("Here is your summary: all good.")}}, "not in the summary format", true, 1},
		{"bad key", []reply{{401, apiErr("authentication_error")}}, "refused the request: 401", true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := newMessagesAPI(t, tc.replies...)
			a := &summarize.AnthropicAPI{APIKey: "sk-ant-test-key-000000000000000000", Model: "claude-haiku-4-5", BaseURL: api.URL}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := a.Summarize(ctx, in)
			if got := api.count(); got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if errors.Is(err, hookwire.ErrPermanent) != tc.permanent {
					t.Errorf("permanent = %v", !tc.permanent)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Completed != "Created internal/auth/jwt.go; tests pass." || res.NextSteps != "" || res.Generator != "anthropic-api" {
				t.Errorf("result = %+v", res)
			}
			if res.InputTokens != 812 || res.OutputTokens != 64 || res.Model != "claude-haiku-4-5-20251001" {
				t.Errorf("usage = %d/%d %s", res.InputTokens, res.OutputTokens, res.Model)
			}
			if want := (812*1.0 + 64*5.0) / 1e6; res.CostUSD != want {
				t.Errorf("cost = %v, want %v", res.CostUSD, want)
			}
			api.mu.Lock()
			req, hdr := api.requests[0], api.headers[0]
			api.mu.Unlock()
			if hdr.Get("X-Api-Key") != "sk-ant-test-key-000000000000000000" || req["model"] != "claude-haiku-4-5" {
				t.Errorf("request key/model: %q %v", hdr.Get("X-Api-Key"), req["model"])
			}
			b, _ := json.Marshal(req)
			if !strings.Contains(string(b), "missing env var JWT_SECRET") || !strings.Contains(string(b), "NEXT_STEPS") {
				t.Errorf("request lacks the record: %s", b)
			}
		})
	}
}

// TestQueueAPIRetriesThenFallsBack: a Messages API that keeps failing is
// retried by the queue with backoff, then the heuristic summary is stored
// with a note saying why.
func TestQueueAPIRetriesThenFallsBack(t *testing.T) {
	t.Parallel()
	api := newMessagesAPI(t, reply{500, `{"type":"error","error":{"type":"api_error","message":"boom"}}`})
	srv := testutil.NewServer(t)
	srv.Summaries.SetRetry(50*time.Millisecond, 3)
	setSummarizer(t, srv, func(s *models.SummarizerSettings) {
		s.Kind, s.APIKey, s.BaseURL = "anthropic-api", "sk-ant-test-key-000000000000000000", api.URL
	})
	replay(t, srv, jwtSession("api-fallback")[:12])
	waitJobs(t, srv.Store, 30*time.Second)
	id := sessionID(t, srv.Store, "api-fallback")
	sums, _ := srv.Store.SummariesOfSession(context.Background(), id)
	if len(sums) != 1 {
		jobs, _ := srv.Store.JobsOfSession(context.Background(), id)
		t.Fatalf("%d summaries; jobs %+v", len(sums), jobs)
	}
	if sums[0].Generator != "heuristic" || !strings.Contains(sums[0].Note, "anthropic-api failed after 3 attempts") {
		t.Errorf("generator %q note %q", sums[0].Generator, sums[0].Note)
	}
	jobs, _ := srv.Store.JobsOfSession(context.Background(), id)
	if len(jobs) != 1 || jobs[0].Attempts != 3 || jobs[0].Status != models.JobDone {
		t.Errorf("jobs = %+v", jobs)
	}
	// 3 queue attempts × (1 + 2 SDK retries).
	if n := api.count(); n != 9 {
		t.Errorf("%d API requests, want 9", n)
	}
}

// What an LLM answers is stored only once cleaned, and cut to
// summarize.MaxField only after that: a secret across the cut does not
// leave a part of itself behind.
func TestQueueCleansTheLLMAnswer(t *testing.T) {
	t.Parallel()
	token := "ghp_Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA"
	answer := "REQUEST: Deploy with AKIAZ7QWERTYUIOP1234.\nINVESTIGATED: " + strings.Repeat("x", summarize.MaxField-15) + " " + token +
		"\nLEARNED: password=hunter2hunter\nCOMPLETED: deployed\nNEXT_STEPS: none"
	api := newMessagesAPI(t, reply{200, messageBody(answer)})
	srv := testutil.NewServer(t)
	setSummarizer(t, srv, func(s *models.SummarizerSettings) {
		s.Kind, s.APIKey, s.BaseURL = "anthropic-api", "sk-ant-test-key-000000000000000000", api.URL
	})
	replay(t, srv, jwtSession("api-clean")[:12])
	waitJobs(t, srv.Store, 30*time.Second)
	sums, _ := srv.Store.SummariesOfSession(context.Background(), sessionID(t, srv.Store, "api-clean"))
	if len(sums) != 1 || sums[0].Generator != "anthropic-api" {
		t.Fatalf("summaries: %+v", sums)
	}
	s := sums[0]
	all := s.Request + s.Investigated + s.Learned + s.Completed
	for _, secret := range []string{"QWERTYUIOP1234", "ghp_Zx9", "hunter2hunter"} {
		if strings.Contains(all, secret) {
			t.Errorf("%s stored: %q", secret, all)
		}
	}
	if len(s.Investigated) > summarize.MaxField+len("…") || !strings.Contains(s.Request, "[REDACTED:aws_access_key]") {
		t.Errorf("request %q, investigated %d bytes", s.Request, len(s.Investigated))
	}
}
