package handlers

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web/auth"
)

// tokenTouchEvery is how often a token's last_used_at is written: at most
// once a minute per token and replica, so a busy hook costs no write per
// event.
const tokenTouchEvery = time.Minute

// IdentifyPerson checks a person token (team mode) that a request carries
// as its bearer. A known token makes the request the person's (Level
// Person, and the person on its context, which capture records on the
// sessions it creates); an unknown or revoked one, or one that cannot be
// checked, is recorded as refused, and the credentials check answers it.
// A bearer that is not shaped like a person token is left alone.
func (h *Handler) IdentifyPerson(c *fiber.Ctx) auth.Level {
	tok := auth.SecretOf(c)
	if !models.IsPersonToken(tok) {
		return auth.None
	}
	t, err := h.Store.APITokenBySecret(c.UserContext(), tok)
	switch {
	case errors.Is(err, models.ErrNotFound):
		auth.Refuse(c, auth.Refusal{Status: fiber.StatusUnauthorized, Msg: "unknown API token: ask the worker's owner for one (`mneme token create --person NAME`)"})
		return auth.None
	case errors.Is(err, models.ErrTokenRevoked):
		auth.Refuse(c, auth.Refusal{Status: fiber.StatusUnauthorized, Msg: "API token " + t.Prefix + "… was revoked: ask the worker's owner for a new one"})
		return auth.None
	case err != nil:
		h.Log.Error("check an API token", "err", err)
		auth.Refuse(c, auth.Refusal{Status: fiber.StatusServiceUnavailable, Msg: "the API token could not be checked: try again"})
		return auth.None
	}
	h.touchToken(c, t)
	c.SetUserContext(capture.WithPerson(c.UserContext(), t.Person))
	c.Locals(tokenKey, t.ID)
	return auth.Person
}

// tokenKey is the c.Locals key of the id of the person token a request
// came with (see tokenOf).
const tokenKey = "mneme.token"

// tokenOf is the id of the person token the request came with, 0 for
// anyone else.
func tokenOf(c *fiber.Ctx) int64 {
	id, _ := c.Locals(tokenKey).(int64)
	return id
}

// touchToken records the token's use, throttled per token (tokenTouchEvery).
// Failing to record it refuses nothing.
func (h *Handler) touchToken(c *fiber.Ctx, t models.APIToken) {
	now := time.Now()
	if last, ok := h.tokenUse.Load(t.ID); ok && now.Sub(last.(time.Time)) < tokenTouchEvery {
		return
	}
	h.tokenUse.Store(t.ID, now)
	if err := h.Store.TouchAPIToken(c.UserContext(), t.ID, now); err != nil {
		h.Log.Warn("record an API token's use", "token", t.ID, "err", err)
	}
}

// CreateToken serves POST /api/tokens ({"person": "alice"}): a new API
// token for a person, answered once with the token itself.
func (h *Handler) CreateToken(c *fiber.Ctx) error {
	var in struct {
		Person string `json:"person"`
	}
	if err := c.BodyParser(&in); err != nil {
		return badRequest("send {\"person\": \"name\"}")
	}
	t, tok, err := h.Store.CreateAPIToken(c.UserContext(), in.Person)
	if err != nil {
		return err
	}
	return c.JSON(api.CreatedToken{APIToken: t, Token: tok})
}

// ListTokens serves GET /api/tokens: every token's prefix, person and
// dates, never a token.
func (h *Handler) ListTokens(c *fiber.Ctx) error {
	items, err := h.Store.APITokens(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(api.Page[models.APIToken]{Items: items})
}

// RevokeToken serves DELETE /api/tokens/:id: the token stops working at
// once, on every replica.
func (h *Handler) RevokeToken(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return badRequest("a token's id is a positive whole number (see `mneme token list`)")
	}
	t, err := h.Store.RevokeAPIToken(c.UserContext(), id)
	if err != nil {
		return err
	}
	return c.JSON(t)
}
