package models

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/internal/searchq"
)

// TestPhrasePairsPG: the pair index never loses a phrase match. Over
// random texts of a small vocabulary with stopwords (so pairs repeat,
// words repeat, and stopwords leave gaps), every phrase query finds on
// PostgreSQL exactly the rows to_tsquery's @@ matches, and every row @@
// matches passes mneme_pairs' prefilter, which lets through far fewer
// rows than hold the words. Also a text too big for its pairs (indexed
// as '~all') is still found, and a pair too long for a lexeme (left out
// on both sides) neither fails the insert nor the prefilter.
func TestPhrasePairsPG(t *testing.T) {
	t.Parallel()
	s := openPGTestStore(t)
	ctx := context.Background()
	vocab := strings.Fields("broker http stream the of a running runs event go test models json is to timeout retry")
	r := rand.New(rand.NewPCG(3, 4))
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	// 70,000 distinct words, each once: their pairs (1 MB) do not
	// fit in a tsvector, the words (0.5 MB) do.
	big := make([]string, 70000)
	for i := range big {
		big[i] = fmt.Sprintf("w%05dx", i)
	}
	r.Shuffle(len(big), func(i, j int) { big[i], big[j] = big[j], big[i] })
	long1, long2 := "q"+strings.Repeat("ab", 550), "z"+strings.Repeat("cd", 550)
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		sess, err := tx.EnsureSession(&Session{ClaudeSessionID: "pairs", Project: "p", StartedAt: base})
		if err != nil {
			return err
		}
		for i := range 300 {
			if _, err := tx.InsertObservation(&Observation{SessionID: sess.ID, Project: "p", ToolName: "Bash", Kind: KindBash,
				Title: text(4), Input: text(5), Output: text(25), CreatedAt: base.Add(time.Duration(i) * time.Second)}); err != nil {
				return err
			}
		}
		for _, out := range []string{strings.Join(big, " "), "before " + long1 + " " + long2 + " after"} {
			if _, err := tx.InsertObservation(&Observation{SessionID: sess.ID, Project: "p", ToolName: "Read", Kind: KindRead,
				Title: "special", Output: out, CreatedAt: base.Add(time.Hour)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each row's pairs, computed once (mneme_pairs is IMMUTABLE, a pure
	// function of fts): the checks below read them for every query, and
	// computing them again for the 70,000-word row each time was most of
	// the test's time.
	if err := s.db.Exec(`CREATE TABLE pairs_check AS SELECT id, fts, mneme_pairs(fts) AS pairs FROM observations`).Error; err != nil {
		t.Fatal(err)
	}
	var marker bool
	if err := s.db.Raw(`SELECT bool_or(pairs = '''~all'''::tsvector) FROM pairs_check`).Row().Scan(&marker); err != nil || !marker {
		t.Fatalf("the big text's pairs: marker %v, %v; want '~all'", marker, err)
	}
	queries := []string{`"` + big[100] + " " + big[101] + `"`, `"` + long1 + " " + long2 + `"`, `"before ` + long1 + `"`}
	for range 40 {
		a, b, c := vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))]
		queries = append(queries, `"`+a+" "+b+`"`, `"`+a+" "+b+" "+c+`"`, `"`+a+" "+b[:min(3, len(b))]+`"*`)
	}
	queries = append(queries, `title:"broker http"`, `"broker http" stream`, `"broker http" NOT "event go"`,
		`"the running"`, `"running the event"`, `"the of"`, `"go test" OR "json timeout"`)
	narrowed := 0
	for _, q := range queries {
		tree, err := searchq.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		ts, err := tree.Render(pgColumnWeights[SearchObservation])
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var want []int64
		if err := s.db.Raw(`SELECT id FROM observations WHERE fts @@ to_tsquery('english', ?) ORDER BY id`, ts).Scan(&want).Error; err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			want = []int64{}
		}
		if len(q) <= searchq.MaxLen { // not the pair too long for a lexeme: only the SQL below
			hits, err := s.Search(ctx, SearchQuery{Q: q, Type: SearchObservation, Limit: 1000})
			if err != nil {
				t.Fatalf("Search(%s): %v", q, err)
			}
			got := []int64{}
			for _, h := range hits {
				got = append(got, h.ID)
			}
			slices.Sort(got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Search(%s) = %v, want the %d rows @@ matches: %v", q, got, len(want), want)
			}
		} else if len(want) != 1 {
			t.Errorf("%.30s…: %d rows match, want the one", q, len(want))
		}
		if ph := tree.Phrases(); len(ph) > 0 {
			var lost, passed, words int
			if err := s.db.Raw(`SELECT count(*) FILTER (WHERE fts @@ q AND NOT COALESCE(pairs @@ p, true)),
					count(*) FILTER (WHERE pairs @@ p), count(*) FILTER (WHERE fts @@ replace(q::text, '<->', '&')::tsquery)
				FROM pairs_check, to_tsquery('english', ?) q, mneme_phrase_pairs(?::text[]) p`, ts, `{"`+strings.Join(ph, `","`)+`"}`).Row().Scan(&lost, &passed, &words); err != nil {
				t.Fatal(err)
			}
			if lost > 0 {
				t.Errorf("%s: %d rows match but fail the pair prefilter", q, lost)
			}
			if passed < words {
				narrowed++
			}
		}
	}
	if narrowed < len(queries)/2 {
		t.Errorf("the prefilter narrowed %d of %d queries below the rows holding their words; want most", narrowed, len(queries))
	}
}
