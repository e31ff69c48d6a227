package web

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/csrf"

	"github.com/mneme-dev/mneme/handlers"
	"github.com/mneme-dev/mneme/web/auth"
)

// loopbackHost reports whether a Host header names this worker on loopback:
// localhost, 127.0.0.1 or [::1], with our port. Anything else is a DNS
// rebinding attempt or a mistake.
func loopbackHost(host string, port int) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		return false
	}
	if p != strconv.Itoa(port) {
		return false
	}
	switch strings.ToLower(h) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// viaSocket reports whether the request came over the worker's unix
// socket: only this user can connect to it (mode 0600 and the peer's uid,
// worker.OwnerOnly), so it is the owner and needs no credentials.
func viaSocket(c *fiber.Ctx) bool {
	return c.Context().LocalAddr().Network() == "unix"
}

func checkHost(port int, allowed []string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		host := string(c.Request().Host())
		if viaSocket(c) || port == 0 || loopbackHost(host, port) || allowedHost(host, allowed) {
			return c.Next()
		}
		return fiber.NewError(fiber.StatusForbidden, "forbidden host: mneme answers only to localhost, 127.0.0.1 or [::1] on its own port, and to the names given with --allowed-host (MNEME_ALLOWED_HOSTS)")
	}
}

// allowedHost reports whether host (a Host header, or an Origin's host)
// is one the operator named with --allowed-host: the name a team reaches
// its worker by, directly or through a proxy. An entry with a port must
// match exactly; one without matches that name on any port (a proxy on
// 443 forwards Host without one). Names compare case-insensitively.
func allowedHost(host string, allowed []string) bool {
	if len(allowed) == 0 || host == "" {
		return false
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	for _, a := range allowed {
		if strings.EqualFold(a, host) {
			return true
		}
		if _, _, err := net.SplitHostPort(a); err != nil && strings.EqualFold(strings.Trim(a, "[]"), strings.Trim(name, "[]")) {
			return true // a name without a port: any port
		}
	}
	return false
}

// checkOrigin refuses state-changing requests from a foreign origin. A
// request with neither Origin nor Referer (curl, `mneme hook`, Claude Code's
// HTTP hooks) is not a browser's cross-site request and passes.
func checkOrigin(port int, allowed []string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		switch c.Method() {
		case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
			return c.Next()
		}
		origin := c.Get(fiber.HeaderOrigin)
		if origin == "" {
			if ref := c.Get(fiber.HeaderReferer); ref != "" {
				origin = ref
			}
		}
		if origin == "" {
			return c.Next()
		}
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || (port != 0 && !loopbackHost(u.Host, port) && !allowedHost(u.Host, allowed)) {
			return fiber.NewError(fiber.StatusForbidden, "cross-origin request refused")
		}
		return c.Next()
	}
}

// identify records how each request proved who it is (auth.Level):
// requests over the unix socket are the owner's; over TCP, the secret,
// the login cookie, or a person's API token (team mode, looked up in the
// store). It refuses nothing: requireCredentials, in the groups that need
// it, does (see routes).
func identify(h *handlers.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		switch {
		case viaSocket(c):
			auth.SetLevel(c, auth.Owner)
		default:
			l := h.Auth.Identify(c)
			if l == auth.None {
				l = h.IdentifyPerson(c)
			}
			auth.SetLevel(c, l)
		}
		return c.Next()
	}
}

// personsKey marks a request whose route persons may use (see persons).
const personsKey = "mneme.persons"

// persons opens the routes of its group to a person's API token: hook
// events and reads. requireCredentials refuses a person everywhere else.
func persons(c *fiber.Ctx) error {
	c.Locals(personsKey, true)
	return c.Next()
}

