package searcheval

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// TestTuneRanking sweeps models.SearchRanking on the tuning half only and
// logs the best settings by nDCG@10 (MNEME_SEARCH_TUNE=1; not a check).
// The held-out half is never read here.
func TestTuneRanking(t *testing.T) {
	if os.Getenv("MNEME_SEARCH_TUNE") == "" {
		t.Skip("set MNEME_SEARCH_TUNE=1 to sweep the ranking on the tuning half")
	}
	ctx := context.Background()
	s, refs := build(t)
	h, err := LoadHalf("tuning")
	if err != nil {
		t.Fatal(err)
	}
	type trial struct {
		rk        models.SearchRanking
		ndcg, rec float64
	}
	var trials []trial
	for _, p := range []float64{1, 1.5, 2, 2.5, 3, 4} {
		for _, sm := range []float64{1, 1.5, 2, 2.5, 3, 4} {
			for _, imp := range []float64{0, 0.5, 1, 1.5, 2} {
				for _, rec := range []float64{0, 0.25, 0.5} {
					rk := models.SearchRanking{Prompt: p, Summary: sm, Importance: imp, Recency: rec, HalfLife: 7 * 24 * time.Hour}
					s.Ranking = &rk
					r, err := Run(ctx, s.Search, refs, h)
					if err != nil {
						t.Fatal(err)
					}
					trials = append(trials, trial{rk, r.NDCG, r.Recall})
				}
			}
		}
	}
	sort.SliceStable(trials, func(i, j int) bool { return trials[i].ndcg > trials[j].ndcg })
	var out string
	for _, tr := range trials[:20] {
		out += fmt.Sprintf("prompt %.1f summary %.1f importance %.1f recency %.2f: nDCG %.3f recall %.3f\n",
			tr.rk.Prompt, tr.rk.Summary, tr.rk.Importance, tr.rk.Recency, tr.ndcg, tr.rec)
	}
	t.Logf("best of %d on the tuning half:\n%s", len(trials), out)
}
