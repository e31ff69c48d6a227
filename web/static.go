package web

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"github.com/mneme-dev/mneme/static"
)

// staticHandler serves static/ (embedded, or from disk in dev mode, where
// nothing is cached so edits show on reload).
func staticHandler(dev bool) fiber.Handler {
	fsys := filesystem.New(filesystem.Config{Root: http.FS(static.FS(dev))})
	return func(c *fiber.Ctx) error {
		if err := fsys(c); err != nil {
			return err
		}
		if c.Response().StatusCode() == fiber.StatusOK {
			if dev || c.Query("v") == "" {
				c.Set(fiber.HeaderCacheControl, "no-cache")
			} else {
				// The URL carries a hash of the files (static.Version):
				// a new build has new URLs, so caching for good is safe.
				c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
			}
		}
		return nil
	}
}
