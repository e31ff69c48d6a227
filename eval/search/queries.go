package searcheval

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/models"
)

//go:embed testdata/*.json
var testdata embed.FS

// Query is one judged query: what a person types, the filters they set,
// and the grade (1 to 3) of each row they would expect first, by key.
type Query struct {
	ID       string         `json:"id"`
	Q        string         `json:"q"`
	Project  string         `json:"project,omitempty"`
	Type     string         `json:"type,omitempty"`
	Relevant map[string]int `json:"relevant"`
}

// Half is one half of the benchmark: tuning or held-out.
type Half struct {
	Name    string  `json:"half"`
	Queries []Query `json:"queries"`
}

// LoadHalf reads testdata/<name>.json (tuning or heldout).
func LoadHalf(name string) (Half, error) {
	var h Half
	b, err := testdata.ReadFile("testdata/" + name + ".json")
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, fmt.Errorf("%s: %w", name, err)
	}
	return h, nil
}

// Searcher answers one query with the stored rows, best first.
type Searcher func(ctx context.Context, q models.SearchQuery) ([]models.SearchHit, error)

// Score is one query's result.
type Score struct {
	Query  Query
	Recall float64
	NDCG   float64
	Top    []string // the keys of the first K hits ("?" for a row outside the corpus)
	Err    error    // a query the search refused scores 0
}

// Result is a half's scores and their means.
type Result struct {
	Half   string
	Scores []Score
	Recall float64
	NDCG   float64
}

// Run searches every query of h (the first K hits) and scores them.
// A key a judgment names that the corpus has not is an error: a typo
// would silently lower the scores.
func Run(ctx context.Context, search Searcher, refs map[string]Ref, h Half) (Result, error) {
	byRef := map[Ref]string{}
	for k, r := range refs {
		byRef[r] = k
	}
	res := Result{Half: h.Name}
	for _, q := range h.Queries {
		for key := range q.Relevant {
			if _, ok := refs[key]; !ok {
				return res, fmt.Errorf("query %s judges %q, which the corpus has not", q.ID, key)
			}
		}
		sc := Score{Query: q}
		hits, err := search(ctx, models.SearchQuery{Q: q.Q, Project: q.Project, Type: q.Type, Limit: K})
		if err != nil {
			sc.Err = err
		}
		for i, hit := range hits {
			if i == K {
				break
			}
			key := byRef[Ref{hit.Type, hit.ID}]
			if key == "" {
				key = "?"
			}
			sc.Top = append(sc.Top, key)
		}
		sc.Recall, sc.NDCG = RecallAt(sc.Top, q.Relevant, K), NDCGAt(sc.Top, q.Relevant, K)
		res.Recall += sc.Recall / float64(len(h.Queries))
		res.NDCG += sc.NDCG / float64(len(h.Queries))
		res.Scores = append(res.Scores, sc)
	}
	return res, nil
}

// Table renders results as a Markdown table, one row per half.
func Table(label string, results ...Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | queries | recall@%d | nDCG@%d | no hit |\n|---|--:|--:|--:|--:|\n", label, K, K)
	for _, r := range results {
		none := 0
		for _, s := range r.Scores {
			if len(s.Top) == 0 {
				none++
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %d |\n", r.Half, len(r.Scores), r.Recall, r.NDCG, none)
	}
	return b.String()
}

// Details lists each query's scores and first hits, for tuning.
func Details(r Result) string {
	var b strings.Builder
	for _, s := range r.Scores {
		fmt.Fprintf(&b, "%s %-40q R=%.2f nDCG=%.2f %v", s.Query.ID, s.Query.Q, s.Recall, s.NDCG, s.Top)
		if s.Err != nil {
			fmt.Fprintf(&b, " err=%v", s.Err)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
