// Package hookhttp is the hook client's sender for a team's worker
// (MNEME_URL): each event over HTTP(S) with a person's API token as the
// bearer. It is the one part of the hook client that needs net/http and
// crypto/tls, so it lives apart from package hooks: mneme links it, and
// mneme-hook, which Claude Code starts for every event on a laptop's local
// worker, does not (it hands a remote event to mneme; see cmd/mneme-hook).
package hookhttp

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/internal/hookwire"
)

// Sender sends to the worker at url (scheme, host and an optional path
// prefix) with token as the bearer, through the environment's proxy, one
// connection per request.
func Sender(url, token string) hooks.Sender {
	client := &http.Client{Transport: &http.Transport{
		Proxy:             http.ProxyFromEnvironment,
		DisableKeepAlives: true,
		DialContext:       (&net.Dialer{Timeout: 200 * time.Millisecond}).DialContext,
	}}
	base := strings.TrimRight(url, "/")
	return func(ctx context.Context, method, path string, body []byte) (hooks.Answer, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
		if err != nil {
			return hooks.Answer{}, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return hooks.Answer{}, err
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return hooks.Answer{}, err
		}
		return hooks.Answer{Status: resp.StatusCode, Permanent: resp.Header.Get(hookwire.HeaderPermanent) != "", Body: out}, nil
	}
}
