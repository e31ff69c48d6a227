//go:build unix

package soak

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
)

// semanticOn points the worker's embeddings at a loopback fake of
// the embeddings endpoint that records every text it is sent.
func semanticOn(t *testing.T, p *Proc) *embedtest.Server {
	t.Helper()
	fake := embedtest.New(32)
	t.Cleanup(fake.Close)
	fake.Record()
	req, _ := http.NewRequest(http.MethodPut, p.URL+"/api/settings", strings.NewReader(`{"embeddings":{"url":"`+fake.URL+`","model":"soak","dimensions":32}}`))
	req.Header.Set("Content-Type", "application/json")
	p.Authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("PUT the embeddings settings: %v %v", resp, err)
	}
	resp.Body.Close()
	return fake
}

// waitEmbedded waits until the worker's indexer embedded every stored
// row (and at least one).
func waitEmbedded(t *testing.T, p *Proc) {
	t.Helper()
	var last Health
	deadline := time.Now().Add(180 * time.Second)
	for {
		h, err := p.Health()
		if err == nil {
			last = h
			if e := h.Embeddings; e.State == "ok" && e.Total > 0 && e.Embedded == e.Total {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the indexer did not drain: %+v", last.Embeddings)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
