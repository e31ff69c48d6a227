package web

import (
	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/handlers"
)

// routes registers every route of the worker: the whole URL space in one
// place.
func routes(app *fiber.App, cfg Config, h *handlers.Handler) {
	// Logging in: the login page, one-time links (`mneme open`) and the
	// pasted secret; links are made over the socket or with the secret.
	app.Get("/login", h.ShowLogin)
	app.Post("/login", h.Login)
	app.Post("/api/login-links", h.CreateLoginLink)

	// Native ingest: Claude Code's hook JSON in, the hook's answer out.
	app.Post("/api/hooks/:event", h.IngestHook)

	// claude-mem compatibility.
	app.Get("/api/health", h.ShowHealth)
	app.Get("/api/context/inject", h.InjectContext)
	app.Post("/api/sessions/init", h.CompatSessionInit())
	app.Post("/sessions/:id/init", h.CompatSessionInit())
	app.Post("/api/sessions/observations", h.CompatObservation())
	app.Post("/api/sessions/summarize", h.CompatSummarize())
	app.Post("/api/sessions/complete", h.CompatSessionComplete())
	app.Post("/api/processing", h.CompatProcessing)

	// jikime-mem compatibility.
	app.Post("/api/sessions/start", h.CompatSessionStart())
	app.Get("/api/context", h.CompatContext)
	app.Post("/api/prompts", h.CompatPrompt())
	app.Post("/api/observations", h.CompatObservation())
	app.Post("/api/responses", h.CompatSummarize())
	app.Post("/api/sessions/stop", h.CompatSessionComplete())

	// Read API.
	app.Get("/api/sessions", h.ListSessions)
	app.Get("/api/sessions/:id", h.ShowSessionJSON)
	app.Get("/api/observations", h.ListObservations)
	app.Post("/api/observations/batch", h.ObservationsBatch)
	app.Get("/api/prompts", h.ListPrompts)
	app.Get("/api/summaries", h.ListSummaries)
	app.Get("/api/search", h.SearchJSON)
	app.Get("/api/timeline", h.TimelineJSON)
	app.Get("/api/projects", h.ListProjects)
	app.Get("/api/stats", h.StatsJSON)

	// Export: session reports as downloads (md, json, html), one session
	// or a project's sessions since a date. `mneme export` uses these too.
	app.Get("/api/sessions/:id/export", h.ExportSession)
	app.Get("/api/export", h.ExportProject)

	// Live stream.
	app.Get("/stream", h.Stream)

	// Pages: the viewer (templ, rendered on the server), its static assets,
	// and the HTML fragments app.js fetches for live rows and "load more"
	// (rendered by the same components as the pages).
	app.Use("/static", staticHandler(cfg.Dev))
	app.Get("/", h.ShowFeed)
	app.Get("/sessions", h.ShowSessions)
	app.Get("/sessions/:id", h.ShowSession)
	app.Get("/search", h.ShowSearch)
	app.Get("/stats", h.ShowStats)
	app.Get("/fragments/feed", h.ShowFeedFragment)
	app.Get("/fragments/event/:id", h.ShowEventFragment)

	// Settings: the page (a plain form with a CSRF token, works without
	// JavaScript) and the JSON API (secrets are write-only). Every save is
	// validated as a whole, applied at once and announced on /stream as
	// settings_changed.
	app.Get("/settings", h.ShowSettings)
	app.Post("/settings", h.SaveSettingsForm)
	app.Post("/settings/redact", h.ReapplyRedactionForm)
	app.Get("/api/settings", h.ShowSettingsJSON)
	app.Put("/api/settings", h.UpdateSettingsJSON)
	app.Post("/api/settings/test-rule", h.TestRedactionRule)
	app.Get("/api/settings/retention", h.RetentionPreview)
	app.Get("/api/settings/preview", h.PreviewContextJSON)
	app.Post("/api/settings/reapply-redaction", h.ReapplyRedactionJSON)
}
