package auth_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/web/auth"
)

// TestLinkExpiresAndIsSingleUse: a link works once, and not after LinkTTL.
func TestLinkExpiresAndIsSingleUse(t *testing.T) {
	k := mustNew(t, "a-secret-of-some-length")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	k.Now = func() time.Time { return now }
	tok, exp := k.NewLink()
	if !exp.Equal(now.Add(auth.LinkTTL)) {
		t.Errorf("expires %v", exp)
	}
	if err := k.ConsumeLink(tok); err != nil {
		t.Fatal(err)
	}
	if err := k.ConsumeLink(tok); !errors.Is(err, auth.ErrLinkInvalid) {
		t.Errorf("second use: %v", err)
	}
	late, _ := k.NewLink()
	now = now.Add(auth.LinkTTL + time.Second)
	if err := k.ConsumeLink(late); !errors.Is(err, auth.ErrLinkInvalid) {
		t.Errorf("expired link: %v", err)
	}
}

// TestSessionValueFromSecret: the cookie value is the same for the same
// secret (it survives restarts) and differs for another.
func TestSessionValueFromSecret(t *testing.T) {
	a, b, c := mustNew(t, "secret-one-xxxxxxxx"), mustNew(t, "secret-one-xxxxxxxx"), mustNew(t, "secret-two-xxxxxxxx")
	if a.SessionValue() != b.SessionValue() || a.SessionValue() == c.SessionValue() {
		t.Error("session value not derived from the secret alone")
	}
	if !a.CheckSession(b.SessionValue()) || a.CheckSession("") || a.CheckSecret("") || !a.CheckSecret("secret-one-xxxxxxxx") {
		t.Error("checks wrong")
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/sessions?x=1": "/sessions?x=1", "": "/", "//evil.example": "/", "/\\evil.example": "/",
		"https://evil.example/": "/", "javascript:alert(1)": "/", "/a\r\nSet-Cookie: x": "/",
		"/stats": "/stats", "/sessions/12?forgotten=0.1.2.0": "/sessions/12?forgotten=0.1.2.0",
		"/search?q=a%20b&project=p": "/search?q=a%20b&project=p", "/settings#privacy": "/settings#privacy",
	} {
		if got := auth.SafeNext(in); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every shape a browser reads as another site (after its own clean-up of
// a Location: tabs and newlines dropped, backslashes read as slashes,
// control characters and spaces trimmed) or as a scheme is refused, as
// it is and percent-encoded once or twice.
func TestSafeNextRefusesOffSite(t *testing.T) {
	hostile := []string{
		"/\t/127.0.0.1:38998/phish", "/\t/evil.example", "/\n/evil.example", "/\r/evil.example", "/\r\n/evil.example",
		"\t//evil.example", " //evil.example", "/ /evil.example", "\x00//evil.example", "/\x00/evil.example",
		"/\x0b/evil.example", "/\x0c/evil.example", "/\x1f/evil.example", "/\x7f/evil.example",
		"//evil.example", "///evil.example", "////evil.example", "/\\evil.example", "\\/evil.example",
		"\\\\evil.example", "/\\/evil.example", "/a\\..\\..\\/evil", "/%09/evil.example", "/%0a/evil.example",
		"/%0d/evil.example", "/%00/evil.example", "/%2f/evil.example", "/%2F/evil.example", "/%5c/evil.example",
		"/%5Cevil.example", "/%252f/evil.example", "/%25252f%25252fevil.example", "/%2509/evil.example",
		"%2f%2fevil.example", "/%", "/%zz", "https://evil.example", "http:/evil.example", "http:evil.example",
		"HTTPS://evil.example", "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<script>alert(1)</script>",
		"vbscript:x", "evil.example", "evil.example/path", "./evil", "../evil", "?next=//evil", "#frag",
		"/\u00a0/evil.example", "/\u3000/evil.example", "/\uff0f\uff0fevil.example", "/\u2028/evil.example",
		"/\ufeff/evil.example", "/\u0085/evil.example", "/sessions\t", "/a\r\nLocation: //evil.example",
	}
	for _, in := range hostile {
		if got := auth.SafeNext(in); got != "/" {
			t.Errorf("SafeNext(%q) = %q, want /", in, got)
		}
	}
}

func TestNewRefusesEmptySecret(t *testing.T) {
	if k, err := auth.New(""); !errors.Is(err, auth.ErrNoSecret) || k != nil {
		t.Errorf("auth.New(\"\") = %v, %v; want ErrNoSecret", k, err)
	}
}

// mustNew is auth.New for a secret that is not empty.
func mustNew(t *testing.T, secret string) *auth.Keeper {
	t.Helper()
	k, err := auth.New(secret)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
