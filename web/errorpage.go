package web

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/static"
	"github.com/mneme-dev/mneme/views"
)

// renderErrorPage answers a page request with an error page in the
// viewer's layout.
func renderErrorPage(c *fiber.Ctx, status int, msg string) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	meta := views.PageMeta{Title: http.StatusText(status), Asset: static.Version}
	return views.ErrorPage(meta, status, msg).Render(c.UserContext(), c.Response().BodyWriter())
}
