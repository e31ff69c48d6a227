package models_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/testutil/racebuild"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/benchdb"
)

// TestVectorIndexRecall: over 20,000 observations embedded with each
// family of synthetic vectors (fixed seeds), the index's codes find the
// exact scan's ten nearest (the same store with every vector in memory):
// recall@10 at least the floor with the default candidates, and at
// least the lower floor with 200 (the estimate itself at work), unfiltered
// and within one project of four; on both backends. Uniform vectors are
// the worst case, with floors of their own.
func TestVectorIndexRecall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("20,000 rows a family")
	}
	if racebuild.Enabled {
		// It measures the index's recall, one query at a time: the race
		// detector has nothing to watch in it (the index under concurrent
		// writes is TestVectorIndexGrowsWhileSearched), and it made seeding
		// and scanning 60,000 vectors five minutes of make test's race leg.
		// make test runs it a second time without -race, on both backends.
		t.Skip("no concurrency to check, five minutes under -race: make test runs it without the race detector")
	}
	const rows, queries = 20_000, 25
	for _, c := range []struct {
		fam         benchdb.Family
		floor, f200 float64 // default candidates, 200
	}{
		{benchdb.Clustered, 0.99, 0.85},
		{benchdb.TextLike, 0.99, 0.9},
		{benchdb.Uniform, 0.99, 0.7},
	} {
		t.Run(string(c.fam), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			s := testutil.OpenStore(t, dir)
			defer s.Close()
			projects := seedVectors(t, s, c.fam, rows)
			ref := testutil.OpenStore(t, dir)
			defer ref.Close()
			models.SetVectorIndexLimits(ref, math.MaxInt, 0)
			codes := testutil.OpenStore(t, dir)
			defer codes.Close()
			models.SetVectorIndexLimits(codes, 1000, 200)
			models.SetVectorIndexLimits(s, 1000, 0)
			for _, project := range []string{"", projects[1]} {
				found, found200, total := 0, 0, 0
				for i := range queries {
					q := models.SearchQuery{Limit: 10, Project: project}
					vec := c.fam.Vector(-int64(i) - 1)
					keys := func(st *models.Store) map[string]bool {
						hits, err := st.SemanticSearch(ctx, q, benchdb.VectorModel, vec)
						if err != nil {
							t.Fatal(err)
						}
						out := map[string]bool{}
						for _, h := range hits[:min(10, len(hits))] {
							out[fmt.Sprintf("%s:%d", h.Type, h.ID)] = true
						}
						return out
					}
					exact, got, got200 := keys(ref), keys(s), keys(codes)
					total += len(exact)
					for k := range exact {
						if got[k] {
							found++
						}
						if got200[k] {
							found200++
						}
					}
				}
				recall, recall200 := float64(found)/float64(total), float64(found200)/float64(total)
				t.Logf("%s, project %q: recall@10 %.3f, with 200 candidates %.3f", c.fam, project, recall, recall200)
				if recall < c.floor || recall200 < c.f200 {
					t.Errorf("%s, project %q: recall@10 %.3f (floor %.2f), with 200 candidates %.3f (floor %.2f)", c.fam, project, recall, c.floor, recall200, c.f200)
				}
			}
		})
	}
}

// seedVectors stores rows observations over four projects, each embedded
// with fam's vector of its position, and returns the projects.
func seedVectors(t *testing.T, s *models.Store, fam benchdb.Family, rows int) []string {
	t.Helper()
	ctx := context.Background()
	projects := []string{"p0", "p1", "p2", "p3"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const per = 2000
	for lo := 0; lo < rows; lo += per {
		err := s.Writer.Do(ctx, func(tx *models.Tx) error {
			var items []models.EmbedItem
			var vecs [][]float32
			sessions := map[string]int64{}
			for i := lo; i < min(lo+per, rows); i++ {
				p := projects[i%len(projects)]
				if sessions[p] == 0 {
					sess, err := tx.EnsureSession(&models.Session{ClaudeSessionID: fmt.Sprintf("s%d-%s", i/per, p), Project: p, StartedAt: base})
					if err != nil {
						return err
					}
					sessions[p] = sess.ID
				}
				tool := fmt.Sprintf("t%d", i)
				o := &models.Observation{SessionID: sessions[p], Project: p, ToolUseID: &tool, ToolName: "Bash", Kind: models.KindBash,
					Title: "x", Input: `{}`, Output: "x", Files: []string{}, Success: true, Importance: 0.5, CreatedAt: base.Add(time.Duration(i) * time.Second)}
				if _, err := tx.InsertObservation(o); err != nil {
					return err
				}
				items = append(items, models.EmbedItem{Type: models.SearchObservation, ID: o.ID})
				vecs = append(vecs, fam.Vector(int64(i)+1))
			}
			return tx.SaveEmbeddings(benchdb.VectorModel, items, vecs)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return projects
}
