package embed_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// seed opens a store of the matrix's backend holding a few prompts and
// tool calls of one project.
func seed(t *testing.T) *models.Store {
	t.Helper()
	s := testutil.OpenStore(t, t.TempDir())
	t.Cleanup(func() { s.Close() })
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	err := s.Writer.Do(context.Background(), func(tx *models.Tx) error {
		sess, err := tx.EnsureSession(&models.Session{ClaudeSessionID: "s1", Project: "gw", StartedAt: at})
		if err != nil {
			return err
		}
		for i, p := range []string{"users are logged out right after login", "add a rate limit per IP", "the hugo build fails"} {
			if _, err := tx.RecordPrompt(sess.ID, "gw", "", p, false, at.Add(time.Duration(i)*time.Minute)); err != nil {
				return err
			}
		}
		for i, o := range []string{"POST /session returned 401 after the cookie change", "token bucket limiter", "template for shortcode youtube not found"} {
			obs := &models.Observation{SessionID: sess.ID, Project: "gw", ToolName: "Bash", Kind: models.KindBash, Title: o,
				Output: o, Files: []string{}, Success: true, Importance: 0.5, CreatedAt: at.Add(time.Duration(10+i) * time.Minute)}
			if _, err := tx.InsertObservation(obs); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIndexerBackfillsRetriesAndReembeds: with the endpoint down, or
// answering the wrong dimensions or garbage, the indexer reports a clear
// error and stores nothing (every row stays pending); once it answers,
// the backlog is embedded; a new model embeds everything again.
func TestIndexerBackfillsRetriesAndReembeds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := seed(t)
	fake := embedtest.New(32)
	defer fake.Close()
	client := &embed.Client{BaseURL: fake.URL, Model: "m1", Dims: 32, HTTP: &http.Client{Timeout: 500 * time.Millisecond}}
	ix := &embed.Indexer{Store: s, Client: client, Log: quiet(), Batch: 2, Idle: 10 * time.Millisecond, MinBackoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	for _, tc := range []struct {
		mode embedtest.Mode
		want error
	}{{embedtest.Failing, embed.ErrStatus}, {embedtest.WrongDims, embed.ErrDims}, {embedtest.Garbage, embed.ErrGarbage}} {
		fake.SetMode(tc.mode)
		n, err := ix.Once(ctx)
		if !errors.Is(err, tc.want) || n != 0 {
			t.Fatalf("mode %d: stored %d, err %v; want %v", tc.mode, n, err, tc.want)
		}
	}
	fake.SetMode(embedtest.Failing)
	go ix.Run(ctx)
	waitFor(t, "the failure in the status", func() bool {
		st, err := ix.Status(ctx)
		return err == nil && strings.Contains(st.LastError, "503") && st.Done == 0 && st.Total == 6
	})
	before := fake.Texts.Load()
	fake.SetMode(embedtest.OK)
	waitFor(t, "the backlog embedded", func() bool {
		st, err := ix.Status(ctx)
		return err == nil && st.Done == 6 && st.LastError == ""
	})
	if n := fake.Texts.Load() - before; n != 6 {
		t.Errorf("embedded %d texts for 6 rows: each once", n)
	}
	cancel()

	// Another model: everything again.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	ix2 := &embed.Indexer{Store: s, Client: &embed.Client{BaseURL: fake.URL, Model: "m2", Dims: 32}, Log: quiet(), Idle: 10 * time.Millisecond}
	go ix2.Run(ctx2)
	waitFor(t, "the new model's vectors", func() bool {
		st, err := ix2.Status(ctx2)
		return err == nil && st.Done == 6
	})
}

// TestSearcherModes: hybrid finds what text cannot (a question in plain
// words), semantic answers from vectors alone, and when the endpoint is
// slow or down hybrid answers with text alone (saying so) while semantic
// returns the error.
func TestSearcherModes(t *testing.T) {
	ctx := context.Background()
	s := seed(t)
	fake := embedtest.New(64)
	defer fake.Close()
	client := &embed.Client{BaseURL: fake.URL, Model: "m", Dims: 64}
	ix := &embed.Indexer{Store: s, Client: client, Log: quiet(), Batch: 100}
	if n, err := ix.Once(ctx); err != nil || n != 6 {
		t.Fatalf("embedded %d: %v", n, err)
	}
	sr := &embed.Searcher{Store: s, Client: client, Log: quiet(), Budget: 300 * time.Millisecond}
	q := models.SearchQuery{Q: "why was the user logged out after the cookie change", Limit: 3}
	text, ran, err := sr.Search(ctx, q, embed.ModeText)
	if err != nil || len(text) != 0 || ran.Mode != embed.ModeText {
		t.Fatalf("text: %v %+v %v (every word must match: nothing)", text, ran, err)
	}
	hyb, ran, err := sr.Search(ctx, q, embed.ModeHybrid)
	if err != nil || ran.FellBack(embed.ModeHybrid) || ran.Words != nil || len(hyb) == 0 {
		t.Fatalf("hybrid: %v %+v %v", hyb, ran, err)
	}
	if !strings.Contains(hyb[0].Title+hyb[0].Snippet, "logged out") && !strings.Contains(hyb[0].Title, "cookie") {
		t.Errorf("hybrid's first hit: %+v", hyb[0])
	}
	sem, _, err := sr.Search(ctx, q, embed.ModeSemantic)
	if err != nil || len(sem) == 0 {
		t.Fatalf("semantic: %v %v", sem, err)
	}

	q = models.SearchQuery{Q: "cookie", Limit: 3}
	want, _ := s.Search(ctx, q)
	for _, mode := range []embedtest.Mode{embedtest.Slow, embedtest.Failing} {
		fake.SetMode(mode)
		got, ran, err := sr.Search(ctx, q, embed.ModeHybrid)
		if err != nil || !ran.FellBack(embed.ModeHybrid) || len(got) != len(want) || got[0].ID != want[0].ID {
			t.Errorf("mode %d: hybrid = %v, ran %+v, %v; want the text hits %v", mode, got, ran, err, want)
		}
		if _, _, err := sr.Search(ctx, q, embed.ModeSemantic); err == nil {
			t.Errorf("mode %d: semantic answered without the endpoint", mode)
		}
	}
	sr.Client = &embed.Client{BaseURL: embedtest.DownURL(), Model: "m", Dims: 64}
	if got, ran, err := sr.Search(ctx, q, embed.ModeHybrid); err != nil || !ran.FellBack(embed.ModeHybrid) || len(got) == 0 {
		t.Errorf("down: %v %+v %v", got, ran, err)
	}
}

// TestServiceSettingsBeforeStart: settings applied before Start (on
// PostgreSQL another replica's change can arrive while the worker is being
// built) do not keep Start, given the same settings, from starting the
// indexer: the rows are embedded.
func TestServiceSettingsBeforeStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := seed(t)
	fake := embedtest.New(32)
	defer fake.Close()
	svc := &embed.Service{Store: s, Log: quiet(), Options: embed.Options{Idle: 10 * time.Millisecond}}
	defer svc.Stop()
	cfg := models.EmbeddingsSettings{URL: fake.URL, Model: "m1", Dimensions: 32}
	svc.Apply(cfg)
	svc.Start(ctx, cfg)
	waitFor(t, "the rows embedded", func() bool {
		st, err := svc.Status(ctx)
		return err == nil && st.State == "ok" && st.Embedded == 6
	})
}
