package extract

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// kinds lists the memories as "kind: text" for readable failures.
func kinds(ms []Memory) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Kind)+": "+m.Text)
	}
	return out
}

// The shape issue 23 reported: a plain label line ending in a colon, then
// bullets. Each bullet is a whole memory; the label and the intro are not.
func TestFromAnswerColonLabelKeepsTheList(t *testing.T) {
	answer := `Done. The migration now runs in two steps.

Key decisions:
- Kept the old column until the backfill finishes, so a rollback needs no data fix.
- Used ` + "`ALTER TABLE ... ADD COLUMN`" + ` without a default instead of one statement with a default, which rewrites the table on Postgres 10.
- Chose batches of 10,000 rows rather than one UPDATE, to keep replication lag under a second.

Let me know if you want the batch size configurable.`
	got := FromAnswer(answer)
	want := []string{
		"decision: Kept the old column until the backfill finishes, so a rollback needs no data fix.",
		"decision: Used `ALTER TABLE ... ADD COLUMN` without a default instead of one statement with a default, which rewrites the table on Postgres 10.",
		"decision: Chose batches of 10,000 rows rather than one UPDATE, to keep replication lag under a second.",
	}
	if !slices.Equal(kinds(got), want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(kinds(got), "\n"), strings.Join(want, "\n"))
	}
}

func TestFromAnswerJoinsWrappedSentences(t *testing.T) {
	answer := "The flaky test was caused by the cache reading the wall clock\ndirectly, so runs near midnight crossed a day\nboundary. I fixed the test."
	got := FromAnswer(answer)
	if len(got) != 1 || got[0].Kind != KindCause ||
		got[0].Text != "The flaky test was caused by the cache reading the wall clock directly, so runs near midnight crossed a day boundary." {
		t.Fatalf("got %q", kinds(got))
	}
}

func TestFromAnswerStyles(t *testing.T) {
	cases := []struct {
		name, answer string
		want         []string // "kind: substring"
	}{
		{"heading sections", "## Decisions\n\n- **Storage**: SQLite in WAL mode, since one writer is all we have.\n\n## Next steps\n\n- Port the importer to the new schema.",
			[]string{"decision: Storage: SQLite in WAL mode", "todo: Port the importer"}},
		{"bold inline labels", "**Root cause:** the retry loop never reset `attempt`, so after one failure every call slept 30s.\n\n**Fix:** reset it per call.",
			[]string{"cause: the retry loop never reset"}},
		{"numbered why-list", "What I changed and why:\n\n1. `api/client.ts`: one shared `fetch` wrapper, so auth headers are set in one place.\n2. `api/client.test.ts`: new tests.",
			[]string{"decision: one shared `fetch` wrapper"}},
		{"inline cues in prose", "For the queue I went with NATS over Kafka: we need nothing Kafka adds. The build was failing because `protoc` was missing from the image. TODO: pin `protoc` in the Dockerfile.",
			[]string{"decision: went with NATS over Kafka", "cause: was failing because", "todo: TODO: pin"}},
		{"switched and dropped", "I switched from `viper` to plain flags; I dropped `cobra` too because we have one command.",
			[]string{"decision: switched from `viper` to plain flags"}},
		{"label then paragraph", "Cause:\nThe healthcheck hit `/` which needs a session, so it always returned 302.\n\nFix:\nPoint it at `/healthz`.",
			[]string{"cause: The healthcheck hit"}},
		{"open items with checkboxes", "Remaining:\n- [ ] Update the changelog.\n- [x] Tests.", []string{"todo: Update the changelog"}},
		{"project rule stated by Claude", "Note: this repo pins Go 1.22 in `go.mod`, so I avoided range-over-func.", []string{"constraint: this repo pins Go 1.22"}},
		{"summary of changes", "Here's what I changed:\n\n- Added `GET /healthz`\n- Registered it in `router.go`\n\nAll tests pass.", nil},
		{"question", "Should the limiter be per key or per IP? The middleware keys on IP today.", nil},
		{"plan for this turn", "I'll read the failing test first, then reproduce it locally.", nil},
		{"test output", "```\n--- FAIL: TestX (0.00s)\n    x_test.go:12: root cause: unknown\nFAIL\n```\nIt fails, looking into it.", nil},
		{"let me know", "All done! Let me know if you'd like any other changes.", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := FromAnswer(c.answer)
			if len(got) != len(c.want) {
				t.Fatalf("got %d memories %q, want %q", len(got), kinds(got), c.want)
			}
			for i, w := range c.want {
				k, sub, _ := strings.Cut(w, ": ")
				if string(got[i].Kind) != k || !strings.Contains(strings.ToLower(got[i].Text), strings.ToLower(sub)) {
					t.Errorf("memory %d = %s: %q, want %s containing %q", i, got[i].Kind, got[i].Text, k, sub)
				}
				if strings.Contains(got[i].Text, "**") || strings.HasPrefix(got[i].Text, "- ") {
					t.Errorf("markdown left in %q", got[i].Text)
				}
			}
		})
	}
}

