package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestReportMemories: a session report lists the session's memories
// (kind, who said it, date, state, text, subject) under "Decisions and
// rules" in Markdown, JSON and HTML; a memory's text that tries to be
// Markdown or HTML stays text. A teammate's report names the owner's
// memories as the owner's and the teammate's own as "you".
func TestReportMemories(t *testing.T) {
	srv := testutil.NewServer(t)
	const (
		sid     = "report-memories"
		hostile = "Use `sqlc` over [gorm](http://evil.example) <img src=x onerror=alert(1)> **now**"
	)
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		s, err := tx.EnsureSession(&models.Session{ClaudeSessionID: sid, Project: "app", Cwd: "/src/app", StartedAt: at})
		if err != nil {
			return err
		}
		d := &models.Memory{SessionID: s.ID, Project: "app", PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: hostile, CreatedAt: at}
		c := &models.Memory{SessionID: s.ID, Project: "app", PromptNumber: 1, Source: models.SourcePrompt, Kind: models.MemoryConstraint,
			Text: "Never call the network in tests", Pinned: true, CreatedAt: at, Subject: "tests"}
		bob := &models.Memory{SessionID: s.ID, Project: "app", PromptNumber: 2, Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Make the cache shared", Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed, CreatedAt: at.AddDate(1, 0, 0)}
		todo := &models.Memory{SessionID: s.ID, Project: "app", PromptNumber: 2, Source: models.SourceAnswer, Kind: models.MemoryTodo, Text: "Add a benchmark", CreatedAt: at}
		for _, m := range []*models.Memory{d, c, todo, bob} {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		_, err = tx.CompleteMemory(todo.ID, models.SpeakerClaude)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/sessions/" + url.PathEscape(sid) + "/export?format="

	// Markdown, rendered by a real CommonMark+GFM renderer.
	resp, md := fetch(t, srv, path+"md")
	if resp.StatusCode != 200 {
		t.Fatalf("md: %d %s", resp.StatusCode, md)
	}
	sec := md[strings.Index(md, "Decisions and rules"):]
	sec = sec[:strings.Index(sec, "Timeline")]
	for _, want := range []string{"- **Decision**, Claude, 11-20 (current): ", "- **Constraint**, you, 11-20 (current, pinned): Never call the network in tests _(about tests)_",
		"- **Todo**, Claude, 11-20 (done): Add a benchmark", "- **Decision**, bob, 2027-11-20 (proposed): Make the cache shared"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the Markdown section lacks %q:\n%s", want, sec)
		}
	}
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(sec), &out); err != nil {
		t.Fatal(err)
	}
	html := out.String()
	for _, tag := range []string{"<a ", "<img", "<code>"} {
		if strings.Contains(html, tag) {
			t.Errorf("the memory's text made %s… in:\n%s", tag, html)
		}
	}
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(hostile)
	if !strings.Contains(html, esc) {
		t.Errorf("the memory's text does not read back whole in:\n%s", html)
	}

	// JSON: the memories, whole.
	resp, js := fetch(t, srv, path+"json")
	if resp.StatusCode != 200 {
		t.Fatalf("json: %d %s", resp.StatusCode, js)
	}
	var doc struct {
		Sessions []struct {
			Memories []models.Memory `json:"memories"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sessions) != 1 || len(doc.Sessions[0].Memories) != 4 {
		t.Fatalf("json memories: %+v", doc.Sessions)
	}
	if m := doc.Sessions[0].Memories[0]; m.Kind != models.MemoryDecision || m.Text != hostile || m.State != models.MemoryCurrent ||
		m.Speaker != models.SpeakerClaude || m.InForceAt == nil {
		t.Errorf("json's first memory: %+v", m)
	}
	if m := doc.Sessions[0].Memories[1]; m.Speaker != models.SpeakerUser || m.Subject != "tests" {
		t.Errorf("json's constraint: %+v", m)
	}
	if m := doc.Sessions[0].Memories[3]; m.Speaker != models.SpeakerTeammate || m.SpeakerRef != "bob" || m.State != models.MemoryProposed {
		t.Errorf("json's teammate memory: %+v", m)
	}
	for _, field := range []string{`"speaker":"claude"`, `"speakerRef":"bob"`, `"subject":"tests"`, `"inForceAt":`, `"endedAt":`, `"endedBy":"claude"`} {
		if !strings.Contains(js, field) {
			t.Errorf("the JSON export lacks %s", field)
		}
	}

	// HTML: escaped by templ.
	resp, page := fetch(t, srv, path+"html")
	if resp.StatusCode != 200 {
		t.Fatalf("html: %d", resp.StatusCode)
	}
	if !strings.Contains(page, "<h2>Decisions and rules</h2>") || !strings.Contains(page, "Add a benchmark") ||
		!strings.Contains(page, `<b>Constraint</b>, <span class="voice">you</span>, 11-20`) || !strings.Contains(page, "(about tests)") ||
		!strings.Contains(page, "memory-done") || strings.Contains(page, "<img src=x") || !strings.Contains(page, "&lt;img src=x") {
		t.Errorf("the HTML section is wrong:\n%s", page)
	}

	// Bob's report: the owner's constraint is the owner's, bob's own "you".
	status, body := srv.Post(t, "/api/tokens", map[string]string{"person": "bob"})
	var tok struct{ Token string }
	if status != 200 || json.Unmarshal(body, &tok) != nil || tok.Token == "" {
		t.Fatalf("token: %d %s", status, body)
	}
	status, body = srv.Do(t, http.MethodGet, path+"md", nil, http.Header{"Authorization": {"Bearer " + tok.Token}})
	if md := string(body); status != 200 || !strings.Contains(md, "- **Constraint**, the owner, 11-20 (current, pinned)") ||
		!strings.Contains(md, "- **Decision**, you, 2027-11-20 (proposed): Make the cache shared") {
		t.Errorf("bob's report: %d\n%s", status, md)
	}
}

// TestReportSaysWhatReplaced: a session's decision that a later one
// replaced is shown as superseded with what replaced it, on the session
// page and in its Markdown and HTML exports alike.
func TestReportSaysWhatReplaced(t *testing.T) {
	srv := testutil.NewServer(t)
	const sid = "report-replaced"
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var old, newer models.Memory
	var sessionID int64
	err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		s, err := tx.EnsureSession(&models.Session{ClaudeSessionID: sid, Project: "app", Cwd: "/src/app", StartedAt: at})
		if err != nil {
			return err
		}
		sessionID = s.ID
		old = models.Memory{SessionID: s.ID, Project: "app", PromptNumber: 1, Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "The cache lives in process memory", CreatedAt: at}
		newer = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "The cache now lives in Redis", CreatedAt: at.Add(time.Hour)}
		for _, m := range []*models.Memory{&old, &newer} {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		_, err = tx.SupersedeMemory(old.ID, newer.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	replaced := fmt.Sprintf("replaced by m%d: The cache now lives in Redis", newer.ID)
	path := "/api/sessions/" + url.PathEscape(sid) + "/export?format="
	if _, md := fetch(t, srv, path+"md"); !strings.Contains(md, "(superseded): The cache lives in process memory") || !strings.Contains(md, replaced) {
		t.Errorf("the Markdown export does not say what replaced the decision:\n%s", md)
	}
	if _, page := fetch(t, srv, path+"html"); !strings.Contains(page, "(superseded)") || !strings.Contains(page, replaced) {
		t.Errorf("the HTML export does not say what replaced the decision")
	}
	status, body := srv.Do(t, "GET", fmt.Sprintf("/sessions/%d", sessionID), nil, http.Header{"Accept": {"text/html"}})
	if page := string(body); status != 200 || !strings.Contains(page, "The cache lives in process memory") || !strings.Contains(page, "mem-superseded") ||
		!strings.Contains(page, fmt.Sprintf(">m%d</a>: The cache now lives in Redis", newer.ID)) {
		t.Errorf("the session page does not show the superseded decision and what replaced it: %d", status)
	}
}
