package handlers

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/views"
	"github.com/mneme-dev/mneme/web/auth"
)

// loginCSRFCookie holds the login form's double-submit token. The login
// form has its own token because it is shown before anything else runs
// (web's auth gate renders it for every page a stranger asks for).
const loginCSRFCookie = "mneme_login_csrf"

// RenderLogin answers with the login page and status, saying msg.
func (h *Handler) RenderLogin(c *fiber.Ctx, status int, msg, next string) error {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	tok := hex.EncodeToString(b[:])
	c.Cookie(&fiber.Cookie{Name: loginCSRFCookie, Value: tok, Path: "/login", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode, Expires: time.Now().Add(time.Hour)})
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Status(status)
	meta := h.PageMeta(c, "Log in", "login")
	return render(c, views.LoginPage(meta, views.LoginView{Message: msg, Next: auth.SafeNext(next), CSRF: tok}))
}

// ShowLogin serves GET /login: with ?token=…, a one-time link from `mneme
// open` (or the one `mneme serve` prints), which sets the login cookie and
// goes on to a safe next; without, the login page.
func (h *Handler) ShowLogin(c *fiber.Ctx) error {
	next := auth.SafeNext(c.Query("next"))
	token := c.Query("token")
	if token == "" {
		return h.RenderLogin(c, fiber.StatusOK, "", next)
	}
	if err := h.Auth.ConsumeLink(token); err != nil {
		msg := err.Error()
		if errors.Is(err, auth.ErrLinkInvalid) {
			// The page says which command gives a fresh one.
			msg = "This login link was already used or has expired."
		}
		return h.RenderLogin(c, fiber.StatusUnauthorized, msg, next)
	}
	h.setSession(c)
	return c.Redirect(next, fiber.StatusSeeOther)
}

// Login serves POST /login: the pasted secret, checked against the form's
// own CSRF token. The secret is never rendered back.
func (h *Handler) Login(c *fiber.Ctx) error {
	next := auth.SafeNext(c.FormValue("next"))
	cookie, field := c.Cookies(loginCSRFCookie), c.FormValue("login_csrf")
	if cookie == "" || subtle.ConstantTimeCompare([]byte(cookie), []byte(field)) != 1 {
		return h.RenderLogin(c, fiber.StatusForbidden, "The login form expired (CSRF check failed): try again.", next)
	}
	if !h.Auth.CheckSecret(c.FormValue("secret")) {
		return h.RenderLogin(c, fiber.StatusUnauthorized, "That is not the worker's secret.", next)
	}
	h.setSession(c)
	return c.Redirect(next, fiber.StatusSeeOther)
}

func (h *Handler) setSession(c *fiber.Ctx) {
	c.Cookie(&fiber.Cookie{Name: auth.CookieName, Value: h.Auth.SessionValue(), Path: "/", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode, Expires: time.Now().Add(400 * 24 * time.Hour)})
	c.Cookie(&fiber.Cookie{Name: loginCSRFCookie, Path: "/login", Expires: time.Unix(1, 0), HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode})
}

// CreateLoginLink serves POST /api/login-links: a one-time login link, for
// the owner (socket) or a holder of the secret only; the login cookie is
// not enough.
func (h *Handler) CreateLoginLink(c *fiber.Ctx) error {
	if auth.LevelOf(c) < auth.Secret {
		return fiber.NewError(fiber.StatusForbidden, "login links are made over the socket (`mneme open`) or with the secret")
	}
	tok, exp := h.Auth.NewLink()
	link := api.LoginLink{Token: tok, Path: "/login?token=" + url.QueryEscape(tok), ExpiresAt: exp}
	if h.ViewerURL != "" {
		link.URL = h.ViewerURL + link.Path
	}
	return c.JSON(link)
}
