package rank

import (
	"slices"
	"testing"
	"time"
)

func TestNeutralKeepsTheTextOrder(t *testing.T) {
	cs := []Candidate{{Class: Prompt, Score: -1}, {Class: ToolCall, Score: -3, Importance: 0.3}, {Class: Summary, Score: -2}, {Class: ToolCall, Score: -2}}
	order := Neutral.Reweigh(cs)
	if want := []int{1, 2, 3, 0}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v (text score only, ties in input order)", order, want)
	}
	if cs[0].Score != -1 || cs[1].Score != -3 {
		t.Fatalf("neutral weights changed scores: %+v", cs)
	}
	if Neutral.Reorders() || !Default.Reorders() {
		t.Fatal("Reorders: neutral must not reorder, the default must")
	}
}

func TestDefaultWeighsWhatARowIs(t *testing.T) {
	// Equal text scores: a prompt (×3) beats a summary (×2), which beats
	// a failing tool call (1 + 1×(1.0−0.5) = ×1.5), which beats a read
	// (1 + 1×(0.3−0.5) = ×0.8).
	cs := []Candidate{
		{Class: ToolCall, Score: -1, Importance: 0.3}, // a read
		{Class: ToolCall, Score: -1, Importance: 1.0}, // a failure
		{Class: Summary, Score: -1},
		{Class: Prompt, Score: -1},
	}
	order := Default.Reweigh(cs)
	if want := []int{3, 2, 1, 0}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i, want := range []float64{-0.8, -1.5, -2, -3} {
		if got := cs[i].Score; got < want-1e-9 || got > want+1e-9 {
			t.Errorf("candidate %d scored %v, want %v", i, got, want)
		}
	}
}

func TestRecencyCountsFromTheNewestCandidate(t *testing.T) {
	w := Weights{Prompt: 1, Summary: 1, Recency: 1, HalfLife: 24 * time.Hour}
	now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	cs := []Candidate{
		{Class: Prompt, Score: -1, At: now.Add(-24 * time.Hour)}, // one half-life old: ×1.5
		{Class: Prompt, Score: -1, At: now},                      // the newest: ×2
		{Class: Prompt, Score: -1},                               // no time: ×1
	}
	order := w.Reweigh(cs)
	if want := []int{1, 0, 2}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if cs[0].Score != -1.5 || cs[1].Score != -2 || cs[2].Score != -1 {
		t.Fatalf("scores %v %v %v, want -1.5 -2 -1", cs[0].Score, cs[1].Score, cs[2].Score)
	}
	if !w.Dated() || Default.Dated() {
		t.Fatal("Dated: only weights with recency and a half-life need times")
	}
}

func TestNegativeWeightsNeverInvert(t *testing.T) {
	// An importance weight of 3 makes a read's multiplier 1 + 3×(−0.2) =
	// 0.4 and a weight of 10 would make it negative: it is floored at 0,
	// so a worse text match never overtakes a better one by sign.
	w := Weights{Prompt: 1, Summary: 1, Importance: 10}
	cs := []Candidate{{Class: ToolCall, Score: -5, Importance: 0.3}, {Class: ToolCall, Score: -1, Importance: 0.5}}
	w.Reweigh(cs)
	if cs[0].Score != 0 {
		t.Fatalf("a negative multiplier gave %v, want 0", cs[0].Score)
	}
}

func TestListDepth(t *testing.T) {
	for _, c := range []struct {
		name string
		w    Weights
		want int
		got  int
	}{
		{"neutral lists what is asked", Neutral, 10, 10},
		{"a ranking lists Depth", Default, 10, Depth},
		{"a deep page lists itself", Default, 200, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.w.ListDepth(c.want); got != c.got {
				t.Fatalf("ListDepth(%d) = %d, want %d", c.want, got, c.got)
			}
		})
	}
}

func TestFuse(t *testing.T) {
	text := []Key{{"observation", 1}, {"prompt", 2}, {"observation", 3}}
	sem := []Key{{"observation", 3}, {"summary", 4}, {"observation", 1}}
	got := Fuse(text, sem)
	// 1 and 3 are in both lists (1/61 + 1/63 each): first, in the order
	// they first appear; then 2 (text, rank 2) before 4 (semantic, rank 2).
	want := []Fused{{List: 0, Index: 0}, {List: 0, Index: 2}, {List: 0, Index: 1}, {List: 1, Index: 1}}
	if len(got) != len(want) {
		t.Fatalf("fused %d hits, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].List != want[i].List || got[i].Index != want[i].Index {
			t.Fatalf("hit %d is list %d index %d, want list %d index %d (%+v)", i, got[i].List, got[i].Index, want[i].List, want[i].Index, got)
		}
	}
	if both := 1.0/61 + 1.0/63; got[0].Score != both {
		t.Fatalf("a hit in both lists scored %v, want %v", got[0].Score, both)
	}
	if len(Fuse()) != 0 || len(Fuse(nil, nil)) != 0 {
		t.Fatal("fusing nothing gave hits")
	}
}
