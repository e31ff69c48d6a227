// Package testutil builds real mneme workers for tests: a real SQLite file in
// a temp dir (or, with MNEME_TEST_BACKEND=postgres, a real PostgreSQL
// database), the real Fiber app on a loopback port, and helpers to ingest
// events through the real HTTP ingest path.
package testutil

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/mneme-dev/mneme/internal/testutil/fixtures"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/handlers"
	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/pgtest"
	"github.com/mneme-dev/mneme/models"
)

// TestBuild is the version, commit and date test workers say they are
// (/api/health, the viewer's footer).
var TestBuild = hookwire.Build{Version: "test", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-01-02T03:04:05Z"}

// Server is a worker listening on 127.0.0.1 and on its data directory's
// unix socket for the duration of a test, as `mneme serve` does.
type Server struct {
	*app.Worker
	URL     string // http://127.0.0.1:<port>
	Port    int
	DataDir string
	// Secret is the worker's secret (<data>/secret): Do sends it as the
	// bearer token, as a remote client with MNEME_TOKEN does.
	Secret string
	// Socket is the unix socket's path (hookwire.SocketPath(DataDir)).
	Socket string
}

// Option changes the options a test worker is built with.
type Option func(*app.Options)

// FastStream makes /stream send keepalives every 100 ms, so tests see them
// and notice gone clients fast, and cut a client that stops reading after
// 2 s.
func FastStream(o *app.Options) {
	o.Stream = handlers.StreamOptions{KeepAlive: 100 * time.Millisecond, WriteTimeout: 2 * time.Second}
}

// IdleWorkerReap is how long a test worker's fasthttp server keeps an idle
// connection worker: its pool checks every IdleWorkerReap, so a worker
// left idle is gone within twice that.
const IdleWorkerReap = time.Second

// NewServer starts a worker on a random loopback port with its data in a
// fresh temp dir. It is shut down when the test ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return NewServerIn(t, t.TempDir(), opts...)
}

// NewServerIn is NewServer with a chosen data directory (for restarts).
func NewServerIn(t testing.TB, dataDir string, opts ...Option) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, ln, dataDir, opts)
}

// serveOn runs a worker on ln with its data in dataDir until the test ends.
func serveOn(t testing.TB, ln net.Listener, dataDir string, opts []Option) *Server {
	t.Helper()
	port := ln.Addr().(*net.TCPAddr).Port
	secret, err := hookwire.Secret(dataDir)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	// A data directory that cannot be written has no socket: the worker
	// runs on TCP only, as `mneme serve` does.
	sock, sockPath, err := app.ListenSocket(dataDir)
	if err != nil {
		t.Logf("no socket: %v", err)
		sockPath = ""
	}
	o := app.Options{
		DataDir: dataDir, Port: port, Build: TestBuild, Secret: secret, ViewerURL: "http://127.0.0.1:" + strconv.Itoa(port),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// Never the machine's own ~/.claude/projects.
		ImportDir:   filepath.Join(dataDir, "transcripts"),
		DatabaseURL: databaseURL(t, dataDir),
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.DatabaseURL == "" {
		seedSchema(dataDir)
	}
	w, err := app.New(context.Background(), o)
	if err != nil {
		ln.Close()
		if sock != nil {
			sock.Close()
		}
		t.Fatal(err)
	}
	// fasthttp ends a connection worker idle for 10 s (its default);
	// tests that count goroutines wait for that (handlers'
	// TestStreamClientsCleanedUp). A test worker ends them after a
	// second. Set before the listeners start, which read it.
	w.App.Server().MaxIdleWorkerDuration = IdleWorkerReap
	go w.App.Listener(ln)
	if sock != nil {
		go w.App.Listener(sock)
	}
	s := &Server{Worker: w, URL: "http://127.0.0.1:" + strconv.Itoa(port), Port: port, DataDir: dataDir, Secret: secret, Socket: sockPath}
	t.Cleanup(func() { s.Shutdown(5 * time.Second) })
	return s
}

// The test databases of the data directories in use, when the matrix runs
// on PostgreSQL (MNEME_TEST_BACKEND=postgres): a worker restarted on the
// same data directory finds what the one before it stored, as it finds the
// same mneme.db on SQLite.
var (
	pgMu  sync.Mutex
	pgURL = map[string]string{}
)

// databaseURL is the app.Options.DatabaseURL of a test worker on dataDir:
// "" (the SQLite file in dataDir) unless the matrix runs on PostgreSQL,
// then dataDir's own database, made at its first worker and dropped when
// that worker's test ends.
func databaseURL(t testing.TB, dataDir string) string {
	if !pgtest.OnPostgres() {
		return ""
	}
	pgMu.Lock()
	u, ok := pgURL[dataDir]
	pgMu.Unlock()
	if ok {
		return u
	}
	// Made without the lock held: parallel tests need not wait for each
	// other's CREATE DATABASE.
	u = pgTemplate.URL(t)
	pgMu.Lock()
	defer pgMu.Unlock()
	if prev, ok := pgURL[dataDir]; ok {
		return prev
	}
	pgURL[dataDir] = u
	t.Cleanup(func() {
		pgMu.Lock()
		delete(pgURL, dataDir)
		pgMu.Unlock()
	})
	return u
}

// OpenStore opens the store a test worker on dataDir uses (the SQLite
// file, or dataDir's PostgreSQL database in the matrix's PostgreSQL run),
// for a test that prepares it before the worker starts. Close it before.
func OpenStore(t testing.TB, dataDir string) *models.Store {
	t.Helper()
	s, err := models.OpenURL(databaseURL(t, dataDir), dataDir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Client is an HTTP client for s that sends the bearer secret with every
// request (as a remote client with MNEME_TOKEN does) and does not follow
// redirects.
func (s *Server) Client() *http.Client {
	return &http.Client{
		Transport:     bearer{secret: s.Secret, base: http.DefaultTransport},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type bearer struct {
	secret string
	base   http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+b.secret)
	}
	return b.base.RoundTrip(req)
}

// SocketClient is an HTTP client that reaches s over its unix socket, as
// `mneme hook` and the CLI do: the owner, without credentials. URLs are
// SocketURL + path.
func (s *Server) SocketClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", s.Socket)
		},
	}}
}

