package searcheval

import (
	"context"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestMetrics checks recall@k and nDCG@k on a case worked out by hand.
func TestMetrics(t *testing.T) {
	grades := map[string]int{"a": 3, "b": 2, "c": 1}
	ranked := []string{"x", "a", "c", "y"}
	// recall: a and c of three relevant rows.
	if got := RecallAt(ranked, grades, 10); math.Abs(got-2.0/3) > 1e-12 {
		t.Errorf("recall = %v, want 2/3", got)
	}
	// DCG = 7/log2(3) + 1/log2(4) = 4.416508 + 0.5 = 4.916508;
	// ideal a,b,c: 7/1 + 3/log2(3) + 1/2 = 9.392789; 4.916508/9.392789 = 0.52343.
	want := (7/math.Log2(3) + 0.5) / (7 + 3/math.Log2(3) + 0.5)
	if got := NDCGAt(ranked, grades, 10); math.Abs(got-want) > 1e-12 || math.Abs(got-0.52343) > 1e-4 {
		t.Errorf("nDCG = %v, want %v (0.52343)", got, want)
	}
	if got := NDCGAt([]string{"a", "b", "c"}, grades, 10); math.Abs(got-1) > 1e-12 {
		t.Errorf("ideal order: nDCG = %v, want 1", got)
	}
	// The cut-off: at k=1 only x counts.
	if got := RecallAt(ranked, grades, 1); got != 0 {
		t.Errorf("recall@1 = %v, want 0", got)
	}
	if got := NDCGAt(nil, grades, 10); got != 0 {
		t.Errorf("nDCG of nothing = %v", got)
	}
}

// TestJudgments checks that the two halves are what the benchmark says:
// at least 30 queries each, no query twice, every judged key in the
// corpus (Run refuses unknown keys; here without a store).
func TestJudgments(t *testing.T) {
	keys := corpusKeys()
	seen := map[string]bool{}
	for _, name := range []string{"tuning", "heldout"} {
		h, err := LoadHalf(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Queries) < 30 {
			t.Errorf("%s: %d queries, want at least 30", name, len(h.Queries))
		}
		for _, q := range h.Queries {
			if seen[q.Q+"\x00"+q.Project+"\x00"+q.Type] {
				t.Errorf("%s: query %q is in the benchmark twice", q.ID, q.Q)
			}
			seen[q.Q+"\x00"+q.Project+"\x00"+q.Type] = true
			if len(q.Relevant) == 0 {
				t.Errorf("%s: no judged row", q.ID)
			}
			for k, g := range q.Relevant {
				if !keys[k] || g < 1 || g > 3 {
					t.Errorf("%s: %q grade %d: unknown key or grade outside 1..3", q.ID, k, g)
				}
			}
		}
	}
}

// build stores the corpus in a fresh store.
func build(t testing.TB) (*models.Store, map[string]Ref) {
	t.Helper()
	s := testutil.OpenStore(t, t.TempDir())
	t.Cleanup(func() { s.Close() })
	refs, err := Build(context.Background(), s, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return s, refs
}

// TestSearchRelevance runs both halves through Store.Search and prints
// the table (make eval-search; MNEME_SEARCH_EVAL_OUT also writes it to a
// file, MNEME_SEARCH_EVAL_DETAILS=1 prints every query's first hits).
// Its assertions are about the benchmark, not a score floor: every
// judged row is stored, and every query is answered without error.
func TestSearchRelevance(t *testing.T) {
	ctx := context.Background()
	s, refs := build(t)
	var table string
	for _, mode := range []struct {
		label string
		rk    models.SearchRanking
	}{
		{"text, bm25 alone (before #26)", models.NeutralRanking},
		{"text, default ranking", models.DefaultRanking},
	} {
		s.Ranking = &mode.rk
		var results []Result
		for _, name := range []string{"tuning", "heldout"} {
			h, err := LoadHalf(name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(ctx, s.Search, refs, h)
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range r.Scores {
				if sc.Err != nil {
					t.Errorf("%s %q: %v", sc.Query.ID, sc.Query.Q, sc.Err)
				}
			}
			if os.Getenv("MNEME_SEARCH_EVAL_DETAILS") != "" {
				t.Logf("%s, %s:\n%s", mode.label, name, Details(r))
			}
			results = append(results, r)
		}
		table += Table(mode.label+" ("+pgtest.Backend()+")", results...) + "\n"
	}
	table += hybridTables(t, s, refs)
	t.Logf("\n%s", table)
	if out := os.Getenv("MNEME_SEARCH_EVAL_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRefundPromptFirst is issue #26's example: searching refund must
// put the prompt that asks about the refund bug among the first three
// (bm25 alone put it 7th on SQLite, under a grep listing, a lint fix and
// another project's SQL count), and first a row a person wants first (the
// prompt, or a summary of the bug: on PostgreSQL, whose stemming finds
// "refunded" too, the turn summary comes first).
func TestRefundPromptFirst(t *testing.T) {
	s, refs := build(t)
	hits, err := s.Search(context.Background(), models.SearchQuery{Q: "refund", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	first := map[Ref]bool{refs["shop1.p1"]: true, refs["shop1.s1"]: true, refs["shop1.final"]: true}
	if len(hits) == 0 || !first[Ref{hits[0].Type, hits[0].ID}] {
		t.Fatalf("first hit for refund = %+v, want the prompt or a summary of the refund bug", hits[:min(len(hits), 1)])
	}
	if s.Postgres() {
		// ts_rank has no IDF and no length normalisation: the longer
		// rows that say refund(ed) many times still outrank the prompt,
		// 10th of 10 even weighed ×3. Not fixed: see eval/search/README.md.
		return
	}
	for i, h := range hits {
		if (Ref{h.Type, h.ID}) == refs["shop1.p1"] {
			if i >= 3 {
				t.Errorf("the prompt about the refund bug is hit %d, want among the first 3", i+1)
			}
			return
		}
	}
	t.Errorf("the prompt about the refund bug is not in the first 10")
}

// hybridTables embeds the corpus and runs both halves in hybrid and
// semantic mode: against the loopback fake (deterministic vectors of
// words and trigrams: it measures the plumbing and partial matching, not
// a real model), or against MNEME_EVAL_EMBEDDINGS_URL with
// MNEME_EVAL_EMBEDDINGS_MODEL, _DIMS and _KEY when set.
func hybridTables(t *testing.T, s *models.Store, refs map[string]Ref) string {
	ctx := context.Background()
	client := &embed.Client{Model: "fake-384", Dims: 384}
	label := "loopback fake"
	if u := os.Getenv("MNEME_EVAL_EMBEDDINGS_URL"); u != "" {
		client.BaseURL, client.Model, client.Key = u, os.Getenv("MNEME_EVAL_EMBEDDINGS_MODEL"), os.Getenv("MNEME_EVAL_EMBEDDINGS_KEY")
		client.Dims, _ = strconv.Atoi(os.Getenv("MNEME_EVAL_EMBEDDINGS_DIMS"))
		label = client.Model + " at " + u
	} else {
		fake := embedtest.New(384)
		t.Cleanup(fake.Close)
		client.BaseURL = fake.URL
	}
	ix := &embed.Indexer{Store: s, Client: client, Batch: 64}
	for {
		n, err := ix.Once(ctx)
		if err != nil {
			t.Fatalf("embedding the corpus with %s: %v", label, err)
		}
		if n == 0 {
			break
		}
	}
	s.Ranking = &models.DefaultRanking
	sr := &embed.Searcher{Store: s, Client: client, Budget: time.Minute}
	var table string
	for _, mode := range []string{embed.ModeHybrid, embed.ModeSemantic} {
		var results []Result
		for _, name := range []string{"tuning", "heldout"} {
			h, err := LoadHalf(name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(ctx, func(ctx context.Context, q models.SearchQuery) ([]models.SearchHit, error) {
				hits, ran, err := sr.Search(ctx, q, mode)
				if ran.FellBack(mode) {
					t.Errorf("%q: fell back to text", q.Q)
				}
				return hits, err
			}, refs, h)
			if err != nil {
				t.Fatal(err)
			}
			if os.Getenv("MNEME_SEARCH_EVAL_DETAILS") != "" {
				t.Logf("%s, %s:\n%s", mode, name, Details(r))
			}
			results = append(results, r)
		}
		table += Table(mode+", "+label+" ("+pgtest.Backend()+")", results...) + "\n"
	}
	return table
}