// requireCredentials lets through only requests with credentials, and
// persons only on the routes their group opens to them (403 elsewhere:
// settings, forgetting, tokens, backups, imports, pages). A stranger
// asking for a page gets the login page (401); the API, the stream and
// the fragments answer JSON 401, saying why a token was refused.
func requireCredentials(h *handlers.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		switch l := auth.LevelOf(c); {
		case l == auth.Person && c.Locals(personsKey) == nil:
			return fiber.NewError(fiber.StatusForbidden, "a person's API token may send hook events, read memory and propose memories, nothing else: this needs the worker's owner (its socket, its secret or the viewer's login)")
		case l != auth.None:
			return c.Next()
		}
		if r, ok := auth.RefusalOf(c); ok {
			return fiber.NewError(r.Status, r.Msg)
		}
		if c.Method() == fiber.MethodGet && wantsHTML(c) {
			return h.RenderLogin(c, fiber.StatusUnauthorized, "You are not logged in.", c.OriginalURL())
		}
		return fiber.NewError(fiber.StatusUnauthorized, "authentication required: send the worker's secret as Authorization: Bearer (the file secret in mneme's data directory, or MNEME_TOKEN), or log in with `mneme open`")
	}
}

// contentSecurityPolicy allows only our own scripts and styles: no inline
// script, no framing, no foreign connections.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func securityHeaders(c *fiber.Ctx) error {
	c.Set("Content-Security-Policy", contentSecurityPolicy)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "same-origin")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Set("Cross-Origin-Resource-Policy", "same-origin")
	return c.Next()
}

// CSRF protection (Fiber's csrf middleware, double-submit cookie).
const (
	// CSRFCookie holds the token; HttpOnly and SameSite=Strict.
	CSRFCookie = "mneme_csrf"
	// CSRFField is the hidden form field pages submit the token in.
	CSRFField = "_csrf"
	// CSRFHeader is the header scripts send the token in (read from
	// <meta name="csrf-token">).
	CSRFHeader = csrf.HeaderName
)

// csrfProtection is the CSRF check of the api, compat and page groups
// (one middleware: its tokens are shared). Pages get a token on every view
// and must send it with every write; on the API and the compat routes a
// write is checked when a browser makes it (our cookie, an Origin or a
// Referer). `mneme hook`, Claude Code's HTTP hooks, the compat hook scripts
// and curl send none of those and are not a cross-site threat: they pass,
// and the Host, Origin and credential checks still apply to them.
func csrfProtection() fiber.Handler {
	return csrf.New(csrf.Config{
		Next:           skipCSRF,
		CookieName:     CSRFCookie,
		CookieSameSite: "Strict",
		CookieHTTPOnly: true,
		CookiePath:     "/",
		Expiration:     24 * time.Hour,
		ContextKey:     handlers.CSRFContextKey,
		Extractor:      csrfToken,
		ErrorHandler: func(c *fiber.Ctx, err error) error {
			return fiber.NewError(fiber.StatusForbidden, "CSRF check failed ("+err.Error()+"): reload the page and try again")
		},
	})
}

// csrfToken reads the token from the header, else from the form field.
func csrfToken(c *fiber.Ctx) (string, error) {
	if tok := c.Get(CSRFHeader); tok != "" {
		return tok, nil
	}
	if tok := c.FormValue(CSRFField); tok != "" {
		return tok, nil
	}
	return "", csrf.ErrTokenNotFound
}

// skipCSRF tells which requests the CSRF middleware leaves alone, by the
// group of their route.
func skipCSRF(c *fiber.Ctx) bool {
	if kindOf(c) == routePage {
		return false
	}
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return true
	}
	return !fromBrowser(c)
}

// fromBrowser reports a request a web page made: browsers send an Origin on
// every cross-origin POST, PUT and DELETE, and our cookie on same-site ones.
func fromBrowser(c *fiber.Ctx) bool {
	return c.Cookies(CSRFCookie) != "" || c.Get(fiber.HeaderOrigin) != "" || c.Get(fiber.HeaderReferer) != ""
}
