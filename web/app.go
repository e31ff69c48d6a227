// Package web wires mneme's HTTP application: the Fiber app, its middleware
// (recover, the Host, Origin and token checks, security headers) and every
// route, in routes.go.
package web

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/mneme-dev/mneme/handlers"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// DefaultBodyLimit caps request bodies (2 MiB).
const DefaultBodyLimit = 2 << 20

// Options are what the app needs to know about how it is served.
type Options struct {
	// Port is the port the worker listens on; the Host check allows only
	// loopback names with this port, and AllowedHosts.
	Port int
	// AllowedHosts are the other names (host or host:port) the worker
	// answers to in Host and Origin: a team worker's public name. Empty
	// on a personal worker, which answers to loopback names only (DNS
	// rebinding cannot reach it).
	AllowedHosts []string
	// Dev serves static files from disk.
	Dev bool
	// BodyLimit caps request bodies; 0 means DefaultBodyLimit.
	BodyLimit int
	// Log receives 5xx errors.
	Log *slog.Logger
}

// New builds the Fiber app around h, which holds every part it needs (its
// Auth too: the token and login checks use it).
func New(opts Options, h *handlers.Handler) (*fiber.App, error) {
	if h == nil || h.Auth == nil {
		return nil, errors.New("web.New: a handler with its Auth is required")
	}
	if opts.BodyLimit == 0 {
		opts.BodyLimit = DefaultBodyLimit
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	app := fiber.New(fiber.Config{
		AppName:               "mneme",
		BodyLimit:             opts.BodyLimit,
		DisableStartupMessage: true,
		ReadTimeout:           30 * time.Second,
		IdleTimeout:           120 * time.Second,
		ErrorHandler:          errorHandler(opts.Log),
		// Streams must not be cut by a write timeout.
		WriteTimeout: 0,
	})
	app.Use(recover.New())
	app.Use(securityHeaders)
	app.Use(checkHost(opts.Port, opts.AllowedHosts))
	app.Use(identify(h))
	app.Use(checkOrigin(opts.Port, opts.AllowedHosts))
	routes(app, opts, h)
	return app, nil
}

// apiError is the JSON body of every API error.
type apiError struct {
	Error  string              `json:"error"`
	Status int                 `json:"status"`
	Fields []models.FieldError `json:"fields,omitempty"`
}

// classify maps an error to the status and message it is answered with.
func classify(err error) (status int, msg string, fields []models.FieldError) {
	status, msg = fiber.StatusInternalServerError, "internal error"
	var fe *fiber.Error
	var de *shape.DecodeError
	var ve *models.ValidationError
	switch {
	case errors.As(err, &fe):
		status, msg = fe.Code, fe.Message
	case errors.As(err, &de):
		status, msg = fiber.StatusBadRequest, de.Msg
	case errors.As(err, &ve):
		status, msg, fields = fiber.StatusUnprocessableEntity, ve.Error(), ve.Fields
	case errors.Is(err, models.ErrNotFound):
		status, msg = fiber.StatusNotFound, "not found"
	case errors.Is(err, models.ErrInvalid):
		status, msg = fiber.StatusBadRequest, err.Error()
	case errors.Is(err, models.ErrForbidden):
		status, msg = fiber.StatusForbidden, err.Error()
	}
	if status == fiber.StatusRequestEntityTooLarge {
		msg = "request body too large"
	}
	if p := models.StorageProblem(err); p != "" {
		// Disk full, read-only or locked database: say so, and answer
		// 503 so the hook spools the event and retries.
		status, msg = fiber.StatusServiceUnavailable, p
	}
	return status, msg, fields
}

func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		status, msg, fields := classify(err)
		if status >= 500 && errors.Is(err, hookwire.ErrPermanent) {
			// Retrying cannot help (the database refuses the event's
			// data): the hook quarantines the event rather than hold
			// the spool up behind it. A 4xx says so by itself.
			c.Set(hookwire.HeaderPermanent, "1")
		}
		if status >= 500 {
			log.Error("request failed", "method", c.Method(), "path", c.Path(), "err", err)
		}
		if wantsHTML(c) {
			c.Status(status)
			return renderErrorPage(c, status, msg)
		}
		return c.Status(status).JSON(apiError{Error: msg, Status: status, Fields: fields})
	}
}

// wantsHTML is true for a request answered with HTML: a page's, or,
// when no route was matched, one whose Accept asks for HTML. The API, the
// compat routes, the stream and the fragments answer JSON errors.
func wantsHTML(c *fiber.Ctx) bool {
	switch kindOf(c) {
	case routePage, routePublic, routeUnknown:
		return strings.Contains(c.Get(fiber.HeaderAccept), "text/html")
	}
	return false
}
