package recall

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/models"
)

func TestKeywords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prompt string
		want   string
	}{
		{"", "[]"},
		{"please fix it", "[]"},
		{"Why does the parser panic?", "[parser panic]"},
		{"fix parse_config in internal/recall/context.go", "[parse_config internal/recall/context.go]"},
		{"the handleRequest function and the handler", "[handlerequest function handler]"},
		{"run `go test ./...` and look at TestFoo_bar failures", "[testfoo_bar failures test]"},
		{"retry retry RETRY", "[retry]"},
		{`"quoted" AND NEAR(x y) OR title:* ^start`, "[quoted title start near]"},
		{"error 404 on /api/health in 2026", "[api/health error]"},
		{"über café naïve résumé", "[résumé naïve über café]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(Keywords(tt.prompt, MaxKeywords)); got != tt.want {
			t.Errorf("Keywords(%q) = %s, want %s", tt.prompt, got, tt.want)
		}
	}
	if n := len(Keywords(strings.Repeat("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima ", 3), MaxKeywords)); n != MaxKeywords {
		t.Errorf("keywords not capped: %d", n)
	}
}

func TestFTSQuery(t *testing.T) {
	t.Parallel()
	if got := FTSQuery([]string{`a"b`, "foo.go"}); got != `"a""b" OR "foo.go"` {
		t.Fatalf("FTSQuery = %s", got)
	}
	// Whatever the prompt, the query is valid FTS5.
	f := newFixture(t)
	sid := f.session("app", "s", "")
	f.obs(models.Observation{SessionID: sid, Project: "app", Title: "Ran `go test ./...`: ok", Success: true})
	b := f.builder()
	for _, p := range []string{`"`, `a" OR "b`, "NEAR(", "col:umn*", "^x (y", `'); DROP TABLE observations; --`, "AND OR NOT", "x*y*z", "日本語 テスト"} {
		if _, err := b.Related(context.Background(), "app", 0, p, 5, 0); err != nil {
			t.Errorf("prompt %q: %v", p, err)
		}
	}
}

func TestRelatedMemory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	old := f.session("app", "old", "")
	fail := f.obs(models.Observation{SessionID: old, Project: "app", Title: "Ran `go test ./internal/tokenizer/...`: TestTokenizerUnicode failed",
		Input: "go test ./internal/tokenizer/...", Kind: models.KindFailure, Importance: 1, Files: []string{}})
	edit := f.obs(models.Observation{SessionID: old, Project: "app", ToolName: "Edit", Title: "Edited internal/tokenizer/tokenizer.go (+12 −3)",
		Kind: models.KindFileChange, Files: []string{"/home/dev/app/internal/tokenizer/tokenizer.go"}, Success: true, Importance: 0.7})
	for i := 0; i < 30; i++ { // background noise
		f.obs(models.Observation{SessionID: old, Project: "app", Title: fmt.Sprintf("Ran `ls dir%d`: 4 files", i), Success: true})
	}
	other := f.session("elsewhere", "o", "")
	f.obs(models.Observation{SessionID: other, Project: "elsewhere", Title: "OTHERPROJ tokenizer unicode failure", Success: true})
	cur := f.session("app", "cur", "")
	mine := f.obs(models.Observation{SessionID: cur, Project: "app", Title: "Read tokenizer unicode notes", Success: true})
	b := f.builder()

	out, err := b.RelatedMemory(context.Background(), "app", cur, "the tokenizer still breaks on unicode input, see TestTokenizerUnicode")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out)
	if !strings.HasPrefix(out, OpenTag) || !strings.HasSuffix(out, CloseTag) {
		t.Fatalf("not wrapped: %q", out)
	}
	if !strings.Contains(out, fmt.Sprintf("#%d (relevance ", fail)) {
		t.Fatalf("expected hint #%d:\n%s", fail, out)
	}
	// A file name alone is enough when the prompt is about that file.
	if out, _ := b.RelatedMemory(context.Background(), "app", cur, "fix the tokenizer"); !strings.Contains(out, fmt.Sprintf("#%d (relevance ", edit)) {
		t.Fatalf("expected hint #%d:\n%s", edit, out)
	}
	if strings.Contains(out, "OTHERPROJ") || strings.Contains(out, fmt.Sprintf("#%d ", mine)) {
		t.Fatalf("another project or the asking session leaked:\n%s", out)
	}
	if lines := strings.Count(out, "\n- #"); lines > f.st.Injection.RelatedCount {
		t.Fatalf("%d hints > relatedCount %d", lines, f.st.Injection.RelatedCount)
	}

	// Unrelated prompts get nothing.
	for _, p := range []string{"write a haiku about autumn", "thanks!", "ls"} {
		if out, err := b.RelatedMemory(context.Background(), "app", cur, p); err != nil || out != "" {
			t.Fatalf("unrelated prompt %q got %q (%v)", p, out, err)
		}
	}
	// Off, and a threshold nothing clears.
	f.st.Injection.RelatedEnabled = false
	if out, _ := f.builder().RelatedMemory(context.Background(), "app", cur, "tokenizer unicode"); out != "" {
		t.Fatalf("disabled related memory answered %q", out)
	}
	f.st.Injection.RelatedEnabled, f.st.Injection.RelatedThreshold = true, 1
	if out, _ := f.builder().RelatedMemory(context.Background(), "app", cur, "tokenizer unicode"); out != "" {
		t.Fatalf("threshold 1 answered %q", out)
	}
}

func TestRelevance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		bm25, cov float64
		lo, hi    float64
	}{
		{0, 0, 0, 0},
		{-3, 0, 0, 0},
		{8, 0, 0.25, 0.25},
		{8, 1, 0.75, 0.75},
		{1000, 1, 0.99, 1},
		{2, 0.25, 0.2, 0.3},
	}
	for _, tt := range tests {
		if got := Relevance(tt.bm25, tt.cov); got < tt.lo-1e-9 || got > tt.hi+1e-9 {
			t.Errorf("Relevance(%v, %v) = %v, want in [%v, %v]", tt.bm25, tt.cov, got, tt.lo, tt.hi)
		}
	}
}
