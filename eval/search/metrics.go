package searcheval

import (
	"math"
	"sort"
)

// K is the cut-off of both metrics: the first page a person reads.
const K = 10

// RecallAt is the share of the relevant rows (grade > 0) found among
// the first k of ranked; 0 when nothing is relevant.
func RecallAt(ranked []string, grades map[string]int, k int) float64 {
	relevant := 0
	for _, g := range grades {
		if g > 0 {
			relevant++
		}
	}
	if relevant == 0 {
		return 0
	}
	found := 0
	for i, key := range ranked {
		if i == k {
			break
		}
		if grades[key] > 0 {
			found++
		}
	}
	return float64(found) / float64(relevant)
}

// NDCGAt is the normalised discounted cumulative gain of the first k of
// ranked: gain 2^grade−1 discounted by log2(position+1), divided by the
// same sum over the ideal order of grades.
func NDCGAt(ranked []string, grades map[string]int, k int) float64 {
	var dcg float64
	for i, key := range ranked {
		if i == k {
			break
		}
		dcg += gain(grades[key]) / math.Log2(float64(i+2))
	}
	ideal := make([]int, 0, len(grades))
	for _, g := range grades {
		ideal = append(ideal, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	var idcg float64
	for i, g := range ideal {
		if i == k {
			break
		}
		idcg += gain(g) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func gain(grade int) float64 {
	if grade <= 0 {
		return 0
	}
	return math.Exp2(float64(grade)) - 1
}
