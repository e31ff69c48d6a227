package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web/auth"
)

// dangerousChanges names the summarizer settings cur → next changes that
// decide what program the worker runs (kind, claudePath) or where it sends
// the sessions (baseUrl), and the embeddings URL (where stored text is
// sent to be embedded). They need the worker's secret: a login cookie,
// which a page of the viewer holds, is not enough.
func dangerousChanges(cur, next models.Settings) []string {
	var out []string
	if cur.Summarizer.Kind != next.Summarizer.Kind {
		out = append(out, "summarizer.kind")
	}
	if cur.Summarizer.ClaudePath != next.Summarizer.ClaudePath {
		out = append(out, "summarizer.claudePath")
	}
	if cur.Summarizer.BaseURL != next.Summarizer.BaseURL {
		out = append(out, "summarizer.baseUrl")
	}
	if cur.Embeddings.URL != next.Embeddings.URL {
		out = append(out, "embeddings.url")
	}
	return out
}

// mayChangeDangerous reports whether this request may make a dangerous
// change: it came over the socket or carries the secret (a header, or
// formSecret, the settings form's secret field).
func (h *Handler) mayChangeDangerous(c *fiber.Ctx, formSecret string) bool {
	return auth.LevelOf(c) >= auth.Secret || h.Auth.CheckSecret(formSecret)
}

// dangerousRefusal is the message of a refused dangerous change.
func dangerousRefusal(fields []string) string {
	return "changing " + strings.Join(fields, ", ") + " needs the worker's secret (the file secret in mneme's data directory, or MNEME_TOKEN): nothing was saved"
}
