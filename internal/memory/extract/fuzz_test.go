package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtract: any input, no panic, and bounded, clean output.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"",
		"Key decisions:\n- Went with X over Y.\n",
		"## Next steps\n\n1. **TODO**: wire `conf.Load`\n   into the CLI.",
		"```\nroot cause: inside code\n",
		"**Root cause:** the `useEffect` re-ran. ",
		"no, use pnpm, not npm. from now on, never run `npm i`",
		"- [x] done\n- [ ] still need to port `a/b.go`",
		"Cause:\n\n\n",
		"\xff\xfe**__``",
		strings.Repeat("- ", 100),
		"- **A. One** — x\n- **B. Two** — y\n\nWhich one?",
		"Which behaviour do you want?\n\nKeep it.\n\nOr drop it and log.",
		"### \n## Option 1: A\n## Option 2: B\n###\n\nWhich one?",
		"| | A | B |\n|---|---|---|\n| x | 1 | 2 |\n\nWhich one?",
		"1\ufe0f\u20e3 A\n2\u20e3 B\n\nWhich?",
		"(1) a, or (2) b. Which?",
		"Per the docs, x; I pinned it to 2, so",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(ms []Memory, max int) {
			if len(ms) > max {
				t.Fatalf("%d memories, cap %d", len(ms), max)
			}
			for _, m := range ms {
				if m.Text == "" || !utf8.ValidString(m.Text) || utf8.RuneCountInString(m.Text) > MaxText {
					t.Fatalf("bad text %q", m.Text)
				}
				switch m.Kind {
				case KindDecision, KindConstraint, KindCause, KindTodo:
				default:
					t.Fatalf("bad kind %q", m.Kind)
				}
			}
		}
		if g := Gist(s, 300); utf8.RuneCountInString(g) > 300 || !utf8.ValidString(g) {
			t.Fatalf("gist %q", g)
		}
		// A prompt picking among the options s offers, by letter, number,
		// name or words (a pick by letter once sliced out of range).
		for _, pick := range []string{"A", "b. fine", "option c", "the second one", "drop and log", s} {
			if m, ok := FromChoice(s, s, pick); ok {
				check([]Memory{m}, 1)
			}
		}
		a, p := FromAnswer(s), FromPrompt(s)
		check(a, MaxPerAnswer)
		check(p, MaxPerPrompt)
		for _, x := range append(a, p...) {
			for _, y := range append(a, p...) {
				Supersedes(x, y)
			}
			Completes(s, x)
		}
	})
}
