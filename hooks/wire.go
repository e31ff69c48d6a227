package hooks

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// Answer is a worker's answer to one request.
type Answer struct {
	Status int
	// Permanent is set when the worker marked a 5xx as caused by the event
	// itself (HeaderPermanent).
	Permanent bool
	Body      []byte
}

// A Sender sends one request to a worker — method, a path such as
// /api/hooks/stop, and a JSON body (nil for a GET) — and returns its
// answer. The local worker's is SocketSender; a team's worker over
// HTTP(S) is hookhttp.Sender, kept in a package of its own so that
// mneme-hook, which Claude Code runs for every event, starts without
// net/http and crypto/tls.
type Sender func(ctx context.Context, method, path string, body []byte) (Answer, error)

// maxAnswer bounds what is read of an answer (SessionStart's context is
// far smaller).
const maxAnswer = 1 << 20

// SocketSender sends over the worker's unix socket in dataDir (DialSocket)
// with one HTTP/1.1 request per connection. It is a small HTTP client of its
// own rather than net/http: linking net/http and the TLS stack it brings
// made every hook start measurably slower than a bare Go binary, for a
// socket that only ever speaks to mneme's own worker.
func SocketSender(dataDir string) Sender {
	dialer := &net.Dialer{Timeout: 200 * time.Millisecond}
	return func(ctx context.Context, method, path string, body []byte) (Answer, error) {
		if dataDir == "" {
			return Answer{}, errors.New("no data directory: no worker socket")
		}
		conn, err := hookwire.DialSocket(ctx, dialer, dataDir)
		if err != nil {
			return Answer{}, err
		}
		defer conn.Close()
		if d, ok := ctx.Deadline(); ok {
			conn.SetDeadline(d)
		}
		stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
		defer stop()
		ans, err := exchange(conn, method, path, body)
		var ne net.Error
		switch {
		case err == nil:
		case ctx.Err() != nil:
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		case errors.As(err, &ne) && ne.Timeout():
			// The connection's deadline is the context's, and may pass
			// a moment before the context says so.
			err = fmt.Errorf("%w (%v)", context.DeadlineExceeded, err)
		}
		return ans, err
	}
}

// exchange writes one request on rw and reads its answer.
func exchange(rw io.ReadWriter, method, path string, body []byte) (Answer, error) {
	var req strings.Builder
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: mneme\r\nUser-Agent: mneme-hook\r\nConnection: close\r\n", method, path)
	if body != nil {
		fmt.Fprintf(&req, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	req.WriteString("\r\n")
	w := bufio.NewWriterSize(rw, req.Len()+len(body))
	w.WriteString(req.String())
	w.Write(body)
	if err := w.Flush(); err != nil {
		return Answer{}, err
	}
	return readAnswer(bufio.NewReader(rw))
}

// readAnswer reads an HTTP/1.1 response: the status line, the headers, and
// a body framed by Content-Length, chunked, or the end of the connection.
func readAnswer(br *bufio.Reader) (Answer, error) {
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return Answer{}, fmt.Errorf("reading the answer: %w", err)
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return Answer{}, fmt.Errorf("malformed status line %q", line)
	}
	header, err := tp.ReadMIMEHeader()
	if err != nil {
		return Answer{}, fmt.Errorf("reading the answer's headers: %w", err)
	}
	ans := Answer{Status: status, Permanent: header.Get(hookwire.HeaderPermanent) != ""}
	var body io.Reader = br
	switch {
	case strings.EqualFold(header.Get("Transfer-Encoding"), "chunked"):
		body = &chunked{r: br}
	case header.Get("Content-Length") != "":
		n, err := strconv.ParseInt(header.Get("Content-Length"), 10, 64)
		if err != nil || n < 0 {
			return Answer{}, fmt.Errorf("malformed Content-Length %q", header.Get("Content-Length"))
		}
		if n > maxAnswer {
			return Answer{}, fmt.Errorf("answer of %d bytes is over %d", n, maxAnswer)
		}
		body = io.LimitReader(br, n)
	}
	if ans.Body, err = io.ReadAll(io.LimitReader(body, maxAnswer)); err != nil {
		return Answer{}, fmt.Errorf("reading the answer's body: %w", err)
	}
	return ans, nil
}

// chunked decodes a chunked transfer coding (RFC 9112 §7.1); trailers are
// read and dropped.
type chunked struct {
	r    *bufio.Reader
	left int64 // bytes left in the current chunk
	done bool
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.done {
		return 0, io.EOF
	}
	if c.left == 0 {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return 0, io.ErrUnexpectedEOF
		}
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(size, 16, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("malformed chunk size %q", line)
		}
		if n == 0 {
			c.done = true
			tp := textproto.NewReader(c.r)
			if _, err := tp.ReadMIMEHeader(); err != nil && err != io.EOF {
				return 0, err
			}
			return 0, io.EOF
		}
		c.left = n
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		var crlf [2]byte
		if _, err := io.ReadFull(c.r, crlf[:]); err != nil || crlf != [2]byte{'\r', '\n'} {
			return n, errors.New("malformed chunk end")
		}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}