// SocketURL is the base of URLs for SocketClient.
const SocketURL = "http://mneme"

// LoginURL asks the worker over its socket for a one-time login link (as
// `mneme open` does) and returns its full URL, going on to next.
func (s *Server) LoginURL(t testing.TB, next string) string {
	t.Helper()
	c := s.SocketClient()
	defer c.CloseIdleConnections()
	resp, err := c.Post(SocketURL+"/api/login-links", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var link struct {
		Path string `json:"path"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&link); err != nil || resp.StatusCode != http.StatusOK || link.Path == "" {
		t.Fatalf("POST /api/login-links over the socket: %d, %v", resp.StatusCode, err)
	}
	u := s.URL + link.Path
	if next != "" {
		u += "&next=" + url.QueryEscape(next)
	}
	return u
}

// LoggedIn is a browser-like client: a cookie jar that holds the login
// cookie, got through a one-time login link (LoginURL). It does not follow
// redirects.
func (s *Server) LoggedIn(t testing.TB) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(s.LoginURL(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login link: %d, want 303", resp.StatusCode)
	}
	return c
}

// Post sends body (a []byte, string, or any value marshalled to JSON) to
// path and returns the status and response body.
func (s *Server) Post(t testing.TB, path string, body any) (int, []byte) {
	t.Helper()
	return s.Do(t, http.MethodPost, path, body, nil)
}

// Get fetches path and returns the status and body.
func (s *Server) Get(t testing.TB, path string) (int, []byte) {
	t.Helper()
	return s.Do(t, http.MethodGet, path, nil, nil)
}

// Do sends one request with optional headers.
func (s *Server) Do(t testing.TB, method, path string, body any, header http.Header) (int, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	case string:
		r = bytes.NewReader([]byte(b))
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+s.Secret)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// Hook posts a hook payload to the native ingest route and fails the test
// unless it is acknowledged with 200.
func (s *Server) Hook(t testing.TB, slug string, payload any) []byte {
	t.Helper()
	status, body := s.Post(t, "/api/hooks/"+slug, payload)
	if status != http.StatusOK {
		t.Fatalf("POST /api/hooks/%s: %d %s", slug, status, body)
	}
	return body
}

// GetJSON fetches path and decodes its JSON body into v, failing unless 200.
func (s *Server) GetJSON(t testing.TB, path string, v any) {
	t.Helper()
	status, body := s.Get(t, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, body)
	}
}

// FixtureDir is testdata/claude-code-2.1.330 at the repository's root:
// hook payloads and a transcript captured from real Claude Code 2.1.330.
// They are part of the repository, so no test skips for want of them.
func FixtureDir(t testing.TB) string {
	t.Helper()
	dir := RepoFixtureDir()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("fixtures not found: %v", err)
	}
	return dir
}

// RepoFixtureDir is FixtureDir's path, for code without a testing.TB.
func RepoFixtureDir() string { return fixtures.Dir() }

// FixtureEvents reads session-basic.hooks.jsonl: one raw payload per line.
func FixtureEvents(t testing.TB) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(FixtureDir(t), "session-basic.hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			out = append(out, json.RawMessage(bytes.Clone(line)))
		}
	}
	return out
}

// RepoRoot is the repository's top directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// StoredBytes is everything a worker's store holds, for tests that a
// text was never stored or is gone: on SQLite the bytes of mneme.db, its
// -wal and -shm after a checkpoint (free pages included); on PostgreSQL,
// whose files are the server's, the text of every row of every table.
func StoredBytes(t testing.TB, store *models.Store) []byte {
	t.Helper()
	if store.Postgres() {
		return modelstest.RowsText(t, store)
	}
	if err := store.CheckpointTruncate(); err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(store.Path() + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if len(all) == 0 {
		t.Fatal("no database bytes read")
	}
	return all
}

// FilesHolding lists the files under dir (every file: the database, its
// -wal and -shm, the spool, the logs) whose bytes contain needle, as it
// is or lower-cased.
func FilesHolding(t testing.TB, dir, needle string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(needle)) || bytes.Contains(bytes.ToLower(b), bytes.ToLower([]byte(needle))) {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// UseSettings saves st as the user would (validated, stored, in force,
// followed up) and fails the test if it cannot.
func (s *Server) UseSettings(t testing.TB, st models.Settings) {
	t.Helper()
	if err := s.Settings.Save(context.Background(), s.Settings.Current(), st); err != nil {
		t.Fatalf("saving settings: %v", err)
	}
}
