// Package auth is who may use the worker: the owner over the unix socket,
// anyone with the worker's secret (a bearer header), a browser with the
// login cookie derived from it, the one-time login links that hand out
// that cookie, and, in team mode, people with their own API token (which
// the handlers look up in the store). It is a leaf package: web's
// middleware and the handlers both build on it.
package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Level is how a request proved who it is.
type Level int

// The levels, weakest first.
const (
	None Level = iota // nothing: only the login page, static files and minimal health
	// Person is a person's API token (team mode): hook events and reads
	// only, on the routes web's routes.go opens to persons; every other
	// route answers 403.
	Person
	Cookie // the login cookie: the viewer, but not the dangerous settings
	Secret // the secret itself (Authorization: Bearer or X-Mneme-Secret)
	Owner  // the unix socket: this user's own process
)

// CookieName is the login cookie: HttpOnly, SameSite=Strict, Path=/.
const CookieName = "mneme_session"

// SecretHeader is the header that may carry the secret instead of
// Authorization: Bearer.
const SecretHeader = "X-Mneme-Secret"

// LinkTTL is how long a one-time login link stays valid.
const LinkTTL = 2 * time.Minute

// maxLinks bounds the unused links kept in memory.
const maxLinks = 1000

// Keys of c.Locals: a request's Level, and why the credentials it
// carried were refused.
const (
	localsKey        = "mneme.auth"
	localsRefusalKey = "mneme.refusal"
)

// ErrLinkInvalid is the answer to a login link that is unknown, used or
// expired: the three look the same on purpose.
var ErrLinkInvalid = errors.New("this login link was already used or has expired: run `mneme open` for a new one")

// Keeper holds the secret, derives the login cookie from it and keeps the
// one-time login links (in memory: a restart forgets them, the cookie
// stays valid because it is derived from the secret).
type Keeper struct {
	secret  []byte
	session string
	mu      sync.Mutex
	links   map[string]time.Time // token → expiry
	// Now is the clock; tests may set it.
	Now func() time.Time
}

// ErrNoSecret is New's error for an empty secret: there is no worker
// without one.
var ErrNoSecret = errors.New("auth: the worker has no secret")

// New returns a Keeper for secret, which must not be empty (ErrNoSecret).
func New(secret string) (*Keeper, error) {
	if secret == "" {
		return nil, ErrNoSecret
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("mneme-session-v1"))
	return &Keeper{
		secret:  []byte(secret),
		session: base64.RawURLEncoding.EncodeToString(mac.Sum(nil)),
		links:   map[string]time.Time{},
		Now:     time.Now,
	}, nil
}

// CheckSecret compares s with the secret in constant time.
func (k *Keeper) CheckSecret(s string) bool {
	return s != "" && subtle.ConstantTimeCompare([]byte(s), k.secret) == 1
}

// SessionValue is the login cookie's value: HMAC-SHA256(secret,
// "mneme-session-v1"), so it is checked without state and survives a
// restart, and changes when the secret does.
func (k *Keeper) SessionValue() string { return k.session }

// CheckSession compares a login cookie's value in constant time.
func (k *Keeper) CheckSession(v string) bool {
	return v != "" && subtle.ConstantTimeCompare([]byte(v), []byte(k.session)) == 1
}

// SecretOf is the secret a request carries in its headers, if any.
func SecretOf(c *fiber.Ctx) string {
	if v := c.Get(SecretHeader); v != "" {
		return v
	}
	if v, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer "); ok {
		return v
	}
	return ""
}

// Identify is the Level of a request that did not come over the socket.
func (k *Keeper) Identify(c *fiber.Ctx) Level {
	if k.CheckSecret(SecretOf(c)) {
		return Secret
	}
	if k.CheckSession(c.Cookies(CookieName)) {
		return Cookie
	}
	return None
}

// NewLink makes a one-time login token, valid for LinkTTL.
func (k *Keeper) NewLink() (token string, expires time.Time) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	now := k.Now()
	expires = now.Add(LinkTTL)
	k.mu.Lock()
	defer k.mu.Unlock()
	for t, exp := range k.links {
		if now.After(exp) {
			delete(k.links, t)
		}
	}
	if len(k.links) >= maxLinks {
		for t := range k.links {
			delete(k.links, t)
			break
		}
	}
	k.links[token] = expires
	return token, expires
}

// ConsumeLink uses a one-time token up: it is valid once, within LinkTTL.
func (k *Keeper) ConsumeLink(token string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	exp, ok := k.links[token]
	delete(k.links, token)
	if !ok || k.Now().After(exp) {
		return ErrLinkInvalid
	}
	return nil
}

// SetLevel records how the request proved who it is.
func SetLevel(c *fiber.Ctx, l Level) { c.Locals(localsKey, l) }

// LevelOf is the Level SetLevel recorded (None if none was).
func LevelOf(c *fiber.Ctx) Level {
	l, _ := c.Locals(localsKey).(Level)
	return l
}

// Refusal is why the credentials of a request were not accepted: a
// person token that is unknown or revoked (401), or that could not be
// checked (503, so a hook spools the event and retries).
type Refusal struct {
	Status int
	Msg    string
}

// Refuse records why the request's credentials were refused; the
// credentials check answers it on routes that need credentials.
func Refuse(c *fiber.Ctx, r Refusal) { c.Locals(localsRefusalKey, r) }

// RefusalOf is what Refuse recorded, if anything.
func RefusalOf(c *fiber.Ctx) (Refusal, bool) {
	r, ok := c.Locals(localsRefusalKey).(Refusal)
	return r, ok
}

// SafeNext is next when it is a path on this site, and "/" otherwise: a
// login must not redirect elsewhere. A browser reads a Location its own
// way (WHATWG URL): it drops tabs and newlines anywhere, trims control
// characters and spaces at the ends, reads a backslash as a slash, and
// "//host" or "/\host" as another host; so next is accepted only when it
// is plain printable ASCII with no backslash, starts with one "/" and
// not two, still has no control character or backslash and still starts
// so once percent-decoded (up to three times: a page or proxy may decode
// it again), and Go's parser sees a path in it, with no scheme, host or
// user.
func SafeNext(next string) string {
	if !localPath(next, false) {
		return "/"
	}
	for s, i := next, 0; i < 3; i++ {
		u, err := url.PathUnescape(s)
		if err != nil || !localPath(u, true) {
			return "/"
		}
		if u == s {
			break
		}
		s = u
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return next
}

// localPath reports whether s starts with "/" and not "//", and holds
// no backslash, no control character and (unless decoded, the text a
// percent-decoding gave) nothing but printable ASCII.
func localPath(s string, decoded bool) bool {
	if !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c == 0x7f || c == '\\' || !decoded && (c == ' ' || c > 0x7f) {
			return false
		}
	}
	return true
}
