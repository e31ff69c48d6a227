package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/static"
	"github.com/mneme-dev/mneme/views"
)

// renderErrorPage answers a page request with an error page in the
// viewer's layout.
func renderErrorPage(c *fiber.Ctx, status int, msg string) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	path := c.Path()
	if p, err := url.PathUnescape(path); err == nil && utf8.ValidString(p) {
		path = p // as the address bar shows it; templ escapes it
	}
	e := errorView(path, status, msg)
	meta := views.PageMeta{Title: e.Heading, Asset: static.Version}
	return views.ErrorPage(meta, e).Render(c.UserContext(), c.Response().BodyWriter())
}

// sessionPathRe: a session page's path and its number.
var sessionPathRe = regexp.MustCompile(`^/sessions/([^/]+)(?:/|$)`)

// errorView says an error in a person's words: a page that does not
// exist, a session that is not stored (perhaps forgotten), or the
// worker's own message for anything else.
func errorView(path string, status int, msg string) views.ErrorView {
	e := views.ErrorView{Status: status, Heading: msg}
	if status != http.StatusNotFound {
		if e.Heading == "" {
			e.Heading = http.StatusText(status)
		}
		return e
	}
	switch m := sessionPathRe.FindStringSubmatch(path); {
	case m != nil:
		name := clipPath(m[1])
		if r, err := ref.Parse("s" + m[1]); err == nil {
			name = r.String()
		}
		e.Heading = "No session " + name
		e.Hint = "It may have been forgotten (forgetting deletes a session for good), or the link comes from another mneme's viewer."
		e.Back = views.Link{Text: "All sessions", URL: "/sessions"}
	case strings.HasPrefix(msg, "Cannot "):
		// Fiber's "Cannot GET /nope": no route.
		e.Heading = "There is no page at " + clipPath(path)
		e.Hint = "The address may be mistyped, or from an older mneme."
	default:
		e.Heading = "Not found"
		e.Hint = "It may have been forgotten, or never stored."
	}
	return e
}

// clipPath keeps a long path short in a heading.
func clipPath(p string) string {
	if utf8.RuneCountInString(p) <= 80 {
		return p
	}
	return string([]rune(p)[:77]) + "…"
}
