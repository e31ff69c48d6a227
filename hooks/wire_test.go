package hooks

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The socket client reads every framing an HTTP/1.1 server may use, and
// refuses what is not an answer.
func TestReadAnswer(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		want      Answer
		err       string
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: application/json\r\n\r\n{}\n  trailing junk", Answer{Status: 200, Body: []byte("{}\n  ")}, ""},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3;ext=1\r\n:1}\r\n0\r\nX-Trailer: y\r\n\r\n", Answer{Status: 200, Body: []byte(`{"a":1}`)}, ""},
		{"until close", "HTTP/1.0 503 Service Unavailable\r\n\r\nread-only", Answer{Status: 503, Body: []byte("read-only")}, ""},
		{"marked permanent", "HTTP/1.1 500 Internal Server Error\r\nMneme-Permanent: 1\r\nContent-Length: 2\r\n\r\nno", Answer{Status: 500, Permanent: true, Body: []byte("no")}, ""},
		{"not http", "SSH-2.0-OpenSSH\r\n\r\n", Answer{}, "malformed status line"},
		{"bad status", "HTTP/1.1 2x0 OK\r\n\r\n", Answer{}, "malformed status line"},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n", Answer{}, "malformed Content-Length"},
		{"too long", "HTTP/1.1 200 OK\r\nContent-Length: 9999999\r\n\r\n", Answer{}, "is over"},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", Answer{}, "malformed chunk size"},
		{"cut chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc", Answer{}, "unexpected EOF"},
		{"empty", "", Answer{}, "reading the answer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAnswer(bufio.NewReader(strings.NewReader(c.raw)))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != c.want.Status || got.Permanent != c.want.Permanent || !bytes.Equal(got.Body, c.want.Body) {
				t.Errorf("got %d %v %q, want %d %v %q", got.Status, got.Permanent, got.Body, c.want.Status, c.want.Permanent, c.want.Body)
			}
		})
	}
}

// What the socket client writes is one well-formed request a server reads
// whole: method, path, Host, length and body.
func TestExchangeWritesOneRequest(t *testing.T) {
	var wrote bytes.Buffer
	rw := struct {
		io.Reader
		io.Writer
	}{strings.NewReader("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"), &wrote}
	ans, err := exchange(rw, "POST", "/api/hooks/stop", []byte(`{"x":1}`))
	if err != nil || ans.Status != 200 || string(ans.Body) != "{}" {
		t.Fatalf("answer %+v, %v", ans, err)
	}
	want := "POST /api/hooks/stop HTTP/1.1\r\nHost: mneme\r\nUser-Agent: mneme-hook\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"x\":1}"
	if wrote.String() != want {
		t.Errorf("wrote %q\nwant  %q", wrote.String(), want)
	}
}

// A worker that accepts the connection and never answers costs the hook
// its budget, not more.
func TestSocketSenderHonoursDeadline(t *testing.T) {
	dir, _ := silentWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := SocketSender(dir)(ctx, "POST", "/api/hooks/stop", []byte(`{}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if waited := time.Since(start); waited > 30*time.Second {
		t.Errorf("waited %s past a 150 ms budget", waited)
	}
}

// A cancelled context wakes a read blocked on a worker that never
// answers, although the socket has no deadline.
func TestSocketSenderHonoursCancel(t *testing.T) {
	dir, accepted := silentWorker(t)
	ctx, cancel := context.WithCancel(context.Background())
	// The sleep lets the request be written and the read block: a cancel
	// that wakes a blocked read is what is tested.
	go func() { <-accepted; time.Sleep(20 * time.Millisecond); cancel() }()
	_, err := SocketSender(dir)(ctx, "POST", "/api/hooks/stop", []byte(`{}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
}

// Nothing listening is told apart from a worker that fails: the hook
// starts the worker or spools on the first only.
func TestSocketSenderNoListener(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	_, err := SocketSender(dir)(context.Background(), "POST", "/api/hooks/stop", []byte(`{}`))
	if err == nil || !isConnRefused(err) {
		t.Fatalf("err = %v, want no listener", err)
	}
}

// silentWorker listens on a data directory's socket, accepts, and never
// answers; accepted receives once per connection.
func silentWorker(t *testing.T) (dir string, accepted <-chan struct{}) {
	t.Helper()
	dir = t.TempDir()
	os.Chmod(dir, 0o700)
	ln, err := net.Listen("unix", filepath.Join(dir, "mneme.sock"))
	if err != nil {
		t.Skipf("no unix socket here: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	acc := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // held open, never answered
			select {
			case acc <- struct{}{}:
			default:
			}
		}
	}()
	return dir, acc
}
