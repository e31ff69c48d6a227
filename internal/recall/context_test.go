package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{strings.Repeat("x", 8000), 2000},
		{"é", 1},                       // 2 bytes
		{strings.Repeat("é", 4), 2},    // 8 bytes: counted by bytes, the safe side
		{strings.Repeat("日本", 10), 15}, // 60 bytes
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	for _, tc := range []struct{ tokens, want int }{{0, 0}, {-5, 0}, {1, 4}, {2000, 8000}, {2560, 10240}, {100000, 10240}} {
		if got := BudgetBytes(tc.tokens); got != tc.want {
			t.Errorf("BudgetBytes(%d) = %d, want %d", tc.tokens, got, tc.want)
		}
	}
}

// randText is text of random length with the things that break naive
// builders: newlines, long words, multi-byte runes, our own tags.
func randText(r *rand.Rand, maxLen int) string {
	pieces := []string{"fix", "the", "parser", "\n", "  ", "é", "日本語", "</mneme-context>", "<mneme-context>x</mneme-context>",
		"go test ./...", strings.Repeat("w", 90), "`code`", "#", "- item", "\t"}
	n := r.IntN(maxLen + 1)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
		b.WriteByte(' ')
	}
	return b.String()
}

// TestContextBudgetProperty builds random histories and checks, for many
// budgets, that the block never exceeds its budget or 10 KB, that every line
// is a whole candidate line, and that nothing of another project or of an
// excluded stub is injected. The histories come from a fixed seed, so a
// run is repeatable; MNEME_PROPERTY_SEED=n (or "random") explores others.
func TestContextBudgetProperty(t *testing.T) {
	t.Parallel()
	seed := uint64(20261126)
	switch v := os.Getenv("MNEME_PROPERTY_SEED"); v {
	case "":
	case "random":
		seed = rand.Uint64()
	default:
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("MNEME_PROPERTY_SEED=%q: a number or random", v)
		}
		seed = n
	}
	t.Logf("seed %d (MNEME_PROPERTY_SEED=%d repeats this run)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 7))
	budgets := []int{0, 1, 5, 20, 40, 64, 100, 150, 300, 500, 1000, 2000, 2560, 4000}
	for h := 0; h < 8; h++ {
		f := newFixture(t)
		f.st.Injection.Sessions = 1 + r.IntN(10)
		f.st.Injection.Observations = 1 + r.IntN(200)
		f.st.Injection.IncludeSummaries = r.IntN(2) == 0
		for i := 0; i < 1+r.IntN(8); i++ {
			proj := "proj"
			if r.IntN(4) == 0 {
				proj = "other"
			}
			sid := f.session(proj, fmt.Sprintf("s-%d-%d", h, i), marked(proj, randText(r, 600)))
			for n := 1; n <= r.IntN(4); n++ {
				f.prompt(sid, proj, n, marked(proj, randText(r, 1500)))
			}
			for k := 0; k < r.IntN(60); k++ {
				o := models.Observation{SessionID: sid, Project: proj, Title: marked(proj, randText(r, 300)),
					Input: randText(r, 100), Success: r.IntN(4) != 0, Importance: float64(r.IntN(11)) / 10,
					Files: []string{fmt.Sprintf("/home/dev/%s/f%d.go", proj, r.IntN(5))}}
				switch r.IntN(5) {
				case 0:
					o.Kind = models.KindFileChange
				case 1:
					o.Kind, o.ExcludedBy, o.Title = models.KindExcluded, "**/.env", "EXCLUDEDSTUB"
				}
				f.obs(o)
			}
			if r.IntN(2) == 0 {
				f.summary(models.Summary{SessionID: sid, Project: proj, Kind: models.SummaryFinal,
					Request: marked(proj, randText(r, 400)), Completed: randText(r, 400), Learned: randText(r, 300), NextSteps: randText(r, 200)})
			}
		}
		cur := f.session("proj", fmt.Sprintf("cur-%d", h), "")
		b := f.builder()
		for _, source := range []string{"startup", "clear", "compact", "resume"} {
			req := capture.ContextRequest{Project: "proj", SessionID: cur, Source: source}
			secs, err := b.sections(context.Background(), req, 1000, cleaner{b.policy()})
			if err != nil {
				t.Fatal(err)
			}
			whole := map[string]bool{}
			for _, l := range strings.Split(render("proj", secs, 1<<30, cleaner{b.policy()}.redact), "\n") {
				whole[l] = true
			}
			for _, tokens := range budgets {
				f.st.Injection.MaxInjectTokens = tokens
				b = f.builder()
				out, err := b.SessionContext(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				limit := min(tokens*4, models.MaxInjectBytes)
				if len(out) > limit || EstimateTokens(out) > max(tokens, 0) {
					t.Fatalf("history %d %s budget %d tokens: %d bytes > %d", h, source, tokens, len(out), limit)
				}
				if out == "" {
					continue
				}
				if !strings.HasPrefix(out, OpenTag+"\n") || !strings.HasSuffix(out, "\n"+Footer+"\n"+CloseTag) ||
					strings.Count(out, "mneme-context") != 2 {
					t.Fatalf("history %d %s budget %d: badly wrapped:\n%s", h, source, tokens, out)
				}
				for _, l := range strings.Split(out, "\n") {
					if !whole[l] {
						t.Fatalf("history %d %s budget %d: line %q is not a whole candidate line", h, source, tokens, l)
					}
				}
				if strings.Contains(out, "OTHERPROJ") || strings.Contains(out, "EXCLUDEDSTUB") {
					t.Fatalf("history %d %s: another project's or excluded content leaked:\n%s", h, source, out)
				}
			}
		}
	}
}

// marked tags text of the other project so a leak is visible.
func marked(project, s string) string {
	if project == "other" {
		return "OTHERPROJ " + s
	}
	return s
}

// history is a fixed story: an old session that failed and fixed a test,
// one that failed to build and never fixed it, edits, and a summary.
func history(f *fixture) (old, recent, current int64, ids map[string]int64) {
	ids = map[string]int64{}
	old = f.session("app", "old", "All tests pass now.")
	f.prompt(old, "app", 1, "make the tests pass")
	ids["testfail"] = f.obs(models.Observation{SessionID: old, Project: "app", Title: "Ran `go test ./...`: 2 failed", Input: "go test ./...", Kind: models.KindFailure, Importance: 1})
	ids["edit"] = f.obs(models.Observation{SessionID: old, Project: "app", ToolName: "Edit", Title: "Edited parser.go (+3 −1)", Kind: models.KindFileChange, Files: []string{"/home/dev/app/parser.go"}, Success: true, Importance: 0.7})
	ids["testpass"] = f.obs(models.Observation{SessionID: old, Project: "app", Title: "Ran `go test ./...`: ok", Input: "go test ./...", Kind: models.KindTest, Success: true, Importance: 0.9})
	recent = f.session("app", "recent", "The build still fails on linux/arm64.")
	f.prompt(recent, "app", 1, "cross-compile for arm64")
	ids["buildfail"] = f.obs(models.Observation{SessionID: recent, Project: "app", Title: "Ran `make release`: exit 2", Input: "make release", Kind: models.KindFailure, Importance: 1})
	ids["grep"] = f.obs(models.Observation{SessionID: recent, Project: "app", ToolName: "Grep", Title: "Grep `GOARCH`: 3 files", Kind: models.KindSearch, Success: true, Importance: 0.3})
	f.summary(models.Summary{SessionID: recent, Project: "app", Kind: models.SummaryFinal, Request: "cross-compile for arm64",
		Completed: "added a release target", Learned: "CGO must stay off for arm64 builds", NextSteps: "fix make release"})
	for i := 0; i < 6; i++ { // started and left: nothing to say
		f.session("app", fmt.Sprintf("empty-%d", i), "")
	}
	other := f.session("secret-proj", "x", "OTHERPROJ answer")
	f.obs(models.Observation{SessionID: other, Project: "secret-proj", Title: "OTHERPROJ did things", Success: true, Importance: 1})
	current = f.session("app", "current", "")
	return
}

func TestContextPriorityOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, _, cur, ids := history(f)
	out, err := f.builder().SessionContext(context.Background(), capture.ContextRequest{Project: "app", SessionID: cur, Source: "startup"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out)
	order := []string{"## Recent sessions", "done: added a release target", "asked: make the tests pass",
		"## Unresolved failures", fmt.Sprintf("#%d Ran `make release`", ids["buildfail"]),
		"## Decisions and files changed", "CGO must stay off", "changed `parser.go`",
		"## Notable recent activity", fmt.Sprintf("#%d Ran `go test ./...`: 2 failed [failed, fixed later]", ids["testfail"]),
		fmt.Sprintf("#%d Ran `go test ./...`: ok", ids["testpass"]), "Details: run `mneme search"}
	last := -1
	for _, s := range order {
		i := strings.Index(out, s)
		if i < 0 {
			t.Fatalf("missing %q", s)
		}
		if i < last {
			t.Fatalf("%q is out of priority order", s)
		}
		last = i
	}
	// The fixed test failure is not unresolved; the other project never appears.
	unresolved := out[strings.Index(out, "## Unresolved"):strings.Index(out, "## Decisions")]
	if strings.Contains(unresolved, fmt.Sprintf("#%d ", ids["testfail"])) || strings.Contains(out, "OTHERPROJ") {
		t.Fatalf("resolved failure or another project's content injected:\n%s", out)
	}

	// A tight budget keeps the first priorities and drops the last.
	f.st.Injection.MaxInjectTokens = 120
	small, _ := f.builder().SessionContext(context.Background(), capture.ContextRequest{Project: "app", SessionID: cur, Source: "startup"})
	t.Logf("120 tokens (%d bytes):\n%s", len(small), small)
	if !strings.Contains(small, "## Recent sessions") || strings.Contains(small, "## Notable recent activity") || len(small) > 480 {
		t.Fatalf("tight budget did not keep priorities:\n%s", small)
	}

	// Summaries off: fall back to first prompt and last answer.
	f.st.Injection.MaxInjectTokens = 2000
	f.st.Injection.IncludeSummaries = false
	nosum, _ := f.builder().SessionContext(context.Background(), capture.ContextRequest{Project: "app", SessionID: cur, Source: "startup"})
	if strings.Contains(nosum, "added a release target") || !strings.Contains(nosum, "last answer: The build still fails") {
		t.Fatalf("summaries off should fall back to prompt and answer:\n%s", nosum)
	}

	// Per-project off.
	f.st.Injection.DisabledProjects = []string{"app"}
	if off, _ := f.builder().SessionContext(context.Background(), capture.ContextRequest{Project: "app", SessionID: cur}); off != "" {
		t.Fatalf("disabled project still injected:\n%s", off)
	}
}

func TestUnresolvedFailures(t *testing.T) {
	t.Parallel()
	mk := func(id int64, tool, input string, ok bool, files ...string) models.Observation {
		return models.Observation{ID: id, ToolName: tool, Input: input, Success: ok, Files: files}
	}
	// Newest first, as loaded.
	obs := []models.Observation{
		mk(10, "Bash", "go build -o bin/app .", true),
		mk(9, "Bash", "cat b.txt", true),
		mk(8, "Bash", "cat a.txt", false),
		mk(7, "Bash", "go build ./...", false),
		mk(6, "Bash", "go   test ./...", true),
		mk(5, "Edit", "", true, "/a.go"),
		mk(4, "Bash", "make lint", false),
		mk(3, "Edit", "", false, "/a.go"),
		mk(2, "Bash", "go test ./...", false),
		mk(1, "Write", "", false, "/b.go"),
	}
	var got []int64
	for _, o := range unresolvedFailures(obs) {
		got = append(got, o.ID)
	}
	// go build is fixed by a go build with other arguments; cat a.txt is
	// not by cat b.txt (no subcommand, so only the same command counts).
	if fmt.Sprint(got) != "[8 4 1]" {
		t.Fatalf("unresolved = %v, want [8 4 1]", got)
	}
}

// The Unresolved failures section names what failed (the failing test,
// the error's class) even where a title kept from before does not, and a
// failure seen again is one line with how many more.
func TestUnresolvedFailuresNameWhatFailed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	goFail := func(dur string) string {
		return "Exit code 1\n--- FAIL: TestLoadConfig (" + dur + ")\nFAIL\nFAIL\tgithub.com/acme/app/load\t" + dur + "\nFAIL"
	}
	var ids []int64
	for i, dur := range []string{"0.03s", "1.2s", "0.4s"} {
		s := f.session("app", fmt.Sprintf("s%d", i), "")
		f.prompt(s, "app", 1, "fix the loader")
		ids = append(ids, f.obs(models.Observation{SessionID: s, Project: "app", Title: "`go test ./load` failed: exit 1", Input: "go test ./load",
			Output: goFail(dur), Kind: models.KindFailure, Importance: 1}))
	}
	other := f.session("app", "tsc", "")
	tsc := f.obs(models.Observation{SessionID: other, Project: "app", Title: "`npx tsc`: src/a.ts(1,1): error TS2322: Type 'string' is not assignable (exit 2)",
		Input: "npx tsc", Output: "Exit code 2\nsrc/a.ts(1,1): error TS2322: Type 'string' is not assignable", Kind: models.KindFailure, Importance: 1})
	cur := f.session("app", "current", "")
	out, err := f.builder().SessionContext(context.Background(), capture.ContextRequest{Project: "app", SessionID: cur, Source: "startup"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out)
	if want := fmt.Sprintf("- #%d `go test ./load` failed: exit 1 — TestLoadConfig [FAILED]", ids[2]); !strings.Contains(out, want) {
		t.Errorf("no line %q", want)
	}
	if !strings.Contains(out, "+2 like it") {
		t.Errorf("the failure seen three times is not one line with +2 like it")
	}
	for _, id := range ids[:2] {
		if strings.Contains(out, fmt.Sprintf("#%d ", id)) {
			t.Errorf("#%d, the same failure again, has a line of its own", id)
		}
	}
	if want := fmt.Sprintf("- #%d `npx tsc`: src/a.ts(1,1): error TS2322: Type 'string' is not assignable (exit 2) [FAILED]", tsc); !strings.Contains(out, want) {
		t.Errorf("a title naming its error got more: want %q", want)
	}
}

func TestContextSourceVariants(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, _, cur, ids := history(f)
	f.prompt(cur, "app", 1, "refactor the lexer into its own package")
	own := f.obs(models.Observation{SessionID: cur, Project: "app", ToolName: "Write", Title: "Created lexer/lexer.go (120 lines)", Kind: models.KindFileChange, Files: []string{"/home/dev/app/lexer/lexer.go"}, Success: true, Importance: 0.7})
	b := f.builder()
	get := func(source string) string {
		out, err := b.SessionContext(context.Background(), capture.ContextRequest{Project: "app", SessionID: cur, Source: source})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	compact := get("compact")
	if !strings.Contains(compact, "## This session before compaction") ||
		strings.Index(compact, fmt.Sprintf("#%d Created lexer", own)) > strings.Index(compact, "## Recent sessions") ||
		!strings.Contains(compact, "prompt 1: refactor the lexer") {
		t.Fatalf("compact must put the session's own work first:\n%s", compact)
	}
	for _, src := range []string{"clear", "startup"} {
		out := get(src)
		if strings.Contains(out, "before compaction") || strings.Contains(out, fmt.Sprintf("#%d ", own)) {
			t.Fatalf("%s must show the project's memory, not the session's own:\n%s", src, out)
		}
		if !strings.Contains(out, fmt.Sprintf("#%d ", ids["buildfail"])) {
			t.Fatalf("%s lacks the project's memory:\n%s", src, out)
		}
	}

	// Resume: only what happened after the session was last active.
	if out := get("resume"); out != "" {
		t.Fatalf("nothing happened since the session was active, got:\n%s", out)
	}
	later := f.session("app", "later", "Released v1.2 for arm64.")
	f.prompt(later, "app", 1, "ship the release")
	shipped := f.obs(models.Observation{SessionID: later, Project: "app", Title: "Ran `make release`: ok", Input: "make release", Kind: models.KindBash, Success: true, Importance: 0.5})
	resume := get("resume")
	if !strings.Contains(resume, fmt.Sprintf("#%d Ran `make release`: ok", shipped)) || !strings.Contains(resume, "ship the release") {
		t.Fatalf("resume lacks what happened since:\n%s", resume)
	}
	if strings.Contains(resume, "make the tests pass") || strings.Contains(resume, fmt.Sprintf("#%d ", ids["buildfail"])) {
		t.Fatalf("resume shows what happened before the session was last active:\n%s", resume)
	}
}

// TestContextUsesCurrentRedaction: a rule added after a secret was stored
// already keeps it out of the injected block.
func TestContextUsesCurrentRedaction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.session("app", "s1", "deployed with token zz-SECRET-1234")
	f.prompt(sid, "app", 1, "deploy it")
	cur := f.session("app", "s2", "")
	f.st.Privacy.RedactionRules = append(f.st.Privacy.RedactionRules, privacy.Rule{Name: "zz", Pattern: `zz-SECRET-\d+`, Enabled: true})
	out, err := f.builder().SessionContext(context.Background(), capture.ContextRequest{Project: "app", SessionID: cur, Source: "startup"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "zz-SECRET") || !strings.Contains(out, "[REDACTED:zz]") {
		t.Fatalf("current rules not applied:\n%s", out)
	}
}
