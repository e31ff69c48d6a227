package web

import (
	"fmt"
	"html"

	"github.com/gofiber/fiber/v2"
)

// renderErrorPage answers a page request with a minimal HTML error page.
func renderErrorPage(c *fiber.Ctx, status int, msg string) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.SendString(fmt.Sprintf("<!doctype html><title>%d</title><h1>%d</h1><p>%s</p>", status, status, html.EscapeString(msg)))
}
