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
	} {
		if got := auth.SafeNext(in); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", in, got, want)
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
