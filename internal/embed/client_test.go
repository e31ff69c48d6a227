package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
)

func TestEmbed(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(16)
	defer fake.Close()
	c := &Client{BaseURL: fake.URL, Model: "fake", Dims: 16}
	vs, err := c.Embed(context.Background(), []string{"refund bug", "refunded twice", "hugo shortcode"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 {
		t.Fatalf("%d vectors", len(vs))
	}
	for i, v := range vs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if len(v) != 16 || math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d: %d values, norm² %v; want 16, 1", i, len(v), n)
		}
	}
	// Deterministic: the same text, the same vector.
	again, err := c.Embed(context.Background(), []string{"refund bug"})
	if err != nil || !equal(again[0], vs[0]) {
		t.Errorf("same text, other vector: %v", err)
	}
	// /v1 in the base URL is not doubled.
	c.BaseURL = fake.URL + "/v1/"
	if _, err := c.Embed(context.Background(), []string{"x"}); err != nil {
		t.Errorf("base ending in /v1: %v", err)
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEmbedFailures: each way an endpoint goes wrong is a clear error of
// its kind, never vectors, and never shows the key.
func TestEmbedFailures(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(8)
	defer fake.Close()
	const key = "sk-test-secret-4242"
	for _, tc := range []struct {
		name string
		mode embedtest.Mode
		url  string
		dims int
		want error
		text string
	}{
		{"down", embedtest.OK, embedtest.DownURL(), 8, ErrUnreachable, "did not answer"},
		{"slow", embedtest.Slow, fake.URL, 8, ErrUnreachable, "did not answer"},
		{"wrong dimensions", embedtest.WrongDims, fake.URL, 8, ErrDims, "7 values, want 8"},
		{"dimensions setting wrong", embedtest.OK, fake.URL, 384, ErrDims, "8 values, want 384"},
		{"garbage", embedtest.Garbage, fake.URL, 8, ErrGarbage, "502 bad gateway"},
		{"failing", embedtest.Failing, fake.URL, 8, ErrStatus, "503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake.SetMode(tc.mode)
			defer fake.SetMode(embedtest.OK)
			c := &Client{BaseURL: tc.url, Model: "fake", Dims: tc.dims, Key: key, HTTP: &http.Client{Timeout: 200 * time.Millisecond}}
			vs, err := c.Embed(context.Background(), []string{"a", "b"})
			if !errors.Is(err, tc.want) || vs != nil {
				t.Fatalf("err = %v, vectors %v; want %v", err, vs, tc.want)
			}
			if !strings.Contains(err.Error(), tc.text) || strings.Contains(err.Error(), key) {
				t.Errorf("error %q: want it to say %q, and never the key", err, tc.text)
			}
		})
	}
}

func TestUnitRefusesGarbageValues(t *testing.T) {
	t.Parallel()
	for _, v := range [][]float64{{0, 0}, {math.NaN(), 1}, {math.Inf(1), 0}} {
		if _, err := unit(v); err == nil {
			t.Errorf("%v: want an error", v)
		}
	}
}

// TestEndpointForms: the base URL, the base with /v1, and the whole
// endpoint URL as providers' docs print it all post to the one endpoint.
func TestEndpointForms(t *testing.T) {
	t.Parallel()
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[{"index":0,"embedding":[0.6,0.8]}]}`)
	}))
	defer srv.Close()
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + "/v1/embeddings", srv.URL + "/v1/embeddings/"} {
		c := &Client{BaseURL: base, Model: "m", Dims: 2, HTTP: srv.Client()}
		if _, err := c.Embed(context.Background(), []string{"x"}); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
	for i, p := range paths {
		if p != "/v1/embeddings" {
			t.Errorf("request %d went to %s, want /v1/embeddings", i, p)
		}
	}
	if len(paths) != 5 {
		t.Errorf("%d requests, want 5", len(paths))
	}
}
