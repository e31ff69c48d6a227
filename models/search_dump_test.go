package models_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/benchdb"
)

// TestSearchDump writes, when MNEME_SEARCH_DUMP names a file, every hit
// (type, id, order, rank, score, title, snippet) of about 150 searches of
// every shape over the benchmarks' synthetic database — on PostgreSQL
// (benchdb.BuildPostgres; MNEME_BENCH_POSTGRES, MNEME_BENCH_ROWS) when
// MNEME_SEARCH_DUMP_BACKEND=postgres, else SQLite — one JSON line per
// search. Run it on two versions of the code over the same database and
// diff the files: a change meant to make search faster must leave them
// byte for byte the same. Without MNEME_SEARCH_DUMP it is skipped.
func TestSearchDump(t *testing.T) {
	t.Parallel()
	out := os.Getenv("MNEME_SEARCH_DUMP")
	if out == "" {
		t.Skip("MNEME_SEARCH_DUMP is not set")
	}
	var s *models.Store
	var db *benchdb.DB
	if os.Getenv("MNEME_SEARCH_DUMP_BACKEND") == "postgres" {
		pg := benchdb.BuildPostgres(t, benchdb.Rows(t))
		st, err := models.OpenURL(pg.URL, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s, db = st, pg.DB
	} else {
		db = benchdb.Build(t, benchdb.Rows(t))
		st, err := models.Open(db.Dir + "/mneme.db")
		if err != nil {
			t.Fatal(err)
		}
		s = st
	}
	defer s.Close()
	var qs []models.SearchQuery
	for _, c := range searchCases(db) {
		for i, q := range c.qs {
			if i%4 == 0 { // a dozen of each shape
				if !q.From.IsZero() { // the same window all day, whichever run
					q.From = time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -7)
				}
				qs = append(qs, q)
			}
		}
	}
	w := benchdb.Word
	for i := range 4 {
		for _, q := range []string{
			`"` + w(50+i) + " the " + w(60+i) + `"`,             // a stopword inside
			`"` + w(70+i) + " " + w(80 + i)[:3] + `"*`,          // a prefix last word
			`"` + w(50+i) + " " + w(60+i) + `" ` + w(300+i),     // a phrase AND a word
			`"` + w(20+i) + " " + w(21+i) + `" NOT ` + w(40+i),  // NOT
			`"` + w(50+i) + " " + w(60+i) + `" OR ` + w(3000+i), // OR: no prefilter
			`title:"` + w(20+i) + " " + w(30+i) + `"`,           // a column
			`"` + w(5+i) + " " + w(6+i) + " " + w(7+i) + `"`,    // common words, three
			`"the of"`, // stopwords only
		} {
			qs = append(qs, models.SearchQuery{Q: q, Limit: 20}, models.SearchQuery{Q: q, Limit: 10, Offset: 10, Type: models.SearchObservation})
		}
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, q := range qs {
		hits, err := s.Search(context.Background(), q)
		line := map[string]any{"query": q, "hits": hits}
		if err != nil {
			line["error"] = err.Error()
			if !strings.Contains(err.Error(), "took longer") {
				t.Errorf("%+v: %v", q, err)
			}
		}
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d searches written to %s", len(qs), out)
}