func TestFromPrompt(t *testing.T) {
	cases := []struct {
		prompt string
		kind   Kind // "" for none
		text   string
	}{
		{"no, use pnpm, not npm", KindConstraint, "Use pnpm, not npm"},
		{"don't touch vendor/", KindConstraint, "Don't touch vendor/"},
		{"Never run migrations against prod from a laptop.", KindConstraint, "Never run migrations against prod from a laptop."},
		{"always add a changelog entry", KindConstraint, "Always add a changelog entry"},
		{"From now on, write the commit messages in English.", KindConstraint, "From now on, write the commit messages in English."},
		{"stop doing drive-by refactors", KindConstraint, "Stop doing drive-by refactors"},
		{"let's go with SQLite for the cache", KindDecision, "Let's go with SQLite for the cache"},
		{"fix the login bug", "", ""},
		{"why is the build slow?", "", ""},
		{"can you never mind that and look at the logs", "", ""},
		{"thanks!", "", ""},
	}
	for _, c := range cases {
		got := FromPrompt(c.prompt)
		if c.kind == "" {
			if len(got) != 0 {
				t.Errorf("FromPrompt(%q) = %q, want nothing", c.prompt, kinds(got))
			}
			continue
		}
		if len(got) != 1 || got[0].Kind != c.kind || got[0].Text != c.text {
			t.Errorf("FromPrompt(%q) = %q, want %s: %q", c.prompt, kinds(got), c.kind, c.text)
		}
	}
}

func TestMemoryNames(t *testing.T) {
	got := FromAnswer("Switched `SessionStore` in `internal/auth/session.go` from cookies to `session_tokens`, instead of JWTs.")
	if len(got) != 1 {
		t.Fatalf("got %q", kinds(got))
	}
	m := got[0]
	if !slices.Contains(m.Files, "internal/auth/session.go") {
		t.Errorf("files = %q", m.Files)
	}
	for _, id := range []string{"SessionStore", "session_tokens"} {
		if !slices.Contains(m.Idents, id) {
			t.Errorf("idents = %q, want %s", m.Idents, id)
		}
	}
	for _, term := range []string{"sessionstore", "cookie", "jwt"} {
		if !slices.Contains(m.Terms, term) {
			t.Errorf("terms = %q, want %s", m.Terms, term)
		}
	}
	if slices.Contains(m.Terms, "from") || slices.Contains(m.Terms, "instead") {
		t.Errorf("stopwords in terms %q", m.Terms)
	}
	if !m.Change {
		t.Error("a switch is a change")
	}
}

func TestFromAnswerBounds(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		b.WriteString("- Went with option " + strings.Repeat("x", i+1) + " over the other one.\n")
	}
	if got := FromAnswer("Key decisions:\n" + b.String()); len(got) != MaxPerAnswer {
		t.Errorf("%d memories from 20 decisions, want the cap %d", len(got), MaxPerAnswer)
	}

	long := "We went with " + strings.Repeat("a very long reason ", 60) + "over the rest."
	got := FromAnswer(long)
	if len(got) != 1 || utf8.RuneCountInString(got[0].Text) > MaxText {
		t.Fatalf("long statement: %d memories, %d runes", len(got), utf8.RuneCountInString(got[0].Text))
	}

	// Past MaxInput nothing is read.
	tail := "\n\nRoot cause: the far end of a huge answer."
	huge := strings.Repeat("filler text without any cue at all.\n", MaxInput/36+10) + tail
	for _, m := range FromAnswer(huge) {
		if strings.Contains(m.Text, "far end") {
			t.Error("read past MaxInput")
		}
	}
	if got := FromAnswer("Root cause: \xff\xfe broken bytes in the parser"); len(got) != 1 || !utf8.ValidString(got[0].Text) {
		t.Errorf("invalid UTF-8: %q", kinds(got))
	}
}

