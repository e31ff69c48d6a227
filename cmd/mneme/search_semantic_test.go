package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestSearchSemanticAndStatus: `mneme search --semantic` is a clear error
// while embeddings are off; with the embedtest endpoint set it finds a
// plain-language question text cannot, --mode hybrid too, and `mneme
// status` shows the model and the backfill's progress.
func TestSearchSemanticAndStatus(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	srv := testutil.NewServer(t, testutil.FastEmbed)
	srv.SeedFixture(t)
	port := strconv.Itoa(srv.Port)
	mneme := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", port, "--data-dir", srv.DataDir}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	const question = "which notes file did we create"
	if code, out, errOut := mneme("search", "--semantic", question); code != 2 || !strings.Contains(errOut, "search by meaning is off") {
		t.Errorf("--semantic while off: exit %d %s %s", code, out, errOut)
	}
	if code, out, _ := mneme("status"); code != 0 || !strings.Contains(out, "semantic:       off") {
		t.Errorf("status while off: exit %d\n%s", code, out)
	}
	if code, out, _ := mneme("search", question); code != 1 {
		t.Errorf("text search of the question: exit %d\n%s", code, out)
	}

	srv.EnableEmbeddings(t, fake.URL, "m", 64)
	for _, args := range [][]string{{"--semantic"}, {"--mode", "hybrid"}, {}} {
		code, out, errOut := mneme(append(append([]string{"search"}, args...), question)...)
		if code != 0 || !strings.Contains(out, "notes.md") {
			t.Errorf("search %v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	if code, _, errOut := mneme("search", "--semantic", "--mode", "text", question); code != 2 || !strings.Contains(errOut, "disagree") {
		t.Errorf("--semantic --mode text: exit %d %s", code, errOut)
	}
	code, out, _ := mneme("status")
	if code != 0 || !strings.Contains(out, "semantic:       ok, model m, ") || !strings.Contains(out, "rows embedded") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
}
