package models

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestVectorIndex: the in-memory index answers as the SQL scan does within
// every filter; a row forgotten after the index was loaded is never
// returned and the page stays full; vectors stored after it was loaded
// are found once the indexer says so (VectorsChanged); its memory is 36
// bytes plus one per dimension per row.
func TestVectorIndex(t *testing.T) {
	forEachBackend(t, testVectorIndex)
}

func testVectorIndex(t *testing.T, f *searchFixture) {
	ctx := context.Background()
	s := f.s
	rows := embedAll(t, s, "m1")
	keys := func(hits []SearchHit, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f.keys(hits)
	}
	for _, c := range []struct {
		q    SearchQuery
		text string
	}{
		{SearchQuery{Limit: 20}, "flaky websocket reconnect timeout"},
		{SearchQuery{Limit: 3, Offset: 2}, "schema migrations"},
		{SearchQuery{Limit: 5, Project: "alpha"}, "websocket reconnect"},
		{SearchQuery{Limit: 5, Project: "nowhere"}, "websocket reconnect"},
		{SearchQuery{Limit: 5, Type: SearchPrompt}, "schema"},
		{SearchQuery{Limit: 5, Tool: "Grep"}, "schema"},
		{SearchQuery{Limit: 5, ExcludeSessionID: f.sessB}, "websocket"},
		{SearchQuery{Limit: 9, From: f.baseTime.AddDate(0, 0, 1), To: f.baseTime.AddDate(0, 0, 4)}, "test"},
		{SearchQuery{Limit: 5, Type: SearchObservation, OnlyIDs: []int64{1, 3, 5, 7}}, "websocket"},
		{SearchQuery{Limit: 5, Type: SearchObservation, OnlyIDs: []int64{}}, "websocket"},
	} {
		vec := unitVector(c.text)
		want := keys(s.semanticScanSQL(ctx, c.q, "m1", vec))
		got := keys(s.SemanticSearch(ctx, c.q, "m1", vec))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v %q: index %v, SQL scan %v", c.q, c.text, got, want)
		}
		if c.q.OnlyIDs != nil && len(c.q.OnlyIDs) > 0 && (len(got) == 0 || len(got) > len(c.q.OnlyIDs)) {
			t.Errorf("OnlyIDs %v: %v", c.q.OnlyIDs, got)
		}
	}
	if n, want := s.VectorIndexBytes("m1"), rows*(vecRowOverhead+64); n != want {
		t.Errorf("index memory %d bytes, want %d", n, want)
	}

	// Forgotten after the index was loaded: never returned, the page
	// still full of the rows that remain.
	q := SearchQuery{Limit: 3}
	before := keys(s.SemanticSearch(ctx, q, "m1", unitVector("flaky websocket reconnect timeout")))
	top := before[0]
	err := s.Writer.Do(ctx, func(tx *Tx) error {
		if top == "p:beta" {
			_, err := tx.ForgetPrompt(f.prompts["beta"], nil)
			return err
		}
		_, err := tx.ForgetObservation(f.obs["ws"], nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the second time, the entry is known dead
		after := keys(s.SemanticSearch(ctx, q, "m1", unitVector("flaky websocket reconnect timeout")))
		// A page of 3 and one more, as Search.
		if len(after) != 4 || !reflect.DeepEqual(after[:3], before[1:]) || after[3] == top {
			t.Errorf("after forgetting %s: %v, want %v first and one more", top, after, before[1:])
		}
	}

	// A row embedded after the index was loaded is found once the
	// background reload has run.
	var id int64
	err = s.Writer.Do(ctx, func(tx *Tx) error {
		o := &Observation{SessionID: f.sessA, Project: "alpha", ToolName: "Bash", Kind: KindBash, Title: "kubernetes pod eviction storm",
			Input: `{}`, Output: "evicted", Files: []string{}, Success: true, Importance: 0.5, CreatedAt: f.baseTime.AddDate(0, 0, 6)}
		if _, err := tx.InsertObservation(o); err != nil {
			return err
		}
		id = o.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	embedAll(t, s, "m1")
	s.VectorsChanged()
	deadline := time.Now().Add(30 * time.Second)
	for {
		hits, err := s.SemanticSearch(ctx, SearchQuery{Limit: 1}, "m1", unitVector("kubernetes pod eviction storm"))
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) > 0 && hits[0].Type == SearchObservation && hits[0].ID == id {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new row is not found after the reload: %+v", hits)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.waitVectorLoads()
}

// TestScanInPartsIsTheSequentialScan: a snapshot large enough to be
// scanned in parallel gives the very candidates one sequential pass
// gives, ties included (many entries share a vector), with and without
// filters, dead entries left out.
func TestScanInPartsIsTheSequentialScan(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	s := openTestStore(t)
	const dims = 16
	rng := rand.New(rand.NewPCG(7, 9))
	n := 5*scanPart + 123
	v := newSnapshot(dims, 1)
	shared := make([][]int8, 50) // few distinct vectors: ties everywhere
	for i := range shared {
		shared[i] = make([]int8, dims)
		for j := range shared[i] {
			shared[i][j] = int8(rng.IntN(255) - 127)
		}
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := range n {
		v.add(int8(i%3), int64(i/3+1), int64(i%7+1), fmt.Sprintf("p%d", i%4), "Bash", at+int64(i)*int64(time.Second), 1, shared[rng.IntN(len(shared))])
	}
	for i := 0; i < n; i += 97 {
		v.dead[i] = true
	}
	q := make([]float32, dims)
	for i := range q {
		q[i] = float32(rng.NormFloat64())
	}
	for _, sq := range []SearchQuery{{}, {Project: "p2"}, {Type: SearchPrompt}, {ExcludeSessionID: 3, From: time.Unix(0, at+int64(n/2)*int64(time.Second))}} {
		for _, want := range []int{1, 21, 500} {
			got := s.scanSnapshot(v, sq, q, want)
			f, ok := v.filterOf(sq)
			if !ok {
				t.Fatalf("%+v: no filter", sq)
			}
			seq := s.scanRange(v, f, q, want, 0, n)
			sortScored(got)
			sortScored(seq)
			if len(got) != want || !slices.Equal(got, seq) {
				t.Fatalf("%+v want %d: the scan in parts gave %d candidates, one pass %d; first differing: %v", sq, want, len(got), len(seq), firstDiff(got, seq))
			}
			for _, c := range got {
				if v.dead[c.at] {
					t.Fatalf("dead entry %d returned", c.at)
				}
			}
		}
	}
}

// firstDiff is the first pair of candidates that differ, for a message.
func firstDiff(a, b []scored) [2]scored {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return [2]scored{a[i], b[i]}
		}
	}
	return [2]scored{}
}
