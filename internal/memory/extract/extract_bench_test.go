package extract

import (
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
