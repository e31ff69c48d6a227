package handlers_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// bannerBox is the status banner's box, always on the page.
const bannerBox = `<div id="status-banner" class="status-banner" role="alert">`

// banner returns what the page holds inside the banner's box.
func banner(t *testing.T, path, body string) string {
	t.Helper()
	i := strings.Index(body, bannerBox)
	if i < 0 {
		t.Fatalf("%s: no status banner box", path)
	}
	rest := body[i+len(bannerBox):]
	j := strings.Index(rest, `<main class="main">`)
	if j < 0 {
		t.Fatalf("%s: the banner box is not right before <main>", path)
	}
	return strings.TrimSuffix(strings.TrimSpace(rest[:j]), "</div>")
}

// TestStatusBannerPages: with no problem every page has the banner's box
// empty (app.js fills it live); with one, every page shows it, escaped,
// under a title, and /api/health says the same.
func TestStatusBannerPages(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	var problem atomic.Value
	problem.Store("")
	srv.Handler.Status = func() string { return problem.Load().(string) }
	pages := []string{"/", "/sessions", "/sessions/1", "/search?q=test", "/stats", "/settings"}

	for _, path := range pages {
		status, body := getPage(t, srv, path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		if got := banner(t, path, body); got != "" {
			t.Errorf("%s: banner without a problem: %q", path, got)
		}
	}
	var h map[string]any
	srv.GetJSON(t, "/api/health", &h)
	if h["status"] != "ok" || h["problem"] != nil {
		t.Errorf("health without a problem: %v", h)
	}

	const p = `The data directory /x/<b>"data"</b> is not writable (read-only file system). New events are spooled to /run/user/1000/mneme-spool & co.`
	problem.Store(p)
	escaped := `The data directory /x/&lt;b&gt;&#34;data&#34;&lt;/b&gt; is not writable (read-only file system). New events are spooled to /run/user/1000/mneme-spool &amp; co.`
	for _, path := range pages {
		_, body := getPage(t, srv, path)
		got := banner(t, path, body)
		if !strings.Contains(got, `<strong class="banner-title">Storage problem:</strong>`) ||
			!strings.Contains(got, `<span class="banner-problem">`+escaped+`</span>`) {
			t.Errorf("%s: banner %q", path, got)
		}
		if strings.Contains(body, `<b>"data"</b>`) {
			t.Errorf("%s: the problem text went into the page unescaped", path)
		}
	}
	_, body := srv.Get(t, "/api/health")
	h = nil
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatal(err)
	}
	if h["status"] != "degraded" || h["problem"] != p {
		t.Errorf("health with a problem: %s", body)
	}

	problem.Store("")
	if _, body := getPage(t, srv, "/"); banner(t, "/", body) != "" {
		t.Error("the banner stayed after the problem was fixed")
	}
}

// TestQuarantineBanner: events the spool set aside (spool/rejected/) are
// counted on /api/health, with where they are, and said in a banner on
// every page; none, no banner.
func TestQuarantineBanner(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const box = `<div id="quarantine-banner" class="status-banner" role="status">`
	_, body := getPage(t, srv, "/")
	if !strings.Contains(body, box+"</div>") {
		t.Errorf("a quarantine banner with nothing set aside")
	}
	dir := filepath.Join(srv.DataDir, "spool", "rejected")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		os.WriteFile(filepath.Join(dir, name), []byte("# 2026-11-25T00:00:00Z worker answered 400: bad\n{}\n"), 0o600)
	}
	var h struct {
		Quarantined struct {
			Events  int
			Dirs    []string
			Message string
		}
	}
	srv.GetJSON(t, "/api/health", &h)
	if h.Quarantined.Events != 2 || len(h.Quarantined.Dirs) != 1 || h.Quarantined.Dirs[0] != dir {
		t.Errorf("health: %+v", h.Quarantined)
	}
	for _, path := range []string{"/", "/sessions", "/settings"} {
		_, body := getPage(t, srv, path)
		i := strings.Index(body, box)
		if i < 0 || !strings.Contains(body[i:], "Events set aside:") || !strings.Contains(body[i:], "2 spooled events") || !strings.Contains(body[i:], dir) {
			t.Errorf("%s: no quarantine banner naming 2 events in %s", path, dir)
		}
	}
}