func TestCutBytes(t *testing.T) {
	s := "ab€cd" // € is 3 bytes: a b [3] c d
	for n, want := range map[int]string{0: "", 1: "a", 2: "ab", 3: "ab", 4: "ab", 5: "ab€", 6: "ab€c", 9: s} {
		if got := cutBytes(s, n); got != want {
			t.Errorf("cutBytes(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
}

// The words in front of each cue's regexp only skip it: over every
// sentence of both halves, the cue decides as the bare regexp does.
func TestCueWordsAreExact(t *testing.T) {
	cues := map[string]*cueRe{"cause": causeRe, "fail": failRe, "todo": todoRe, "constraint": constraintRe,
		"decision": decisionRe, "weak": weakDecisionRe, "rationale": rationaleRe, "change": changeRe}
	n := 0
	for _, name := range []string{"tune.jsonl", "heldout.jsonl"} {
		for _, it := range loadCorpus(t, name) {
			for _, p := range paragraphs(it.Text) {
				for _, s := range sentences(p) {
					for cn, c := range cues {
						if got, want := c.MatchString(s), c.re.MatchString(s); got != want {
							t.Errorf("%s on %q: %v, regexp alone %v", cn, s, got, want)
						}
						n++
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d checks", n)
	}
}

func TestFromAnswerPromisedRule(t *testing.T) {
	got := FromAnswer("Going forward I'll keep all new components in `src/components/ui/` as you asked. I'll start with the button.")
	if len(got) != 1 || got[0].Kind != KindConstraint || !slices.Contains(got[0].Files, "src/components/ui/") {
		t.Fatalf("got %q", kinds(got))
	}
}

func TestFromAnswerTablesAndQuotes(t *testing.T) {
	answer := "| Option | Why |\n|---|---|\n| Redis instead of Postgres | faster |\n\n> Root cause: the pool was\n> never closed on shutdown.\n"
	got := FromAnswer(answer)
	// A block quote is what some source says: a note of it, never a
	// memory of Claude's.
	if len(got) != 1 || got[0].Kind != KindCause || !got[0].Quoted || got[0].Text != "The pool was never closed on shutdown." {
		t.Fatalf("got %q", kinds(got))
	}
}

// Pasted output is not the user's rule, whatever words it uses.
func TestFromPromptIgnoresPastedLogs(t *testing.T) {
	prompt := "the seed script fails:\n\n2024-06-12 09:14:03 ERROR validation: field \"email\" must be a string\n\nerror: never reached the database\n\nand please never print the DSN in these logs"
	got := FromPrompt(prompt)
	if len(got) != 1 || got[0].Kind != KindConstraint || got[0].Text != "Never print the DSN in these logs" {
		t.Fatalf("got %q", kinds(got))
	}
}

// The answer of the real Claude Code session in internal/summarize's
// golden file: a fix that says what was wrong.
func TestFromAnswerFixThatExplains(t *testing.T) {
	got := FromAnswer("Fixed `Add` in calc.go: it subtracted instead of adding. `go test ./...` passes now.")
	if len(got) != 1 || got[0].Kind != KindCause || !slices.Contains(got[0].Files, "calc.go") {
		t.Fatalf("got %q", kinds(got))
	}
}

// An answer that explains existing code states no decisions and no rules,
// though it says "always", "never", "instead" and "since".
func TestFromAnswerExplanationIsNotAMemory(t *testing.T) {
	for _, a := range []string{
		"`Scheduler.Run` always returns nil when the context is cancelled. It never retries jobs that failed with a 4xx.",
		"The migration runner reads files in lexical order. It uses a transaction per file instead of one for the whole batch.",
		"Here's how the auth flow works:\n\n1. The client posts credentials to `/login`.\n2. The server returns a session cookie, since the SPA can't store tokens safely.",
	} {
		if got := FromAnswer(a); len(got) != 0 {
			t.Errorf("FromAnswer(%q) = %q, want nothing", a, kinds(got))
		}
	}
	// The same words as an act or a rule still count.
	for a, k := range map[string]Kind{
		"I used a transaction per file instead of one for the whole batch.":    KindDecision,
		"Generated files are never edited by hand; run `go generate` instead.": KindConstraint,
		"Changes:\n- Return 422 instead of 500 for validation errors":          KindDecision,
	} {
		if got := FromAnswer(a); len(got) != 1 || got[0].Kind != k {
			t.Errorf("FromAnswer(%q) = %q, want one %s", a, kinds(got), k)
		}
	}
}
