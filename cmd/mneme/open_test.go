package main

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestOpenPrint: `mneme open --print` gets a one-time link over the
// socket, on the worker's own address even when the CLI is not told its
// port; the link logs in once.
func TestOpenPrint(t *testing.T) {
	t.Setenv(EnvURL, "")
	t.Setenv("MNEME_TOKEN", "")
	srv := testutil.NewServer(t)
	var out, errb bytes.Buffer
	if code := run([]string{"--data-dir", srv.DataDir, "open", "--print"}, nil, &out, &errb); code != 0 ||
		!strings.HasPrefix(out.String(), srv.URL+"/login?token=") {
		t.Fatalf("without --port: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	code := run([]string{"--data-dir", srv.DataDir, "--port", strconv.Itoa(srv.Port), "open", "--print"}, nil, &out, &errb)
	link := strings.TrimSpace(out.String())
	if code != 0 || !strings.HasPrefix(link, srv.URL+"/login?token=") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, link, errb.String())
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for i, want := range []int{303, 401} {
		resp, err := c.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("use %d of the link: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
}

// TestStatusEveryMode: `mneme status` works over the socket, and with
// MNEME_URL and MNEME_TOKEN over TCP; a wrong token is said as such.
func TestStatusEveryMode(t *testing.T) {
	srv := testutil.NewServer(t)
	srv.SeedFixture(t)
	status := func(env ...string) (int, string) {
		t.Setenv(EnvURL, env[0])
		t.Setenv("MNEME_TOKEN", env[1])
		var out, errb bytes.Buffer
		code := run([]string{"--data-dir", srv.DataDir, "--port", strconv.Itoa(srv.Port), "status"}, nil, &out, &errb)
		return code, out.String() + errb.String()
	}
	for _, tc := range []struct{ name, url, token string }{
		{"socket", "", ""},
		{"socket, MNEME_TOKEN set", "", "ignored-over-the-socket"},
		{"remote", srv.URL, srv.Secret},
	} {
		code, out := status(tc.url, tc.token)
		if code != 0 || !strings.Contains(out, "1 session,") {
			t.Errorf("%s: exit %d\n%s", tc.name, code, out)
		}
	}
	if code, out := status(srv.URL, "wrong-token"); code != 3 || !strings.Contains(out, "refuses MNEME_TOKEN") {
		t.Errorf("wrong token: exit %d\n%s", code, out)
	}
}
