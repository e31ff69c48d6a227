package mcp_test

import (
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/mcp"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestMCPSearchModes: with embeddings off, search is text and
// mode=semantic is a tool error saying it is off; once an endpoint is set
// (the embedtest fake) search is hybrid by default and finds a
// plain-language question that text alone does not; with the endpoint
// slow, hybrid answers with text and says so.
func TestMCPSearchModes(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	srv := testutil.NewServer(t, testutil.FastEmbed)
	srv.SeedFixture(t)
	w := &world{srv: srv}
	cs := connect(t, w.api(), mcp.Options{})
	const question = "which notes file did we create"

	if text, isErr := call(t, cs, mcp.ToolSearch, map[string]any{"query": "notes", "mode": "semantic"}); !isErr || !strings.Contains(text, "search by meaning is off") {
		t.Errorf("semantic while off: %v %s", isErr, text)
	}
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": question}); !strings.HasPrefix(text, "No matches") {
		t.Fatalf("text search of the question found something: %s", text)
	}

	srv.EnableEmbeddings(t, fake.URL, "m", 64)
	text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": question})
	if !strings.Contains(text, "best first, hybrid") || !strings.Contains(text, "notes.md") {
		t.Errorf("hybrid by default:\n%s", text)
	}
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": question, "mode": "semantic"}); !strings.Contains(text, "semantic") || len(rowIDs(text))+strings.Count(text, "session ") == 0 {
		t.Errorf("semantic:\n%s", text)
	}
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": question, "mode": "text"}); !strings.HasPrefix(text, "No matches") {
		t.Errorf("mode=text found the question:\n%s", text)
	}
	if text, isErr := call(t, cs, mcp.ToolSearch, map[string]any{"query": "notes", "mode": "fuzzy"}); !isErr || !strings.Contains(text, "hybrid, text or semantic") {
		t.Errorf("a bad mode: %v %s", isErr, text)
	}

	fake.SetMode(embedtest.Slow)
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "notes", "mode": "hybrid"}); !strings.Contains(text, "text only: the embeddings endpoint did not answer in time") || !strings.Contains(text, "notes.md") {
		t.Errorf("hybrid with a slow endpoint:\n%s", text)
	}
}

// TestMCPSearchSaysWordsUnread: with embeddings on, a query with an
// unclosed quote answers by meaning in hybrid mode and says in one line
// that its words could not be read, and why; mode=text stays a tool
// error with the same reason.
func TestMCPSearchSaysWordsUnread(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	srv := testutil.NewServer(t, testutil.FastEmbed)
	srv.SeedFixture(t)
	w := &world{srv: srv}
	cs := connect(t, w.api(), mcp.Options{})
	srv.EnableEmbeddings(t, fake.URL, "m", 64)
	const q = `which "notes file did we create`
	const why = `The words part of the query could not be read: a "quoted phrase" is not closed.`
	text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": q})
	if !strings.Contains(text, "best first, hybrid") || !strings.Contains(text, why) || !strings.Contains(text, "notes.md") {
		t.Errorf("hybrid with an unclosed quote:\n%s", text)
	}
	if text, isErr := call(t, cs, mcp.ToolSearch, map[string]any{"query": q, "mode": "text"}); !isErr || !strings.Contains(text, `a "quoted phrase" is not closed`) {
		t.Errorf("mode=text with an unclosed quote: %v %s", isErr, text)
	}
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": q, "type": "memory"}); !strings.Contains(text, why) {
		t.Errorf("memories, hybrid with an unclosed quote:\n%s", text)
	}
	if text := mustCall(t, cs, mcp.ToolSearch, map[string]any{"query": "notes"}); strings.Contains(text, "could not be read") {
		t.Errorf("a query that reads well:\n%s", text)
	}
}
