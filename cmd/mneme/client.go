package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/hooks"
)

// EnvURL names a remote worker (reached over TCP with MNEME_TOKEN as its
// bearer secret) for the CLI commands; unset, they use the data
// directory's socket.
const EnvURL = "MNEME_URL"

// socketBase is the URL the CLI uses over the socket: the host part is
// never dialled.
const socketBase = "http://mneme"

// socketClient is an HTTP client that reaches the worker through the unix
// socket at path, never TCP. timeout 0 means none.
func socketClient(path string) *http.Client {
	return &http.Client{Timeout: time.Second, Transport: socketTransport(path)}
}

func socketTransport(path string) *http.Transport {
	d := &net.Dialer{Timeout: 3 * time.Second}
	return &http.Transport{
		Proxy:                 nil,
		ResponseHeaderTimeout: 30 * time.Second,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", path)
		},
	}
}

// dataDirTransport reaches the worker of dataDir over its socket, wherever
// of hookwire.SocketPaths it listens.
func dataDirTransport(dataDir string) *http.Transport {
	d := &net.Dialer{Timeout: 3 * time.Second}
	return &http.Transport{
		Proxy:                 nil,
		ResponseHeaderTimeout: 30 * time.Second,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return hookwire.DialSocket(ctx, d, dataDir)
		},
	}
}

// remote is how the CLI reaches the worker: over the data directory's
// socket (the owner needs no secret), or, with MNEME_URL set, over TCP with
// MNEME_TOKEN as the bearer secret.
type remote struct {
	base      string
	transport *http.Transport
	token     string
	where     string // for messages: "on /path/mneme.sock" or "at URL"
}

// remote is where the CLI commands find the worker.
func (g *globals) remote() remote {
	if u := strings.TrimRight(os.Getenv(EnvURL), "/"); u != "" {
		return remote{
			base: u, token: os.Getenv(hookwire.EnvToken), where: "at " + u,
			transport: &http.Transport{
				Proxy:                 http.ProxyFromEnvironment,
				DialContext:           (&net.Dialer{Timeout: 3 * time.Second}).DialContext,
				ResponseHeaderTimeout: 30 * time.Second,
			},
		}
	}
	return remote{base: socketBase, transport: dataDirTransport(g.dataDir), where: "on " + hookwire.SocketPath(g.dataDir)}
}

// client is an HTTP client for r with an overall timeout (0: none).
func (r remote) client(timeout time.Duration) *http.Client {
	return &http.Client{Transport: r.transport, Timeout: timeout}
}

// authorize adds the bearer secret when r is a remote worker.
func (r remote) authorize(req *http.Request) {
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
}

// viewerURL is the viewer's address on this machine's loopback port.
func (g *globals) viewerURL() string { return "http://127.0.0.1:" + strconv.Itoa(g.port) }

// withWorker runs try against the worker. When nothing listens on the
// socket (and no remote worker is named), it starts one, as the hook does,
// and runs try again until it succeeds or wait has passed.
func (g *globals) withWorker(r remote, wait time.Duration, try func() error) error {
	err := try()
	if err == nil || r.token != "" || !noWorker(err) {
		return err
	}
	self, serr := hooks.Self()
	if serr != nil {
		return serr
	}
	if serr := hooks.StartWorker(self, g.port, g.dataDir); serr != nil {
		return fmt.Errorf("start the worker: %w", serr)
	}
	for deadline := time.Now().Add(wait); ; time.Sleep(50 * time.Millisecond) {
		if err = try(); err == nil || !noWorker(err) || time.Now().After(deadline) {
			return err
		}
	}
}

// noWorker tells an error that means nobody listens on the socket.
func noWorker(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// unreachable is the error a CLI command gives when the worker did not
// answer: a plain sentence saying what to do, not Go's dial error (which
// stays reachable through errors.Is and errors.As). Other failures (a
// timeout, a refused handshake) keep their cause, without the URL.
func (r remote) unreachable(err error) error {
	if noWorker(err) {
		if strings.HasPrefix(r.where, "at ") {
			return &workerError{cause: err, msg: fmt.Sprintf("the mneme worker %s is not running (nothing answers there): start it there with `mneme serve`, or unset %s to use this machine's worker", r.where, EnvURL)}
		}
		return &workerError{cause: err, msg: "the mneme worker is not running: start it with `mneme serve` (or `make run` in a checkout of mneme), then try again"}
	}
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) {
		inner = ue.Err
	}
	return &workerError{cause: err, msg: fmt.Sprintf("the mneme worker %s did not answer: %v", r.where, inner)}
}

// workerError says in plain words why the worker could not be asked.
type workerError struct {
	msg   string
	cause error
}

func (e *workerError) Error() string { return e.msg }
func (e *workerError) Unwrap() error { return e.cause }
