// Package rank is how search orders what matched, apart from the SQL that
// finds it: the weights of a ranked search (what a row is, how important
// a tool call is, how recent it is) and the reciprocal rank fusion of a
// full-text and a semantic list. It imports the standard library only, so
// it is tested without a database; models loads the rows and their
// features and asks it for the order.
package rank

import (
	"math"
	"sort"
	"time"
)

// Class is what a hit is, for its weight.
type Class int

const (
	ToolCall Class = iota
	Prompt
	Summary
)

// Weights weigh a ranked hit's text score. Every multiplier is 1 for "as
// bm25 says"; Neutral has them all at 1.
type Weights struct {
	// Prompt and Summary multiply the score of a prompt and a summary
	// (a tool call's is 1).
	Prompt, Summary float64
	// Importance multiplies a tool call's score by 1 + Importance ×
	// (importance − 0.5), the call's importance (0 to 1) as ingest gives
	// it.
	Importance float64
	// Recency multiplies a score by 1 + Recency × 0.5^(age/HalfLife),
	// age counted back from the newest candidate of the search (not the
	// clock: the same data ranks the same way tomorrow).
	Recency  float64
	HalfLife time.Duration
}

// Default is the ranking search uses, tuned on the tuning half of the
// relevance benchmark (eval/search) only.
//
// The sweep (eval/search TestTuneRanking) found a plateau of nDCG@10 for
// prompts ×2 to ×4, summaries ×1.5 to ×2.5 and Importance 0.5 to 1.5;
// this is its middle. Recency did not help on the tuning half (its best
// settings all have it at 0), so it is off: a knob, not a default.
var Default = Weights{Prompt: 3, Summary: 2, Importance: 1, Recency: 0, HalfLife: 7 * 24 * time.Hour}

// Neutral orders ranked hits by their text score alone.
var Neutral = Weights{Prompt: 1, Summary: 1, Importance: 0, Recency: 0, HalfLife: time.Hour}

// Depth is how many of each table's best text matches are reranked: a
// match beyond it cannot reach the page however it is weighed. It is
// also the depth below which paging is consistent (a deeper page reranks
// a longer list).
const Depth = 60

// Reorders tells whether w changes the text score's order at all.
func (w Weights) Reorders() bool { return w != Neutral }

// Dated tells whether w weighs recency, so a candidate's time is needed.
func (w Weights) Dated() bool { return w.Recency != 0 && w.HalfLife > 0 }

// ListDepth is how many matches per table a ranked search of want hits
// lists: want itself when w reorders nothing.
func (w Weights) ListDepth(want int) int {
	if !w.Reorders() {
		return want
	}
	return max(want, Depth)
}

// Candidate is a text match before it is weighed: Score is its text
// rank (lower is better, −bm25), Importance a tool call's and At when it was stored (zero when unknown or not needed).
type Candidate struct {
	Class      Class
	Score      float64
	Importance float64
	At         time.Time
}

// Reweigh multiplies each candidate's Score by its weight under w and
// returns the order of the candidates, best first; ties keep their order.
func (w Weights) Reweigh(cs []Candidate) []int {
	if w.Reorders() {
		var newest time.Time
		for _, c := range cs {
			if c.At.After(newest) {
				newest = c.At
			}
		}
		for i := range cs {
			cs[i].Score *= max(w.multiplier(cs[i], newest), 0)
		}
	}
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cs[order[a]].Score < cs[order[b]].Score })
	return order
}

func (w Weights) multiplier(c Candidate, newest time.Time) float64 {
	m := 1.0
	switch c.Class {
	case Prompt:
		m = w.Prompt
	case Summary:
		m = w.Summary
	case ToolCall:
		m = 1 + w.Importance*(c.Importance-0.5)
	}
	if w.Dated() && !c.At.IsZero() {
		age := newest.Sub(c.At)
		m *= 1 + w.Recency*math.Exp2(-float64(age)/float64(w.HalfLife))
	}
	return m
}

// rrfK is reciprocal rank fusion's constant: a hit at rank r (from 1) of a
// list adds 1/(rrfK+r) to its fused score.
const rrfK = 60

// Key names a hit across lists.
type Key struct {
	Type string
	ID   int64
}

// Fused is one hit of Fuse: where it first appears (List, Index) and its
// fused score.
type Fused struct {
	List, Index int
	Score       float64
}

// Fuse merges ranked lists by reciprocal rank fusion: each hit scores the
// sum of 1/(rrfK+rank) over the lists it is in, best first (ties: the
// order of first appearance, earlier lists first).
func Fuse(lists ...[]Key) []Fused {
	var out []Fused
	at := map[Key]int{}
	for l, keys := range lists {
		for r, k := range keys {
			i, ok := at[k]
			if !ok {
				i = len(out)
				at[k] = i
				out = append(out, Fused{List: l, Index: r})
			}
			out[i].Score += 1 / float64(rrfK+r+1)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}
