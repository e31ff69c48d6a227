package extract

import (
	"fmt"
	"github.com/mneme-dev/mneme/internal/jsonl"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labelled is one hand-labelled item of testdata/*.jsonl.
type labelled struct {
	ID   string `json:"id"`
	Type string `json:"type"` // "answer" or "prompt"
	Text string `json:"text"`
	Want []struct {
		Kind Kind   `json:"kind"`
		Key  string `json:"key"`
	} `json:"want"`
}

func loadCorpus(t testing.TB, name string) []labelled {
	t.Helper()
	out, err := jsonl.Read[labelled](filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// score counts, for one set of items, extracted memories that match a label
// (same kind, key contained, case-insensitive) and labels found.
type score struct {
	items, extracted, correct, labels, found int
	misses, wrong                            []string
}

func (s score) precision() float64 { return ratio(s.correct, s.extracted) }
func (s score) recall() float64    { return ratio(s.found, s.labels) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func scoreItem(s *score, it labelled, got []Memory) {
	s.items++
	s.extracted += len(got)
	s.labels += len(it.Want)
	matches := func(m Memory, kind Kind, key string) bool {
		return m.Kind == kind && strings.Contains(strings.ToLower(m.Text), strings.ToLower(key))
	}
	for _, m := range got {
		ok := false
		for _, w := range it.Want {
			ok = ok || matches(m, w.Kind, w.Key)
		}
		if ok {
			s.correct++
		} else {
			s.wrong = append(s.wrong, fmt.Sprintf("%s: extra %s %q", it.ID, m.Kind, m.Text))
		}
	}
	for _, w := range it.Want {
		ok := false
		for _, m := range got {
			ok = ok || matches(m, w.Kind, w.Key)
		}
		if ok {
			s.found++
		} else {
			s.misses = append(s.misses, fmt.Sprintf("%s: missed %s %q", it.ID, w.Kind, w.Key))
		}
	}
}

// runCorpus scores one half: answers, prompts and both together.
func runCorpus(t testing.TB, name string) (answers, prompts, all score) {
	for _, it := range loadCorpus(t, name) {
		var got []Memory
		switch it.Type {
		case "answer":
			got = FromAnswer(it.Text)
			scoreItem(&answers, it, got)
		case "prompt":
			got = FromPrompt(it.Text)
			scoreItem(&prompts, it, got)
		default:
			t.Fatalf("%s: %s: unknown type %q", name, it.ID, it.Type)
		}
		scoreItem(&all, it, got)
	}
	return answers, prompts, all
}

// TestExtractionBenchmark scores the extractor on both halves of the
// hand-labelled corpus and prints the table. The floor is strict on the
// tuning half; on the held-out half, which the extractor was never tuned on,
// it is well below the goal (90 % / 90 %) so that an honest miss does not
// break the build: the figures are what to read. With MNEME_EXTRACT_OUT set,
// the table is also written to that file.
func TestExtractionBenchmark(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "| half | part | items | labels | extracted | precision | recall |\n|---|---|---|---|---|---|---|\n")
	halves := map[string]score{}
	for _, name := range []string{"tune.jsonl", "heldout.jsonl"} {
		answers, prompts, all := runCorpus(t, name)
		half := strings.TrimSuffix(name, ".jsonl")
		for _, r := range []struct {
			part string
			s    score
		}{{"answers", answers}, {"prompts", prompts}, {"all", all}} {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.3f | %.3f |\n", half, r.part, r.s.items, r.s.labels, r.s.extracted, r.s.precision(), r.s.recall())
		}
		halves[half] = all
		if testing.Verbose() {
			for _, m := range append(all.misses, all.wrong...) {
				t.Logf("%s %s", half, m)
			}
		}
	}
	t.Log("\n" + b.String())
	if out := os.Getenv("MNEME_EXTRACT_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if s := halves["tune"]; s.items < 60 || s.precision() < 0.9 || s.recall() < 0.9 {
		t.Errorf("tune half: %d items, precision %.3f, recall %.3f; want ≥ 60 items and ≥ 0.9 each", s.items, s.precision(), s.recall())
	}
	if s := halves["heldout"]; s.items < 60 || s.precision() < 0.6 || s.recall() < 0.6 {
		t.Errorf("held-out half: %d items, precision %.3f, recall %.3f; want ≥ 60 items and ≥ 0.6 each", s.items, s.precision(), s.recall())
	}
}
