// Package embed speaks the OpenAI-compatible embeddings endpoint
// (POST {base}/v1/embeddings), which Ollama, LM Studio, llama.cpp's
// server, vLLM, OpenAI, Voyage and others serve, and turns what it answers
// into unit vectors for mneme's search by meaning.
package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
)

// Client calls one embeddings endpoint with one model.
type Client struct {
	// BaseURL is the endpoint's root, e.g. http://127.0.0.1:11434 for
	// Ollama; "/v1/embeddings" is appended (a BaseURL already ending in
	// /v1 gets "/embeddings", one ending in /embeddings is used as it is).
	BaseURL string
	Model   string
	// Dims is the length every vector must have (0: whatever the first
	// answer says, then always that). Models that can shorten their
	// vectors (OpenAI's text-embedding-3) are asked for Dims.
	Dims int
	// Key, when set, is sent as a bearer token. It is never logged nor
	// put into an error.
	Key string
	// HTTP is the client used (nil: one with a 30 s timeout).
	HTTP *http.Client
}

// Errors of an endpoint that answered, or did not; each wraps one of
// these so callers (health, settings) can tell them apart.
var (
	ErrUnreachable = errors.New("the embeddings endpoint did not answer")
	ErrStatus      = errors.New("the embeddings endpoint refused the request")
	ErrGarbage     = errors.New("the embeddings endpoint answered something that is not embeddings")
	ErrDims        = errors.New("the embeddings endpoint answered vectors of the wrong length")
)

// maxAnswer bounds the answer read: 256 texts × 4,096 dims as JSON
// numbers is about 25 MB.
const maxAnswer = 64 << 20

type request struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
}

// Embed returns one unit vector per text, in order. An answer with a
// vector missing, out of order (by index), of the wrong length, or with a
// value that is not a finite number is an error: nothing half-right is
// returned.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(request{Model: c.Model, Input: texts, Dimensions: c.dimsParam()})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, c.endpoint(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, c.endpoint(), scrub(err.Error(), c.Key))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, c.endpoint(), err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s answered %s: %s", ErrStatus, c.endpoint(), resp.Status, scrub(excerpt(raw), c.Key))
	}
	if len(raw) > maxAnswer {
		return nil, fmt.Errorf("%w: the answer is larger than %d MB", ErrGarbage, maxAnswer>>20)
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%w: %v: %s", ErrGarbage, err, scrub(excerpt(raw), c.Key))
	}
	if len(r.Data) != len(texts) {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrGarbage, len(r.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, d := range r.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: vector index %d is missing, repeated or out of range", ErrGarbage, d.Index)
		}
		want := c.Dims
		if want == 0 {
			want = len(r.Data[0].Embedding)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) != want {
			return nil, fmt.Errorf("%w: %d values, want %d (the model's dimensions setting must match the model)", ErrDims, len(d.Embedding), want)
		}
		v, err := unit(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("%w: vector %d: %v", ErrGarbage, i, err)
		}
		out[d.Index] = v
	}
	return out, nil
}

// endpoint is the URL posted to.
func (c *Client) endpoint() string {
	base := strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	if strings.HasSuffix(base, "/embeddings") { // the whole URL, as providers' docs print it
		return base
	}
	if strings.HasSuffix(base, "/v1") {
		return base + "/embeddings"
	}
	return base + "/v1/embeddings"
}

// dimsParam is the dimensions asked for: only OpenAI's text-embedding-3
// models take the parameter; others refuse or ignore it.
func (c *Client) dimsParam() int {
	if strings.HasPrefix(c.Model, "text-embedding-3") {
		return c.Dims
	}
	return 0
}

// unit scales v to length 1 as float32; a zero, infinite or NaN vector
// is refused.
func unit(v []float64) ([]float32, error) {
	var n float64
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("a value is not a finite number")
		}
		n += x * x
	}
	n = math.Sqrt(n)
	if n == 0 || math.IsInf(n, 0) {
		return nil, errors.New("the vector has no direction (all zeros)")
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out, nil
}

// excerpt is the start of an answer, for an error message.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// scrub removes the key from s, should an endpoint echo it.
func scrub(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[REDACTED:key]")
}
