package auth_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/web/auth"
)

// TestLinkExpiresAndIsSingleUse: a link works once, and not after LinkTTL.
func TestLinkExpiresAndIsSingleUse(t *testing.T) {
	k := auth.New("a-secret-of-some-length")
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
	a, b, c := auth.New("secret-one-xxxxxxxx"), auth.New("secret-one-xxxxxxxx"), auth.New("secret-two-xxxxxxxx")
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

func TestNewPanicsWithoutSecret(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("auth.New accepted an empty secret")
		}
	}()
	auth.New("")
}
