package extract

import (
	"fmt"
	"strings"
	"testing"
)

// answer4K is a realistic 4 KB final answer: the tuning half's answers
// joined until they fill 4,096 bytes.
func answer4K(b *testing.B) string {
	var sb strings.Builder
	for _, it := range loadCorpus(b, "tune.jsonl") {
		if it.Type != "answer" {
			continue
		}
		sb.WriteString(it.Text)
		sb.WriteString("\n\n")
		if sb.Len() >= 4096 {
			break
		}
	}
	s := sb.String()[:4096]
	return s[:strings.LastIndexByte(s, '\n')]
}

func BenchmarkFromAnswer(b *testing.B) {
	a := answer4K(b)
	b.SetBytes(int64(len(a)))
	b.ReportAllocs()
	for b.Loop() {
		FromAnswer(a)
	}
}

func BenchmarkFromPrompt(b *testing.B) {
	p := "no, use pnpm, not npm. The lockfile is pnpm-lock.yaml and CI caches it; from now on run `pnpm install --frozen-lockfile` and never commit node_modules."
	b.ReportAllocs()
	for b.Loop() {
		FromPrompt(p)
	}
}

// BenchmarkSupersedesInForce compares one new rule with 5,000 decisions
// in force that share its words, as Prepare does after a turn: "timed"
// when every one of them names a length of time (the worst case for
// otherDuration), "plain" when none does.
func BenchmarkSupersedesInForce(b *testing.B) {
	for _, c := range []struct{ name, older string }{
		{"timed", "The export worker %d retries the upload every %d minutes because the bucket rate-limits bursts of %d files"},
		{"plain", "The export worker %d writes batches to bucket v%d because the bucket rate-limits bursts of %d files"},
	} {
		b.Run(c.name, func(b *testing.B) {
			older := make([]Memory, 5000)
			for i := range older {
				older[i], _ = Stated(KindDecision, fmt.Sprintf(c.older, i, i%7+1, i))
			}
			newer, _ := Stated(KindConstraint, "Uploads from the export worker must hold 30-second leases on the bucket")
			b.ResetTimer()
			for b.Loop() {
				for _, o := range older {
					Supersedes(newer, o)
				}
			}
		})
	}
}
