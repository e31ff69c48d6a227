package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// API is how the tools reach the worker: one request to its JSON API,
// answered with the body of a 200, or an error that carries the worker's
// message (a 400's reason, a 404's "not found").
type API interface {
	Do(ctx context.Context, method, path string, body []byte) ([]byte, error)
}

// HTTPAPI is an API over HTTP: the data directory's unix socket (Token
// empty; the owner needs no credentials) or a worker's TCP address with
// its secret as the bearer token.
type HTTPAPI struct {
	// Base is the URL the paths are appended to, e.g. "http://mneme".
	Base   string
	Client *http.Client
	// Token is sent as "Authorization: Bearer …" when set. It never
	// appears in an error.
	Token string
	// Where names the worker in messages: "on /home/u/.mneme/mneme.sock".
	Where string
}

// UnreachableError is a request that got no answer from the worker.
type UnreachableError struct {
	Where string
	Err   error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the mneme worker is not reachable %s (start it with `mneme serve`): %v", e.Where, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// StatusError is an answer other than 200, with the worker's message.
type StatusError struct {
	Status  int
	Message string
}

func (e *StatusError) Error() string { return e.Message }

// maxAnswer bounds what is read of one answer.
const maxAnswer = 32 << 20

// Do sends one request and returns the body of a 200 answer.
func (a HTTPAPI) Do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	resp, err := a.Client.Do(req)
	if err != nil {
		return nil, &UnreachableError{Where: a.Where, Err: err}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, &UnreachableError{Where: a.Where, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		msg := fmt.Sprintf("the worker answered %d", resp.StatusCode)
		if json.Unmarshal(out, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return nil, &StatusError{Status: resp.StatusCode, Message: msg}
	}
	return out, nil
}
