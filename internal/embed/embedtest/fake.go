// Package embedtest is a loopback fake of the OpenAI-compatible
// embeddings endpoint for tests and the relevance benchmark: deterministic
// vectors, and the ways a real endpoint goes wrong (slow, down, the wrong
// dimensions, garbage).
package embedtest

import (
	"encoding/json"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// Mode is how the fake answers.
type Mode int32

// The fake's modes.
const (
	OK        Mode = iota // vectors of Vector
	Slow                  // vectors, after Delay
	WrongDims             // vectors one value short
	Garbage               // a 200 with a body that is not JSON
	Failing               // 503
)

// Server is a running fake. Its mode can change while it runs.
type Server struct {
	*httptest.Server
	Dims  int
	Delay time.Duration
	mode  atomic.Int32
	// Requests counts the requests answered; Texts the texts embedded.
	Requests, Texts atomic.Int64

	mu        sync.Mutex
	recording bool
	inputs    []string
}

// Record makes the fake keep every text it is sent from now on (see
// Inputs): a test of what reaches the endpoint.
func (s *Server) Record() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recording = true
}

// Inputs are the texts sent since Record, in the order received.
func (s *Server) Inputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.inputs...)
}

// New starts a fake answering vectors of dims values on loopback.
func New(dims int) *Server {
	s := &Server{Dims: dims, Delay: 5 * time.Second}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetMode changes how the fake answers from the next request on.
func (s *Server) SetMode(m Mode) { s.mode.Store(int32(m)) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	s.Requests.Add(1)
	s.mu.Lock()
	if s.recording {
		s.inputs = append(s.inputs, req.Input...)
	}
	s.mu.Unlock()
	mode := Mode(s.mode.Load())
	switch mode {
	case Slow:
		select {
		case <-time.After(s.Delay):
		case <-r.Context().Done():
			return
		}
	case Garbage:
		w.Write([]byte("<html>502 bad gateway</html>"))
		return
	case Failing:
		http.Error(w, `{"error":"model is loading"}`, http.StatusServiceUnavailable)
		return
	}
	dims := s.Dims
	if mode == WrongDims {
		dims--
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	for i, t := range req.Input {
		out.Data = append(out.Data, item{"embedding", i, Vector(req.Model+"\x00"+t, dims)})
	}
	s.Texts.Add(int64(len(req.Input)))
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// DownURL is the address of an endpoint that refuses connections: a
// loopback port that was listening a moment ago.
func DownURL() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "http://127.0.0.1:1"
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// Vector is the fake's embedding of text (model and text, as the fake is
// asked): feature hashing of its lower-cased words (weight 1) and of
// their character trigrams (weight 0.5) into dims buckets, with a sign
// from the hash. It is deterministic, and texts sharing words or parts
// of words (refund, refunded) lie close; it knows no synonyms, so it
// measures the plumbing of the embeddings and partial matching, not what
// a real model adds.
func Vector(text string, dims int) []float32 {
	v := make([]float32, dims)
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[i+1:]
	}
	add := func(s string, w float32) {
		h := fnv.New64a()
		h.Write([]byte(s))
		x := h.Sum64()
		b := int(x % uint64(dims))
		if x>>63 == 1 {
			w = -w
		}
		v[b] += w
	}
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		add("w:"+word, 1)
		p := "^" + word + "$"
		for i := 0; i+3 <= len(p); i++ {
			add("t:"+p[i:i+3], 0.5)
		}
	}
	v[0] += 0.01 // never all zeros, whatever the text
	return v
}
