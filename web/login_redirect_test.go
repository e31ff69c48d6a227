package web_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// offSiteNexts are next values a browser would follow to another site if
// they were sent back as they are: the shapes of the attack report, with
// the phishing site's address put in for host.
func offSiteNexts(host string) []string {
	return []string{
		"/\t/" + host + "/phish", "/\n/" + host + "/phish", "/\r/" + host + "/phish", "/\t\t/" + host,
		"\t//" + host + "/phish", "//" + host + "/phish", "/\\" + host + "/phish", "/\\/" + host,
		"\\\\" + host, "/%09/" + host + "/phish", "/%2F/" + host, "/%5C" + host, "/%252F/" + host,
		"http://" + host + "/phish", "HTTP://" + host, "http:" + host, "javascript:alert(1)", host + "/phish",
	}
}

// After logging in, through the one-time link (GET /login?token=…) or
// the form (POST /login), no hostile next is sent back in Location: it
// is "/".
func TestLoginNextStaysLocal(t *testing.T) {
	srv := testutil.NewServer(t)
	for _, next := range offSiteNexts("127.0.0.1:38998") {
		status, h, _ := raw(t, noAuth(), "GET", srv.LoginURL(t, next), "", nil, "")
		if status != http.StatusSeeOther || h.Get("Location") != "/" {
			t.Errorf("login link with next %q: %d to %q, want 303 to /", next, status, h.Get("Location"))
		}

		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		_, _, body := raw(t, c, "GET", srv.URL+"/login?next="+url.QueryEscape(next), "", nil, "")
		m := regexp.MustCompile(`name="login_csrf" value="([^"]+)"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no CSRF token on the login page: %s", body)
		}
		form := url.Values{"login_csrf": {m[1]}, "secret": {srv.Secret}, "next": {next}}
		status, h, _ = raw(t, c, "POST", srv.URL+"/login", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": srv.URL}, form.Encode())
		if status != http.StatusSeeOther || h.Get("Location") != "/" {
			t.Errorf("login form with next %q: %d to %q, want 303 to /", next, status, h.Get("Location"))
		}
	}
	// A local next still goes where it says.
	if status, h, _ := raw(t, noAuth(), "GET", srv.LoginURL(t, "/stats?x=1"), "", nil, ""); status != http.StatusSeeOther || h.Get("Location") != "/stats?x=1" {
		t.Errorf("login link to /stats?x=1: %d to %q", status, h.Get("Location"))
	}
}

// Chromium, logging in with next=/%09/<phishing site>/phish through the
// one-time link, then through the login form, stays on the worker's
// origin: the phishing site on another loopback port is never asked for
// anything.
func TestBrowserLoginStaysOnOrigin(t *testing.T) {
	parallelBrowser(t)
	b := newBrowser(t, 1000, 700)
	var phished atomic.Int32
	phish := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		phished.Add(1)
		w.Write([]byte("<html><body>phished</body></html>"))
	}))
	defer phish.Close()
	host := strings.TrimPrefix(phish.URL, "http://")
	srv := testutil.NewServer(t)
	origin := srv.URL

	onWorker := func(how string) {
		t.Helper()
		// Wait for the navigation the login started to settle (while it
		// runs, the page's context may be gone: try again).
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			done, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && location.pathname !== "/login"`))
			if err == nil && done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the browser did not leave the login page (%v)", how, err)
			}
		}
		if got := eval[string](t, b, `location.origin`); got != origin || phished.Load() != 0 {
			t.Fatalf("%s: the browser is at %s (%d requests to the phishing site), want %s", how, eval[string](t, b, `location.href`), phished.Load(), origin)
		}
	}
	b.do(t, chromedp.Navigate(srv.LoginURL(t, "/\t/"+host+"/phish")), chromedp.WaitReady("body"))
	onWorker("the login link")

	// The form: the login page with the same next, and the secret typed in.
	b.do(t, chromedp.Navigate(origin+"/login?next="+url.QueryEscape("/\t/"+host+"/phish")), chromedp.WaitReady("#login-secret"),
		chromedp.SendKeys("#login-secret", srv.Secret), chromedp.Submit("#login-form"))
	onWorker("the login form")
}
