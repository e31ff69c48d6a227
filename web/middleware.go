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

func checkHost(port int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if viaSocket(c) || port == 0 || loopbackHost(string(c.Request().Host()), port) {
			return c.Next()
		}
		return fiber.NewError(fiber.StatusForbidden, "forbidden host: mneme answers only to localhost, 127.0.0.1 or [::1] on its own port")
	}
}

// checkOrigin refuses state-changing requests from a foreign origin. A
// request with neither Origin nor Referer (curl, `mneme hook`, Claude Code's
// HTTP hooks) is not a browser's cross-site request and passes.
func checkOrigin(port int) fiber.Handler {
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
		if err != nil || u.Host == "" || (port != 0 && !loopbackHost(u.Host, port)) {
			return fiber.NewError(fiber.StatusForbidden, "cross-origin request refused")
		}
		return c.Next()
	}
}

// authenticate records how each request proved who it is (auth.Level) and
// lets through over TCP only those with the secret or the login cookie,
// and, without credentials, only the login page, static files and GET
// /api/health (which then says no more than service and status). Requests
// over the unix socket are the owner's. A stranger asking for a page gets
// the login page (401); the API and the stream answer JSON 401.
func authenticate(h *handlers.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if viaSocket(c) {
			auth.SetLevel(c, auth.Owner)
			return c.Next()
		}
		level := h.Auth.Identify(c)
		auth.SetLevel(c, level)
		if level != auth.None || publicPath(c) {
			return c.Next()
		}
		if c.Method() == fiber.MethodGet && wantsHTML(c) {
			return h.RenderLogin(c, fiber.StatusUnauthorized, "You are not logged in.", c.OriginalURL())
		}
		return fiber.NewError(fiber.StatusUnauthorized, "authentication required: send the worker's secret as Authorization: Bearer (the file secret in mneme's data directory, or MNEME_TOKEN), or log in with `mneme open`")
	}
}

// publicPath is what a request without credentials may reach.
func publicPath(c *fiber.Ctx) bool {
	p := c.Path()
	switch {
	case p == "/login", strings.HasPrefix(p, "/static/"):
		return true
	case p == "/api/health":
		return c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead
	}
	return false
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

// csrfProtection issues a token on page views and requires it on:
//   - every state-changing request to the pages' own forms (/settings…);
//   - every other state-changing request that comes from a browser: one
//     carrying our cookie, an Origin or a Referer.
//
// `mneme hook`, Claude Code's HTTP hooks, the compat hook scripts and curl
// send none of those and are not a cross-site threat: they pass, and the
// Host, Origin and bearer-token checks still apply to them.
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

// skipCSRF tells which requests the CSRF middleware leaves alone.
func skipCSRF(c *fiber.Ctx) bool {
	p := c.Path()
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		// Issue (or refresh) tokens on page views only.
		return strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/static/") ||
			strings.HasPrefix(p, "/fragments/") || p == "/stream"
	}
	if strings.HasPrefix(p, "/settings") {
		return false
	}
	if p == "/login" {
		// The login form has its own double-submit token
		// (handlers.Login): it is shown before this middleware runs.
		return true
	}
	return !fromBrowser(c)
}

// fromBrowser reports a request a web page made: browsers send an Origin on
// every cross-origin POST, PUT and DELETE, and our cookie on same-site ones.
func fromBrowser(c *fiber.Ctx) bool {
	return c.Cookies(CSRFCookie) != "" || c.Get(fiber.HeaderOrigin) != "" || c.Get(fiber.HeaderReferer) != ""
}
